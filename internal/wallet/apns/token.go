package apns

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// TokenRefresh is how long a provider token is reused. APNs rejects tokens older than an hour
// and refreshes more often than every 20 minutes (TooManyProviderTokenUpdates).
const TokenRefresh = 40 * time.Minute

// TokenAuth authenticates with a provider token: an ES256 JWT signed by the team's APNs key
// (.p8), made once and reused for TokenRefresh.
type TokenAuth struct {
	KeyID  string // the key's id: the JWT header's kid
	TeamID string // the team id: the JWT's iss
	Key    *ecdsa.PrivateKey
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	token  string
	issued time.Time
}

func (a *TokenAuth) authorize(r *http.Request) error {
	tok, err := a.Token()
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", "bearer "+tok)
	return nil
}

func (a *TokenAuth) configureTLS(*tls.Config) {}

// Token is the current provider token, made anew when the cached one is TokenRefresh old.
func (a *TokenAuth) Token() (string, error) {
	now := time.Now()
	if a.Now != nil {
		now = a.Now()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token != "" && now.Sub(a.issued) < TokenRefresh && !now.Before(a.issued) {
		return a.token, nil
	}
	tok, err := a.sign(now)
	if err != nil {
		return "", err
	}
	a.token, a.issued = tok, now
	return tok, nil
}

func (a *TokenAuth) sign(now time.Time) (string, error) {
	if a.Key == nil || a.Key.Curve != elliptic.P256() {
		return "", errors.New("apns: token auth needs a P-256 key")
	}
	header, err := json.Marshal(map[string]string{"alg": "ES256", "kid": a.KeyID})
	if err != nil {
		return "", fmt.Errorf("apns: token header: %w", err)
	}
	claims, err := json.Marshal(map[string]any{"iss": a.TeamID, "iat": now.Unix()})
	if err != nil {
		return "", fmt.Errorf("apns: token claims: %w", err)
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	h := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, a.Key, h[:])
	if err != nil {
		return "", fmt.Errorf("apns: sign token: %w", err)
	}
	// JWS wants r and s as two fixed 32-byte big-endian numbers, not ASN.1.
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + enc.EncodeToString(sig), nil
}

// ParseKey reads the APNs auth key as Apple hands it out: a PEM "PRIVATE KEY" (PKCS#8) .p8 file.
func ParseKey(pemBytes []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("apns: key is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("apns: parse key: %w", err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("apns: key is not a P-256 ECDSA key")
	}
	return ec, nil
}
