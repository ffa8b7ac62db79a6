package walletlink

import (
	"errors"
	"strings"
	"testing"
)

func signer(t *testing.T, key string) *Signer {
	t.Helper()
	s, err := NewSigner([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTokenReadsBackAsItsBooking(t *testing.T) {
	s := signer(t, "a key of at least sixteen bytes")
	for _, tc := range []struct {
		cinema string
		number int64
	}{
		{"0001", 100002},
		{"0002", 1},
		{"berlin_mitte-2", 9223372036854775807},
	} {
		tok, err := s.Token(tc.cinema, tc.number)
		if err != nil {
			t.Fatalf("Token(%q, %d): %v", tc.cinema, tc.number, err)
		}
		again, _ := s.Token(tc.cinema, tc.number)
		if again != tok {
			t.Errorf("Token(%q, %d) changes: %q then %q", tc.cinema, tc.number, tok, again)
		}
		c, n, err := s.Parse(tok)
		if err != nil || c != tc.cinema || n != tc.number {
			t.Errorf("Parse(%q) = %q %d %v, want %q %d", tok, c, n, err, tc.cinema, tc.number)
		}
	}
}

func TestTokensOfOtherBookingsDiffer(t *testing.T) {
	s := signer(t, "a key of at least sixteen bytes")
	a, _ := s.Token("0001", 100002)
	b, _ := s.Token("0001", 100004)
	c, _ := s.Token("0002", 100002)
	sig := func(tok string) string { return tok[strings.LastIndexByte(tok, '.')+1:] }
	if sig(a) == sig(b) || sig(a) == sig(c) {
		t.Fatalf("signatures repeat across bookings: %q %q %q", a, b, c)
	}
}

func TestParseRefusesWhatItDidNotMake(t *testing.T) {
	s := signer(t, "a key of at least sixteen bytes")
	good, _ := s.Token("0001", 100002)
	other, _ := signer(t, "another key, also long enough").Token("0001", 100002)
	sig := good[strings.LastIndexByte(good, '.')+1:]
	for name, tok := range map[string]string{
		"empty":              "",
		"no signature":       "0001.100002",
		"another key":        other,
		"another booking":    "0001.100004." + sig,
		"another cinema":     "0002.100002." + sig,
		"leading zero":       "0001.0100002." + sig,
		"changed signature":  good[:len(good)-1] + "a",
		"upper-case":         strings.ToUpper(good),
		"extra field":        "0001.100002.x." + sig,
		"long":               strings.Repeat("9", 500),
		"signature only":     "." + sig,
		"negative number":    "0001.-5." + sig,
		"path in the cinema": "../x.100002." + sig,
	} {
		if c, n, err := s.Parse(tok); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s: Parse(%q) = %q %d %v, want ErrBadToken", name, tok, c, n, err)
		}
	}
}

func TestTokenRefusesWhatItCannotCarry(t *testing.T) {
	s := signer(t, "a key of at least sixteen bytes")
	for _, tc := range []struct {
		cinema string
		number int64
	}{
		{"", 1}, {"00.01", 1}, {"0001", 0}, {"0001", -3}, {strings.Repeat("a", 33), 1}, {"caf\u00e9", 1},
	} {
		if tok, err := s.Token(tc.cinema, tc.number); !errors.Is(err, ErrBadToken) {
			t.Errorf("Token(%q, %d) = %q %v, want ErrBadToken", tc.cinema, tc.number, tok, err)
		}
	}
	if _, err := NewSigner([]byte("short")); err == nil {
		t.Error("a 5-byte key was taken")
	}
}

func FuzzParse(f *testing.F) {
	s, _ := NewSigner([]byte("a key of at least sixteen bytes"))
	good, _ := s.Token("0001", 100002)
	f.Add(good)
	f.Add("0001.100002.aaaa")
	f.Fuzz(func(t *testing.T, tok string) {
		c, n, err := s.Parse(tok)
		if err != nil {
			return
		}
		// Whatever parses is a token this signer makes for that very booking.
		if again, _ := s.Token(c, n); again != tok {
			t.Fatalf("Parse(%q) = %q %d, but that booking's token is %q", tok, c, n, again)
		}
	})
}
