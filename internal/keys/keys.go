// Package keys loads the secrets that sign and encrypt cookies: from configuration when set,
// otherwise generated once and kept in a file beside the SQLite database.
package keys

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Size is the length of one cookie secret: 32 bytes for the HMAC key and 32 for the AES key.
const Size = 64

// Pair is one generation of device-cookie keys.
type Pair struct {
	Hash  []byte // HMAC-SHA256 signing key
	Block []byte // AES-256 encryption key
}

// ErrBadKey is returned for a configured key that is not 64 bytes of hex.
var ErrBadKey = errors.New("cookie key must be 128 hex characters (64 bytes)")

// Parse reads a comma-separated list of hex secrets, newest first. The newest signs new cookies;
// the others are still accepted, which is how keys are rotated.
func Parse(list string) ([]Pair, error) {
	var pairs []Pair
	for i, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != Size {
			return nil, fmt.Errorf("key %d: %w", i+1, ErrBadKey)
		}
		pairs = append(pairs, Pair{Hash: b[:32], Block: b[32:]})
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("no keys: %w", ErrBadKey)
	}
	return pairs, nil
}

// LoadOrCreate returns the keys stored in path, creating the file with one fresh key when it
// does not exist. created reports whether a new key was generated.
func LoadOrCreate(path string) (pairs []Pair, created bool, err error) {
	b, err := os.ReadFile(path)
	if err == nil {
		pairs, err := Parse(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, false, fmt.Errorf("read keys from %s: %w", path, err)
		}
		return pairs, false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, false, fmt.Errorf("read keys: %w", err)
	}
	secret := make([]byte, Size)
	if _, err := rand.Read(secret); err != nil {
		return nil, false, fmt.Errorf("generate key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("create key folder: %w", err)
	}
	// O_EXCL: two processes starting at once must not overwrite each other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadOrCreate(path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("create key file: %w", err)
	}
	if _, err := f.WriteString(hex.EncodeToString(secret) + "\n"); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("write key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, false, fmt.Errorf("close key file: %w", err)
	}
	return []Pair{{Hash: secret[:32], Block: secret[32:]}}, true, nil
}

// Generate returns a fresh secret in the configuration format (for docs and tests).
func Generate() (string, error) {
	b := make([]byte, Size)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Derive returns a 32-byte key for one purpose (e.g. "ticket-codes"), made from p's signing
// key with HMAC-SHA256, so one configured secret serves several uses without reusing a key.
func Derive(p Pair, purpose string) []byte {
	m := hmac.New(sha256.New, p.Hash)
	m.Write([]byte("cinemabff derived key\x00" + purpose))
	return m.Sum(nil)
}
