package apns_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/wallet/apns"
)

const (
	topic  = "pass.com.example.cinema"
	device = "8a3f0c9e1b2d4f6a8a3f0c9e1b2d4f6a8a3f0c9e1b2d4f6a8a3f0c9e1b2d4f6a"
)

// standIn serves a Recorder over unencrypted HTTP/2, as the sandbox does.
func standIn(t *testing.T) (*apns.Recorder, string) {
	t.Helper()
	rec := apns.NewRecorder()
	url, stop, err := rec.Serve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return rec, url
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestPush: each answer of the stand-in gives the right outcome and number of attempts, and
// every attempt is an HTTP/2 POST with the Wallet push's headers, an empty JSON payload and a
// bearer token.
func TestPush(t *testing.T) {
	type fail struct {
		n, status int
		reason    string
	}
	for _, tc := range []struct {
		name         string
		fail         []fail
		wantAttempts int
		wantStatus   int  // 0: success
		unregistered bool // errors.Is(err, ErrUnregistered)
	}{
		{name: "delivered", wantAttempts: 1},
		{name: "503 twice then delivered", fail: []fail{{2, 503, "ServiceUnavailable"}}, wantAttempts: 3},
		{name: "429 then delivered", fail: []fail{{1, 429, "TooManyRequests"}}, wantAttempts: 2},
		{name: "500 until attempts run out", fail: []fail{{5, 500, "InternalServerError"}}, wantAttempts: 3, wantStatus: 500},
		{name: "410 unregistered, not retried", fail: []fail{{1, 410, "Unregistered"}}, wantAttempts: 1, wantStatus: 410, unregistered: true},
		{name: "400 bad token, not retried", fail: []fail{{1, 400, "BadDeviceToken"}}, wantAttempts: 1, wantStatus: 400},
		{name: "403 bad provider token, not retried", fail: []fail{{1, 403, "InvalidProviderToken"}}, wantAttempts: 1, wantStatus: 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, url := standIn(t)
			for _, f := range tc.fail {
				rec.FailNext(f.n, f.status, f.reason)
			}
			c := &apns.Client{Endpoint: url, Topic: topic, MaxAttempts: 3, Backoff: time.Millisecond,
				Auth: &apns.TokenAuth{KeyID: "KEY123", TeamID: "TEAM456", Key: newKey(t)}}
			err := c.Push(context.Background(), device)
			var apnsErr *apns.Error
			switch {
			case tc.wantStatus == 0 && err != nil:
				t.Fatalf("Push: %v", err)
			case tc.wantStatus != 0 && !errors.As(err, &apnsErr):
				t.Fatalf("Push = %v, want an *apns.Error", err)
			case tc.wantStatus != 0 && apnsErr.Status != tc.wantStatus:
				t.Fatalf("status %d, want %d", apnsErr.Status, tc.wantStatus)
			}
			if got := errors.Is(err, apns.ErrUnregistered); got != tc.unregistered {
				t.Errorf("errors.Is(err, ErrUnregistered) = %v, want %v (err %v)", got, tc.unregistered, err)
			}
			attempts := rec.Attempts()
			if len(attempts) != tc.wantAttempts {
				t.Fatalf("%d attempts, want %d", len(attempts), tc.wantAttempts)
			}
			for _, a := range attempts {
				if a.ProtoMajor != 2 || a.Token != device || a.Topic != topic || a.PushType != "background" ||
					a.Priority != "5" || string(a.Body) != "{}" || !strings.HasPrefix(a.Header.Get("Authorization"), "bearer ") {
					t.Errorf("attempt: proto %d token %q topic %q type %q priority %q body %q auth %q",
						a.ProtoMajor, a.Token, a.Topic, a.PushType, a.Priority, a.Body, a.Header.Get("Authorization"))
				}
			}
			wantPushes := 0
			if tc.wantStatus == 0 {
				wantPushes = 1
			}
			if n := len(rec.PushesFor(device)); n != wantPushes {
				t.Errorf("%d delivered pushes, want %d", n, wantPushes)
			}
		})
	}
}

// TestPushHonoursContext: a push retrying a failing APNs stops when its context ends.
func TestPushHonoursContext(t *testing.T) {
	rec, url := standIn(t)
	rec.FailNext(100, 503, "ServiceUnavailable")
	c := &apns.Client{Endpoint: url, Topic: topic, MaxAttempts: 100, Backoff: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Push(ctx, device)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Push = %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Push took %v after its context ended", d)
	}
	if n := len(rec.Attempts()); n < 1 || n > 2 {
		t.Fatalf("%d attempts, want 1 or 2", n)
	}
}

// TestPushRefusesMalformedToken: a token that would change the request path is not sent.
func TestPushRefusesMalformedToken(t *testing.T) {
	rec, url := standIn(t)
	c := &apns.Client{Endpoint: url, Topic: topic}
	for _, tok := range []string{"", "../../x", "abc/def", "zz", strings.Repeat("a", 201)} {
		if err := c.Push(context.Background(), tok); !errors.Is(err, apns.ErrBadDeviceToken) {
			t.Errorf("Push(%q) = %v, want ErrBadDeviceToken", tok, err)
		}
	}
	if n := len(rec.Attempts()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestProviderToken: the JWT has Apple's header and claims, its ES256 signature verifies with
// the key's public half, and it is reused for 40 minutes, then made anew.
func TestProviderToken(t *testing.T) {
	key := newKey(t)
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	a := &apns.TokenAuth{KeyID: "KEY123", TeamID: "TEAM456", Key: key, Now: func() time.Time { return now }}
	tok, err := a.Token()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d parts", tok, len(parts))
	}
	var header map[string]string
	var claims map[string]any
	decode(t, parts[0], &header)
	decode(t, parts[1], &claims)
	if header["alg"] != "ES256" || header["kid"] != "KEY123" || len(header) != 2 {
		t.Errorf("header %v", header)
	}
	if claims["iss"] != "TEAM456" || claims["iat"] != float64(now.Unix()) {
		t.Errorf("claims %v", claims)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		t.Fatalf("signature %q: %v", parts[2], err)
	}
	h := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(&key.PublicKey, h[:], r, s) {
		t.Fatal("signature does not verify with the public key")
	}
	if ecdsa.Verify(&newKey(t).PublicKey, h[:], r, s) {
		t.Fatal("signature verifies with another key")
	}

	for _, step := range []struct {
		after time.Duration
		same  bool
	}{{time.Minute, true}, {39 * time.Minute, true}, {41 * time.Minute, false}} {
		now = time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC).Add(step.after)
		again, err := a.Token()
		if err != nil {
			t.Fatal(err)
		}
		if (again == tok) != step.same {
			t.Errorf("after %v: same token = %v, want %v", step.after, again == tok, step.same)
		}
	}
}

func decode(t *testing.T, part string, v any) {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestParseKey reads a .p8 as Apple issues it and refuses what is not a P-256 key.
func TestParseKey(t *testing.T) {
	key := newKey(t)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := apns.ParseKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil || !got.Equal(key) {
		t.Fatalf("ParseKey = %v, %v", got, err)
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der384, _ := x509.MarshalPKCS8PrivateKey(p384)
	for name, in := range map[string][]byte{
		"not PEM": []byte("hello"),
		"P-384":   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der384}),
	} {
		if _, err := apns.ParseKey(in); err == nil {
			t.Errorf("%s: ParseKey succeeded", name)
		}
	}
}

// TestPushWithCertificate: over TLS the client speaks HTTP/2 and presents the pass type's
// certificate instead of a bearer token.
func TestPushWithCertificate(t *testing.T) {
	rec := apns.NewRecorder()
	peers := make(chan *x509.Certificate, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			peers <- r.TLS.PeerCertificates[0]
		}
		rec.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cert := selfSigned(t)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	c := &apns.Client{Endpoint: srv.URL, Topic: topic, TLSConfig: &tls.Config{RootCAs: roots},
		Auth: &apns.CertificateAuth{Certificate: cert}}
	if err := c.Push(context.Background(), device); err != nil {
		t.Fatal(err)
	}
	got := rec.PushesFor(device)
	if len(got) != 1 || got[0].ProtoMajor != 2 || got[0].Header.Get("Authorization") != "" {
		t.Fatalf("pushes %+v", got)
	}
	select {
	case peer := <-peers:
		if !bytes.Equal(peer.Raw, cert.Certificate[0]) {
			t.Fatal("the stand-in saw another client certificate")
		}
	default:
		t.Fatal("the stand-in saw no client certificate")
	}
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Pass Type ID: " + topic},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// flaky fails its first n round trips as a broken connection would.
type flaky struct {
	n, calls int
	next     http.RoundTripper
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	f.calls++
	if f.calls <= f.n {
		return nil, errors.New("connection reset by peer")
	}
	return f.next.RoundTrip(r)
}

// TestPushRetriesNetworkErrors: a broken connection is retried; when it stays broken the
// error comes back after MaxAttempts tries.
func TestPushRetriesNetworkErrors(t *testing.T) {
	for _, tc := range []struct {
		failures, wantCalls int
		wantErr             bool
	}{{2, 3, false}, {5, 3, true}} {
		rec := apns.NewRecorder()
		srv := httptest.NewServer(rec)
		f := &flaky{n: tc.failures, next: http.DefaultTransport}
		c := &apns.Client{Endpoint: srv.URL, Topic: topic, MaxAttempts: 3, Backoff: time.Millisecond,
			HTTPClient: &http.Client{Transport: f}}
		err := c.Push(context.Background(), device)
		srv.Close()
		if (err != nil) != tc.wantErr || f.calls != tc.wantCalls {
			t.Errorf("%d failures: Push = %v after %d calls; want error %v after %d", tc.failures, err, f.calls, tc.wantErr, tc.wantCalls)
		}
		if want := map[bool]int{false: 1, true: 0}[tc.wantErr]; len(rec.Pushes()) != want {
			t.Errorf("%d failures: %d pushes delivered, want %d", tc.failures, len(rec.Pushes()), want)
		}
	}
}
