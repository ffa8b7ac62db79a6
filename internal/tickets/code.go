// Package tickets makes the signed codes printed on tickets and renders them
// as QR codes (inline SVG for pages and e-mail, PNG for print and download).
//
// A code proves that the BFF issued it for that booking, line and seat. It
// does not prove the ticket is still current: after a seat swap, a removal or
// a move to another show the old code still verifies, so whoever honours a
// code (the kiosk printing tickets, a door scanner) checks it against the
// booking as it is now with Code.CurrentIn.
//
// Collections keeps our own record of each time a booking's tickets were printed.
package tickets

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadCode is returned, wrapped with detail, for anything that is not a
// valid ticket code: a malformed payload, a value that cannot be put in one,
// or a signature that does not match (see ErrForged).
var ErrBadCode = errors.New("tickets: not a valid ticket code")

// ErrForged is returned, wrapped, when a payload is well formed but its
// signature does not match its fields: it was altered, forged or signed with
// another key. It wraps ErrBadCode, so errors.Is(err, ErrBadCode) holds too.
var ErrForged = fmt.Errorf("%w: signature does not match", ErrBadCode)

// Code is what a ticket's QR code says.
type Code struct {
	// CinemaID is the cinema the booking belongs to.
	CinemaID string
	// BookingID is the booking identifier (e.g. "WBK100004").
	BookingID string
	// BookingNumber is the booking's number at the cinema.
	BookingNumber int64
	// Line is the ticket's line (sequence number) in the booking.
	Line int
	// Seat is "F-7" (row-seat) or "" for unallocated seating.
	Seat string
}

const (
	// version is the first word of every payload; a new format gets a new one.
	version = "TKT1"
	// sigBytes of the HMAC are kept: 80 bits, 16 base32 characters.
	sigBytes = 10
	sigLen   = 16
	// Limits keep payloads short enough for a small, easily scanned QR code.
	maxIDLen     = 32
	maxSeatLen   = 16
	maxLine      = 99999
	maxPayload   = 256
	minKeyLength = 16
	// sigContext separates these signatures from any other use of the key.
	sigContext = "cinemabff ticket code\n"
)

// sigEncoding is upper-case RFC 4648 base32 without padding: letters and
// digits only, so scanners that type the code as keystrokes cannot garble it.
var sigEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Signer signs and checks codes with an HMAC-SHA256 key. It is safe for
// concurrent use.
type Signer struct {
	key []byte
}

// NewSigner returns a Signer for key, which must be at least 16 bytes long
// and should be used for nothing else. The key is copied.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < minKeyLength {
		return nil, fmt.Errorf("tickets: signing key is %d bytes, want at least %d", len(key), minKeyLength)
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// Payload returns the text to put in c's QR code, for example
//
//	TKT1 booking=WBK100004 line=2 seat=F-7 n=100004 c=1 sig=JBSWY3DPEHPK3PXP
//
// Fields are separated by single spaces and always come in this order;
// seat= is left out for unallocated seating. sig is the first 80 bits of an
// HMAC-SHA256 over everything before " sig=", in base32.
//
// Payload returns an error wrapping ErrBadCode if a value cannot be carried
// unambiguously: ids and seats are limited to ASCII letters, digits, '-' and
// '_' (ids up to 32 characters, seats up to 16), ids must not be empty, and
// numbers must not be negative (Line at most 99999).
func (s *Signer) Payload(c Code) (string, error) {
	if err := c.validate(); err != nil {
		return "", err
	}
	body := c.body()
	return body + " sig=" + s.sign(body), nil
}

// Parse reads a payload made by Payload and checks its signature. Leading and
// trailing whitespace (such as the Enter a barcode scanner types) is ignored.
// Anything else that differs from what Payload would produce is rejected
// with an error wrapping ErrBadCode; a wrong signature wraps ErrForged.
func (s *Signer) Parse(payload string) (Code, error) {
	p := strings.TrimSpace(payload)
	if len(p) > maxPayload {
		return Code{}, fmt.Errorf("%w: %d characters is too long", ErrBadCode, len(p))
	}
	if !strings.HasPrefix(p, version+" ") {
		return Code{}, fmt.Errorf("%w: does not start with %q", ErrBadCode, version)
	}
	i := strings.LastIndex(p, " sig=")
	if i < 0 {
		return Code{}, fmt.Errorf("%w: no signature", ErrBadCode)
	}
	body, sig := p[:i], p[i+len(" sig="):]
	if len(sig) != sigLen || !isBase32(sig) {
		return Code{}, fmt.Errorf("%w: malformed signature", ErrBadCode)
	}
	// Check the signature before reading the fields, so that any change to a
	// signed payload is reported as such rather than as a parse error.
	if !hmac.Equal([]byte(sig), []byte(s.sign(body))) {
		return Code{}, ErrForged
	}
	c, err := parseBody(body)
	if err != nil {
		return Code{}, err
	}
	return c, nil
}

// sign returns the signature of body as it appears after "sig=".
func (s *Signer) sign(body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(sigContext))
	m.Write([]byte(body))
	return sigEncoding.EncodeToString(m.Sum(nil)[:sigBytes])
}

// body returns the signed part of c's payload. It is the only way a payload
// body is written, so Parse can demand exactly this form back.
func (c Code) body() string {
	var b strings.Builder
	b.Grow(64 + len(c.BookingID) + len(c.Seat) + len(c.CinemaID))
	b.WriteString(version)
	b.WriteString(" booking=")
	b.WriteString(c.BookingID)
	b.WriteString(" line=")
	b.WriteString(strconv.Itoa(c.Line))
	if c.Seat != "" {
		b.WriteString(" seat=")
		b.WriteString(c.Seat)
	}
	b.WriteString(" n=")
	b.WriteString(strconv.FormatInt(c.BookingNumber, 10))
	b.WriteString(" c=")
	b.WriteString(c.CinemaID)
	return b.String()
}

// validate reports whether c can be written as an unambiguous payload.
func (c Code) validate() error {
	switch {
	case c.BookingID == "":
		return fmt.Errorf("%w: empty booking id", ErrBadCode)
	case !isToken(c.BookingID, maxIDLen):
		return fmt.Errorf("%w: booking id %q has characters other than letters, digits, '-' and '_' or is too long", ErrBadCode, c.BookingID)
	case c.CinemaID == "":
		return fmt.Errorf("%w: empty cinema id", ErrBadCode)
	case !isToken(c.CinemaID, maxIDLen):
		return fmt.Errorf("%w: cinema id %q has characters other than letters, digits, '-' and '_' or is too long", ErrBadCode, c.CinemaID)
	case c.Seat != "" && !isToken(c.Seat, maxSeatLen):
		return fmt.Errorf("%w: seat %q has characters other than letters, digits, '-' and '_' or is too long", ErrBadCode, c.Seat)
	case c.Line < 0 || c.Line > maxLine:
		return fmt.Errorf("%w: line %d out of range 0-%d", ErrBadCode, c.Line, maxLine)
	case c.BookingNumber < 0:
		return fmt.Errorf("%w: negative booking number %d", ErrBadCode, c.BookingNumber)
	}
	return nil
}

// parseBody reads the fields of a payload body and insists that writing
// them back gives the same text, so every code has exactly one payload.
func parseBody(body string) (Code, error) {
	words := strings.Split(body, " ")
	var c Code
	seen := make(map[string]bool, len(words))
	for _, w := range words[1:] {
		key, val, ok := strings.Cut(w, "=")
		if !ok {
			return Code{}, fmt.Errorf("%w: field %q is not key=value", ErrBadCode, w)
		}
		if seen[key] {
			return Code{}, fmt.Errorf("%w: field %q repeated", ErrBadCode, key)
		}
		seen[key] = true
		var err error
		switch key {
		case "booking":
			c.BookingID = val
		case "line":
			c.Line, err = strconv.Atoi(val)
		case "seat":
			c.Seat = val
			if val == "" {
				err = errors.New("empty seat")
			}
		case "n":
			c.BookingNumber, err = strconv.ParseInt(val, 10, 64)
		case "c":
			c.CinemaID = val
		default:
			err = errors.New("unknown field")
		}
		if err != nil {
			return Code{}, fmt.Errorf("%w: field %q: %w", ErrBadCode, key, err)
		}
	}
	if err := c.validate(); err != nil {
		return Code{}, err
	}
	if c.body() != body {
		return Code{}, fmt.Errorf("%w: fields not in canonical form", ErrBadCode)
	}
	return c, nil
}

// isToken reports whether s is 1 to max ASCII letters, digits, '-' or '_'.
func isToken(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '-', b == '_':
		default:
			return false
		}
	}
	return true
}

// isBase32 reports whether s uses only the upper-case base32 alphabet.
func isBase32(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; !('A' <= b && b <= 'Z' || '2' <= b && b <= '7') {
			return false
		}
	}
	return true
}
