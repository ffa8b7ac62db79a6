package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
)

// TestWalletCertificateProblemsStopTheStartInWords: a missing, garbled or expired Apple pass
// certificate stops the start with a message that names the setting and the reason, never a
// panic; a certificate near its end starts with a warning.
func TestWalletCertificateProblemsStopTheStartInWords(t *testing.T) {
	now := time.Now()
	// A valid test identity to take files from; its files stand in for an operator's.
	dir := t.TempDir()
	if _, _, err := applepass.GenerateTestIdentity(dir, now); err != nil {
		t.Fatal(err)
	}
	idDir := filepath.Join(dir, applepass.TestIdentityDir)
	cert, key, wwdr := filepath.Join(idDir, applepass.TestCertFile), filepath.Join(idDir, applepass.TestKeyFile), filepath.Join(idDir, applepass.TestWWDRFile)
	garbled := filepath.Join(dir, "garbled.pem")
	if err := os.WriteFile(garbled, []byte("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		args []string
		at   time.Time
		want error
	}{
		"missing certificate file": {[]string{"-apple-pass-cert", filepath.Join(dir, "nope.pem"), "-apple-pass-key", key, "-apple-wwdr-cert", wwdr}, now, applepass.ErrMissingCertificate},
		"garbled certificate":      {[]string{"-apple-pass-cert", garbled, "-apple-pass-key", key, "-apple-wwdr-cert", wwdr}, now, applepass.ErrBadCertificate},
		"expired certificate":      {[]string{"-apple-pass-cert", cert, "-apple-pass-key", key, "-apple-wwdr-cert", wwdr}, now.AddDate(30, 0, 0), applepass.ErrExpired},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"-apple-pass-type-id", applepass.TestPassTypeID, "-apple-team-id", applepass.TestTeamID, "-data-dir", t.TempDir()}, tc.args...)
			cfg, err := parseConfig(args, func(string) string { return "" }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			_, err = newWalletDeps(context.Background(), cfg, testCookieKeys(t), tc.at, io.Discard, discardLogger())
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "-apple-pass-cert") {
				t.Fatalf("start: %v, want %v naming -apple-pass-cert", err, tc.want)
			}
		})
	}
	t.Run("expiring within 30 days", func(t *testing.T) {
		cfg, err := parseConfig([]string{"-apple-pass-type-id", applepass.TestPassTypeID, "-apple-team-id", applepass.TestTeamID,
			"-apple-pass-cert", cert, "-apple-pass-key", key, "-apple-wwdr-cert", wwdr}, func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		id, err := applepass.LoadIdentityFiles(cert, key, wwdr, applepass.TestPassTypeID, applepass.TestTeamID, now)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if _, err := newWalletDeps(context.Background(), cfg, testCookieKeys(t), id.NotAfter().Add(-10*24*time.Hour), &out, discardLogger()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "WARNING: the Apple pass certificate expires on") {
			t.Fatalf("no warning ten days before the certificate ends:\n%s", out.String())
		}
	})
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func testCookieKeys(t *testing.T) []keys.Pair {
	t.Helper()
	k, err := keys.Generate()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := keys.Parse(k)
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// TestWalletLocationsSetting: -wallet-cinema-locations is read from the flag or its variable,
// and a wrong one stops the start naming the setting.
func TestWalletLocationsSetting(t *testing.T) {
	env := map[string]string{"CINEMA_WALLET_CINEMA_LOCATIONS": "0001=52.5219:13.4132"}
	c, err := parseConfig(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || c.WalletLocations != "0001=52.5219:13.4132" {
		t.Fatalf("from the environment: %q %v", c.WalletLocations, err)
	}
	for _, bad := range []string{"0001=52.5219", "0001=95:13"} {
		_, err := parseConfig([]string{"-wallet-cinema-locations", bad}, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-wallet-cinema-locations") || !strings.Contains(err.Error(), "CINEMA_WALLET_CINEMA_LOCATIONS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
