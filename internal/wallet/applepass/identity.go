// Package applepass builds and signs Apple Wallet passes (.pkpass) for cinema bookings: the
// signing identity, the pass model with its pass.json, and the zip with its manifest and
// detached PKCS#7 signature. It knows nothing of HTTP or bookings; callers give it plain values.
package applepass

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Errors returned when a signing identity cannot be loaded or used. Each is wrapped with the
// detail (which file, which date), so callers match with errors.Is and print the message.
var (
	ErrMissingCertificate = errors.New("no pass type certificate given")
	ErrBadCertificate     = errors.New("certificate is not a readable PEM X.509 certificate")
	ErrMissingKey         = errors.New("no private key given")
	ErrBadKey             = errors.New("private key is not a readable unencrypted PEM RSA or ECDSA key")
	ErrKeyMismatch        = errors.New("private key does not belong to the pass type certificate")
	ErrMissingWWDR        = errors.New("no Apple WWDR intermediate certificate given")
	ErrWWDRMismatch       = errors.New("pass type certificate was not issued by the given WWDR certificate")
	ErrMissingIdentifier  = errors.New("pass type id and team id are both required")
	ErrIdentifierMismatch = errors.New("pass type id or team id differs from the certificate's")
	ErrExpired            = errors.New("certificate has expired")
	ErrNotYetValid        = errors.New("certificate is not valid yet")
)

// oidUserID is the subject attribute (UID) where Apple puts the pass type id in a pass
// certificate; checking it catches a certificate configured for another pass type.
var oidUserID = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}

// testWWDRPrefix starts the common name of the CA GenerateTestIdentity makes, so IsTest can
// tell a test identity from Apple's without a separate flag.
const testWWDRPrefix = "TEST WWDR"

// Identity is what signs passes: the pass type certificate with its private key, the Apple
// WWDR intermediate that issued it, and the identifiers the certificate was made for.
type Identity struct {
	Certificate *x509.Certificate
	Key         crypto.Signer
	WWDR        *x509.Certificate
	PassTypeID  string // e.g. pass.com.example.tickets
	TeamID      string // the Apple developer team, ten characters
}

// LoadIdentity parses PEM data for the pass certificate, its key and the WWDR intermediate and
// checks that they fit together and are valid at now. An expired certificate gives ErrExpired:
// Wallet rejects passes signed with it, so the operator must hear about it at start-up.
func LoadIdentity(certPEM, keyPEM, wwdrPEM []byte, passTypeID, teamID string, now time.Time) (Identity, error) {
	if strings.TrimSpace(passTypeID) == "" || strings.TrimSpace(teamID) == "" {
		return Identity{}, ErrMissingIdentifier
	}
	cert, err := parseCertificate(certPEM, ErrMissingCertificate)
	if err != nil {
		return Identity{}, fmt.Errorf("pass type certificate: %w", err)
	}
	wwdr, err := parseCertificate(wwdrPEM, ErrMissingWWDR)
	if err != nil {
		return Identity{}, fmt.Errorf("WWDR certificate: %w", err)
	}
	key, err := parseKey(keyPEM)
	if err != nil {
		return Identity{}, fmt.Errorf("pass type key: %w", err)
	}
	pub, ok := cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(key.Public()) {
		return Identity{}, fmt.Errorf("certificate %q: %w", cert.Subject.CommonName, ErrKeyMismatch)
	}
	if err := cert.CheckSignatureFrom(wwdr); err != nil {
		return Identity{}, fmt.Errorf("certificate %q, WWDR %q: %w (%v)",
			cert.Subject.CommonName, wwdr.Subject.CommonName, ErrWWDRMismatch, err)
	}
	if err := checkIdentifiers(cert, passTypeID, teamID); err != nil {
		return Identity{}, err
	}
	id := Identity{Certificate: cert, Key: key, WWDR: wwdr, PassTypeID: passTypeID, TeamID: teamID}
	if err := id.CheckValid(now); err != nil {
		return Identity{}, err
	}
	return id, nil
}

// LoadIdentityFiles is LoadIdentity for PEM files, as an operator configures them.
func LoadIdentityFiles(certPath, keyPath, wwdrPath, passTypeID, teamID string, now time.Time) (Identity, error) {
	read := func(path string, missing error) ([]byte, error) {
		if path == "" {
			return nil, missing
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, missing)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return b, nil
	}
	certPEM, err := read(certPath, ErrMissingCertificate)
	if err != nil {
		return Identity{}, fmt.Errorf("pass type certificate: %w", err)
	}
	keyPEM, err := read(keyPath, ErrMissingKey)
	if err != nil {
		return Identity{}, fmt.Errorf("pass type key: %w", err)
	}
	wwdrPEM, err := read(wwdrPath, ErrMissingWWDR)
	if err != nil {
		return Identity{}, fmt.Errorf("WWDR certificate: %w", err)
	}
	id, err := LoadIdentity(certPEM, keyPEM, wwdrPEM, passTypeID, teamID, now)
	if err != nil {
		return Identity{}, fmt.Errorf("load %s: %w", certPath, err)
	}
	return id, nil
}

// NotAfter is when the identity stops signing: the earlier end of the pass certificate and
// the WWDR intermediate, since either expiring breaks new passes.
func (id Identity) NotAfter() time.Time {
	if id.WWDR != nil && id.WWDR.NotAfter.Before(id.Certificate.NotAfter) {
		return id.WWDR.NotAfter
	}
	return id.Certificate.NotAfter
}

// ExpiresWithin reports whether the identity expires within d of now (or already has), so the
// operator is warned in time to renew, e.g. ExpiresWithin(now, 30*24*time.Hour).
func (id Identity) ExpiresWithin(now time.Time, d time.Duration) bool {
	return !now.Add(d).Before(id.NotAfter())
}

// CheckValid returns ErrExpired or ErrNotYetValid, with the certificate and date, when either
// certificate is outside its validity at now.
func (id Identity) CheckValid(now time.Time) error {
	for _, c := range []struct {
		what string
		cert *x509.Certificate
	}{{"pass type certificate", id.Certificate}, {"WWDR certificate", id.WWDR}} {
		if c.cert == nil {
			return fmt.Errorf("%s: %w", c.what, ErrMissingCertificate)
		}
		if now.After(c.cert.NotAfter) {
			return fmt.Errorf("%s %q ended %s: %w", c.what, c.cert.Subject.CommonName,
				c.cert.NotAfter.UTC().Format(time.RFC3339), ErrExpired)
		}
		if now.Before(c.cert.NotBefore) {
			return fmt.Errorf("%s %q starts %s: %w", c.what, c.cert.Subject.CommonName,
				c.cert.NotBefore.UTC().Format(time.RFC3339), ErrNotYetValid)
		}
	}
	return nil
}

// IsTest reports whether the identity is one GenerateTestIdentity made; its passes will not
// install on a phone, so the service says so on start.
func (id Identity) IsTest() bool {
	return id.WWDR != nil && strings.HasPrefix(id.WWDR.Subject.CommonName, testWWDRPrefix)
}

func parseCertificate(data []byte, missing error) (*x509.Certificate, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, missing
	}
	// A configured file may hold a chain; the first certificate is the one meant.
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, fmt.Errorf("no CERTIFICATE block: %w", ErrBadCertificate)
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadCertificate, err)
		}
		return cert, nil
	}
}

func parseKey(data []byte) (crypto.Signer, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, ErrMissingKey
	}
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, fmt.Errorf("no PRIVATE KEY block: %w", ErrBadKey)
		}
		var (
			key any
			err error
		)
		switch {
		case block.Type == "ENCRYPTED PRIVATE KEY" || block.Headers["Proc-Type"] != "":
			// Apple hands out a password-protected .p12; the service has no password to ask for.
			return nil, fmt.Errorf("key is encrypted, export it with `openssl pkcs12 -nodes`: %w", ErrBadKey)
		case block.Type == "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case block.Type == "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case block.Type == "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
		}
		switch k := key.(type) {
		case *rsa.PrivateKey:
			return k, nil
		case *ecdsa.PrivateKey:
			return k, nil
		default:
			return nil, fmt.Errorf("key type %T: %w", key, ErrBadKey)
		}
	}
}

func checkIdentifiers(cert *x509.Certificate, passTypeID, teamID string) error {
	for _, n := range cert.Subject.Names {
		if n.Type.Equal(oidUserID) {
			if uid, _ := n.Value.(string); uid != "" && uid != passTypeID {
				return fmt.Errorf("certificate is for %q, configured %q: %w", uid, passTypeID, ErrIdentifierMismatch)
			}
		}
	}
	for _, ou := range cert.Subject.OrganizationalUnit {
		if ou != teamID {
			return fmt.Errorf("certificate is for team %q, configured %q: %w", ou, teamID, ErrIdentifierMismatch)
		}
	}
	return nil
}
