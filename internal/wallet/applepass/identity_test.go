package applepass

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPEMs is an ECDSA identity made for one test, with the PEM a config would hold.
type testPEMs struct {
	cert, key, wwdr []byte
}

// makeECDSAIdentity issues a pass certificate from a fresh CA, valid from notBefore to notAfter,
// shaped like Apple's (UID = pass type id, OU = team id).
func makeECDSAIdentity(t *testing.T, passTypeID, teamID string, notBefore, notAfter time.Time) testPEMs {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	passKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "unit test WWDR"},
		NotBefore: notBefore, NotAfter: notAfter.Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject: pkix.Name{CommonName: "Pass Type ID: " + passTypeID, OrganizationalUnit: []string{teamID},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: oidUserID, Value: passTypeID}}},
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &passKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(passKey)
	if err != nil {
		t.Fatal(err)
	}
	return testPEMs{
		cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		wwdr: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
	}
}

func TestLoadIdentityErrors(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	good := makeECDSAIdentity(t, "pass.com.example.tickets", "ABCDE12345", now.Add(-24*time.Hour), now.Add(365*24*time.Hour))
	other := makeECDSAIdentity(t, "pass.com.example.tickets", "ABCDE12345", now.Add(-24*time.Hour), now.Add(365*24*time.Hour))
	expired := makeECDSAIdentity(t, "pass.com.example.tickets", "ABCDE12345", now.Add(-400*24*time.Hour), now.Add(-time.Hour))
	future := makeECDSAIdentity(t, "pass.com.example.tickets", "ABCDE12345", now.Add(time.Hour), now.Add(400*24*time.Hour))
	garbled := []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n")
	encrypted := []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")

	cases := []struct {
		name               string
		cert, key, wwdr    []byte
		passTypeID, teamID string
		want               error
	}{
		{"valid", good.cert, good.key, good.wwdr, "pass.com.example.tickets", "ABCDE12345", nil},
		{"missing certificate", nil, good.key, good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrMissingCertificate},
		{"garbled certificate", garbled, good.key, good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrBadCertificate},
		{"not PEM at all", []byte("hello"), good.key, good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrBadCertificate},
		{"missing key", good.cert, []byte("  \n"), good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrMissingKey},
		{"garbled key", good.cert, garbled, good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrBadKey},
		{"encrypted key", good.cert, encrypted, good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrBadKey},
		{"key of another certificate", good.cert, other.key, good.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrKeyMismatch},
		{"missing WWDR", good.cert, good.key, nil, "pass.com.example.tickets", "ABCDE12345", ErrMissingWWDR},
		{"garbled WWDR", good.cert, good.key, garbled, "pass.com.example.tickets", "ABCDE12345", ErrBadCertificate},
		{"another WWDR", good.cert, good.key, other.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrWWDRMismatch},
		{"no pass type id", good.cert, good.key, good.wwdr, "", "ABCDE12345", ErrMissingIdentifier},
		{"no team id", good.cert, good.key, good.wwdr, "pass.com.example.tickets", " ", ErrMissingIdentifier},
		{"other pass type id", good.cert, good.key, good.wwdr, "pass.com.example.other", "ABCDE12345", ErrIdentifierMismatch},
		{"other team id", good.cert, good.key, good.wwdr, "pass.com.example.tickets", "ZZZZZ99999", ErrIdentifierMismatch},
		{"expired", expired.cert, expired.key, expired.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrExpired},
		{"not valid yet", future.cert, future.key, future.wwdr, "pass.com.example.tickets", "ABCDE12345", ErrNotYetValid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id, err := LoadIdentity(tc.cert, tc.key, tc.wwdr, tc.passTypeID, tc.teamID, now)
			if tc.want == nil {
				if err != nil || id.Certificate == nil || id.Key == nil || id.WWDR == nil {
					t.Fatalf("LoadIdentity = %+v, %v; want a loaded identity", id, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("LoadIdentity error = %v; want %v", err, tc.want)
			}
			if id.Certificate != nil || id.Key != nil {
				t.Errorf("LoadIdentity returned a partial identity with error %v", err)
			}
		})
	}
}

func TestLoadIdentityFilesMissingFile(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadIdentityFiles(filepath.Join(dir, "nope.pem"), filepath.Join(dir, "key.pem"),
		filepath.Join(dir, "wwdr.pem"), "pass.x", "T", time.Now())
	if !errors.Is(err, ErrMissingCertificate) || !strings.Contains(err.Error(), "nope.pem") {
		t.Fatalf("error = %v; want ErrMissingCertificate naming the file", err)
	}
}

func TestExpiresWithin(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := makeECDSAIdentity(t, "pass.x", "T", now.Add(-time.Hour), now.Add(20*24*time.Hour))
	id, err := LoadIdentity(p.cert, p.key, p.wwdr, "pass.x", "T", now)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		within time.Duration
		want   bool
	}{
		{30 * 24 * time.Hour, true},
		{20 * 24 * time.Hour, true},
		{19 * 24 * time.Hour, false},
		{0, false},
	}
	for _, tc := range cases {
		if got := id.ExpiresWithin(now, tc.within); got != tc.want {
			t.Errorf("ExpiresWithin(now, %v) = %v; certificate ends %v", tc.within, got, id.NotAfter())
		}
	}
	if !id.ExpiresWithin(now.Add(21*24*time.Hour), 0) {
		t.Error("an identity already expired must count as expiring")
	}
	if id.IsTest() {
		t.Error("an identity not made by GenerateTestIdentity reports IsTest")
	}
}

func TestGenerateTestIdentity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	now := time.Now()
	first, created, err := GenerateTestIdentity(dir, now)
	if err != nil || !created {
		t.Fatalf("first call: created=%v err=%v", created, err)
	}
	second, created, err := GenerateTestIdentity(dir, now.Add(time.Minute))
	if err != nil || created {
		t.Fatalf("second call: created=%v err=%v; want the same identity reused", created, err)
	}
	if !bytes.Equal(first.Certificate.Raw, second.Certificate.Raw) || !bytes.Equal(first.WWDR.Raw, second.WWDR.Raw) {
		t.Fatal("second call made a new identity instead of reusing the files")
	}
	folder := filepath.Join(dir, TestIdentityDir)
	loaded, err := LoadIdentityFiles(filepath.Join(folder, TestCertFile), filepath.Join(folder, TestKeyFile),
		filepath.Join(folder, TestWWDRFile), TestPassTypeID, TestTeamID, now)
	if err != nil {
		t.Fatalf("files do not load back: %v", err)
	}
	if !bytes.Equal(loaded.Certificate.Raw, first.Certificate.Raw) {
		t.Fatal("loaded certificate differs from the generated one")
	}
	info, err := os.Stat(filepath.Join(folder, TestKeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v (%v); want 0600", info.Mode().Perm(), err)
	}
	if !first.IsTest() || !strings.Contains(first.Certificate.Subject.CommonName, "TEST") ||
		!strings.Contains(strings.Join(first.Certificate.Subject.Organization, " "), "TEST identity") {
		t.Errorf("test identity is not labelled as test: %s / %s", first.Certificate.Subject, first.WWDR.Subject)
	}
	if first.PassTypeID != TestPassTypeID || first.TeamID != TestTeamID {
		t.Errorf("identifiers = %q %q", first.PassTypeID, first.TeamID)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, TestIdentityDir+".tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary folders left behind: %v", leftovers)
	}

	// Once expired it is replaced rather than breaking every start.
	later := first.NotAfter().Add(time.Hour)
	renewed, created, err := GenerateTestIdentity(dir, later)
	if err != nil || !created || bytes.Equal(renewed.Certificate.Raw, first.Certificate.Raw) {
		t.Fatalf("expired test identity: created=%v err=%v; want a new one", created, err)
	}
	if err := renewed.CheckValid(later); err != nil {
		t.Fatalf("renewed identity not valid: %v", err)
	}
}

func TestGenerateTestIdentityRefusesGarbage(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, TestIdentityDir)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{TestCertFile, TestKeyFile, TestWWDRFile} {
		if err := os.WriteFile(filepath.Join(folder, name), []byte("garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Files someone broke are reported, not silently overwritten.
	if _, _, err := GenerateTestIdentity(dir, time.Now()); !errors.Is(err, ErrBadCertificate) {
		t.Fatalf("error = %v; want ErrBadCertificate", err)
	}
}
