package applepass

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Identifiers and file names of the test identity. The pass type id sits under .invalid so it
// can never collide with a real one registered with Apple.
const (
	TestPassTypeID  = "pass.invalid.cinemabff.test"
	TestTeamID      = "TEST000000"
	TestIdentityDir = "apple-pass-test-identity"
	TestCertFile    = "pass-cert.pem"
	TestKeyFile     = "pass-key.pem"
	TestWWDRFile    = "wwdr-cert.pem"
)

// testValidity is long enough that a development machine rarely sees a renewal, short enough
// that the renewal path is real.
const testValidity = 5 * 365 * 24 * time.Hour

// GenerateTestIdentity returns the test signing identity kept in dir/TestIdentityDir, making it
// on first use: a self-signed "TEST WWDR" CA and a pass certificate it issued, both labelled
// as test in their subjects. It exists so a fresh machine on embedded defaults can show the
// whole wallet feature; Wallet on a phone rejects these passes. An identity that has expired
// at now is replaced. created reports whether new files were written.
func GenerateTestIdentity(dir string, now time.Time) (id Identity, created bool, err error) {
	folder := filepath.Join(dir, TestIdentityDir)
	load := func() (Identity, error) {
		return LoadIdentityFiles(filepath.Join(folder, TestCertFile), filepath.Join(folder, TestKeyFile),
			filepath.Join(folder, TestWWDRFile), TestPassTypeID, TestTeamID, now)
	}
	id, err = load()
	switch {
	case err == nil:
		return id, false, nil
	case errors.Is(err, ErrExpired):
		// Keep the old files beside the new ones rather than deleting anything in the data folder.
		aside := folder + ".expired-" + now.UTC().Format("20060102T150405Z")
		if err := os.Rename(folder, aside); err != nil {
			return Identity{}, false, fmt.Errorf("move expired test identity aside: %w", err)
		}
	case !errors.Is(err, ErrMissingCertificate) && !errors.Is(err, ErrMissingKey) && !errors.Is(err, ErrMissingWWDR):
		return Identity{}, false, fmt.Errorf("test identity in %s: %w", folder, err)
	}

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Identity{}, false, fmt.Errorf("create data folder: %w", err)
	}
	// Write into a temporary folder and rename it into place, so a crash never leaves half an
	// identity and two processes starting at once end up sharing the one that landed first.
	tmp, err := os.MkdirTemp(dir, TestIdentityDir+".tmp-")
	if err != nil {
		return Identity{}, false, fmt.Errorf("create test identity folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := writeTestIdentity(tmp, now); err != nil {
		return Identity{}, false, err
	}
	if err := os.Rename(tmp, folder); err != nil {
		if id, lerr := load(); lerr == nil {
			return id, false, nil // another process won the race
		}
		return Identity{}, false, fmt.Errorf("put test identity in place: %w", err)
	}
	id, err = load()
	if err != nil {
		return Identity{}, false, fmt.Errorf("read back new test identity: %w", err)
	}
	return id, true, nil
}

func writeTestIdentity(folder string, now time.Time) error {
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate test WWDR key: %w", err)
	}
	passKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate test pass key: %w", err)
	}
	notBefore := now.Add(-time.Hour) // tolerate a clock a little behind
	ca := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject: pkix.Name{
			CommonName:   testWWDRPrefix + " - cinemabff test CA, not Apple",
			Organization: []string{"cinemabff TEST identity - not trusted by Apple Wallet"},
		},
		NotBefore:             notBefore,
		NotAfter:              now.Add(testValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("create test WWDR certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return fmt.Errorf("parse test WWDR certificate: %w", err)
	}
	passTmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		// Shaped like Apple's (UID = pass type id, OU = team id) so the same checks run on it.
		Subject: pkix.Name{
			CommonName:         "TEST Pass Type ID: " + TestPassTypeID,
			OrganizationalUnit: []string{TestTeamID},
			Organization:       []string{"cinemabff TEST identity - not for production"},
			ExtraNames:         []pkix.AttributeTypeAndValue{{Type: oidUserID, Value: TestPassTypeID}},
		},
		NotBefore:   notBefore,
		NotAfter:    now.Add(testValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	}
	passDER, err := x509.CreateCertificate(rand.Reader, passTmpl, caCert, &passKey.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("create test pass certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(passKey)
	if err != nil {
		return fmt.Errorf("encode test pass key: %w", err)
	}
	files := []struct {
		name, typ string
		der       []byte
		mode      os.FileMode
	}{
		{TestKeyFile, "PRIVATE KEY", keyDER, 0o600},
		{TestCertFile, "CERTIFICATE", passDER, 0o644},
		{TestWWDRFile, "CERTIFICATE", caDER, 0o644},
	}
	for _, f := range files {
		data := pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der})
		if err := os.WriteFile(filepath.Join(folder, f.name), data, f.mode); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	// The CA key is not kept: nothing else should ever be signed with it.
	return nil
}

func randomSerial() *big.Int {
	// 128 random bits; rand.Int only fails if the system's random source does, which
	// crypto/rand treats as fatal anyway.
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n.Add(n, big.NewInt(1))
}
