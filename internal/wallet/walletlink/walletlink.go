// Package walletlink makes the tokens that the "Add to Wallet" links of a confirmation e-mail
// carry. A token gives one booking's passes and nothing else, on whatever phone reads the mail,
// without the visit that made the booking. It is the booking's cinema and number with an
// HMAC-SHA256 over them, so it can be neither guessed nor moved to another booking; the same
// booking always gets the same token, so a link in an older e-mail keeps working, and what it
// serves is the booking as it is now (a removed ticket's pass is not among them). How long a
// link works (until a while after the show, not after a cancellation) is decided where it is
// served, from the booking as it is then (internal/wallet, LinkValidFor), so a token carries no
// time of its own.
package walletlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadToken is returned for a token this signer did not make: malformed, changed, or made
// with another key.
var ErrBadToken = errors.New("walletlink: not a valid wallet link")

const (
	minKeyLength = 16
	sigBytes     = 16 // 128 bits: no guessing within any number of tries a site would answer
	maxCinemaID  = 32
	sigContext   = "cinemabff wallet link\n"
)

// sigEncoding is lower-case base32 without padding: letters and digits only, safe in a path
// and unchanged by mail clients that rewrap or re-case nothing.
var sigEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Signer makes and checks tokens with one key. It is safe for concurrent use.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer for key (at least 16 bytes, used for nothing else). The key is
// copied.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < minKeyLength {
		return nil, fmt.Errorf("walletlink: key is %d bytes, want at least %d", len(key), minKeyLength)
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// Token returns the token of a booking, e.g. "0001.100002.m5xw6z3b…". The cinema id is limited
// to ASCII letters, digits, '-' and '_' (at most 32), and the number must be positive, so that
// a token reads back as exactly the booking it was made for.
func (s *Signer) Token(cinemaID string, number int64) (string, error) {
	if !validCinemaID(cinemaID) || number <= 0 {
		return "", fmt.Errorf("%w: cannot carry cinema %q, booking %d", ErrBadToken, cinemaID, number)
	}
	body := cinemaID + "." + strconv.FormatInt(number, 10)
	return body + "." + s.sign(body), nil
}

// Parse returns the booking a token was made for, or an error wrapping ErrBadToken.
func (s *Signer) Parse(token string) (cinemaID string, number int64, err error) {
	if len(token) > maxCinemaID+1+19+1+sigEncoding.EncodedLen(sigBytes) {
		return "", 0, fmt.Errorf("%w: too long", ErrBadToken)
	}
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return "", 0, fmt.Errorf("%w: no signature", ErrBadToken)
	}
	body, sig := token[:i], token[i+1:]
	// The signature is checked before the fields are read, so any change to a token is
	// reported as a forgery, never as a booking that does not exist.
	if !hmac.Equal([]byte(sig), []byte(s.sign(body))) {
		return "", 0, fmt.Errorf("%w: signature does not match", ErrBadToken)
	}
	cinemaID, num, ok := strings.Cut(body, ".")
	if !ok || !validCinemaID(cinemaID) {
		return "", 0, fmt.Errorf("%w: no cinema", ErrBadToken)
	}
	number, err = strconv.ParseInt(num, 10, 64)
	if err != nil || number <= 0 || strconv.FormatInt(number, 10) != num {
		return "", 0, fmt.Errorf("%w: no booking number", ErrBadToken)
	}
	return cinemaID, number, nil
}

func (s *Signer) sign(body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(sigContext))
	m.Write([]byte(body))
	return sigEncoding.EncodeToString(m.Sum(nil)[:sigBytes])
}

func validCinemaID(id string) bool {
	if id == "" || len(id) > maxCinemaID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
