package tickets_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/tickets"
)

func newSigner(t testing.TB, key string) *tickets.Signer {
	t.Helper()
	s, err := tickets.NewSigner([]byte(key))
	if err != nil {
		t.Fatalf("NewSigner: %v", err)
	}
	return s
}

const testKey = "0123456789abcdef-test-key"

var typical = tickets.Code{CinemaID: "1", BookingID: "WBK100004", BookingNumber: 100004, Line: 2, Seat: "F-7"}

// payloadShape is the documented format; sig is 16 upper-case base32 characters.
var payloadShape = regexp.MustCompile(`^TKT1 booking=[A-Za-z0-9_-]+ line=[0-9]+( seat=[A-Za-z0-9_-]+)? n=[0-9]+ c=[A-Za-z0-9_-]+ sig=[A-Z2-7]{16}$`)

func TestNewSignerRejectsShortKey(t *testing.T) {
	for _, n := range []int{0, 1, 15} {
		if _, err := tickets.NewSigner(make([]byte, n)); err == nil {
			t.Errorf("NewSigner(%d-byte key) succeeded, want an error", n)
		}
	}
	if _, err := tickets.NewSigner(make([]byte, 16)); err != nil {
		t.Errorf("NewSigner(16-byte key): %v", err)
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	s := newSigner(t, testKey)
	tests := []struct {
		name string
		code tickets.Code
	}{
		{"typical", typical},
		{"unallocated", tickets.Code{CinemaID: "1", BookingID: "WBK100004", BookingNumber: 100004, Line: 1}},
		{"double-letter row", tickets.Code{CinemaID: "0042", BookingID: "WBK9", BookingNumber: 9, Line: 12, Seat: "AA-12"}},
		{"underscores and dashes", tickets.Code{CinemaID: "odeon_west-2", BookingID: "bk_2024-07-x", BookingNumber: 1, Line: 3, Seat: "A-1"}},
		{"zero values", tickets.Code{CinemaID: "c", BookingID: "b", BookingNumber: 0, Line: 0}},
		{"longest values", tickets.Code{
			CinemaID: strings.Repeat("C", 32), BookingID: strings.Repeat("B", 32),
			BookingNumber: 1<<63 - 1, Line: 99999, Seat: strings.Repeat("S", 16),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Payload(tt.code)
			if err != nil {
				t.Fatalf("Payload: %v", err)
			}
			if !payloadShape.MatchString(p) {
				t.Errorf("payload %q does not have the documented shape", p)
			}
			for _, want := range []string{" booking=" + tt.code.BookingID + " ", " line=" + strconv.Itoa(tt.code.Line) + " "} {
				if !strings.Contains(p, want) {
					t.Errorf("payload %q does not contain %q", p, want)
				}
			}
			if got := strings.Contains(p, " seat="); got != (tt.code.Seat != "") {
				t.Errorf("payload %q: has seat field = %v, want %v", p, got, tt.code.Seat != "")
			}
			for _, in := range []string{p, "  " + p + "\r\n", "\t" + p + "\n"} {
				got, err := s.Parse(in)
				if err != nil {
					t.Fatalf("Parse(%q): %v", in, err)
				}
				if got != tt.code {
					t.Errorf("Parse(%q) = %+v, want %+v", in, got, tt.code)
				}
			}
		})
	}
}

func TestPayloadIsShort(t *testing.T) {
	p, err := newSigner(t, testKey).Payload(typical)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) > 100 {
		t.Errorf("typical payload is %d characters, want at most 100: %q", len(p), p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x21 && p[i] != ' ' || p[i] > 0x7e {
			t.Fatalf("payload %q has byte %#x at %d, want printable ASCII", p, p[i], i)
		}
	}
}

func TestSeatSwapChangesPayload(t *testing.T) {
	s := newSigner(t, testKey)
	before := typical
	after := typical
	after.Seat = "F-8"
	unallocated := typical
	unallocated.Seat = ""
	seen := map[string]string{}
	for name, c := range map[string]tickets.Code{"before": before, "after": after, "unallocated": unallocated} {
		p, err := s.Payload(c)
		if err != nil {
			t.Fatal(err)
		}
		if other, dup := seen[p]; dup {
			t.Errorf("%s and %s have the same payload %q", name, other, p)
		}
		seen[p] = name
	}
}

func TestPayloadRejectsBadValues(t *testing.T) {
	s := newSigner(t, testKey)
	with := func(f func(*tickets.Code)) tickets.Code {
		c := typical
		f(&c)
		return c
	}
	tests := []struct {
		name string
		code tickets.Code
	}{
		{"space in booking id", with(func(c *tickets.Code) { c.BookingID = "WBK 1" })},
		{"equals in booking id", with(func(c *tickets.Code) { c.BookingID = "WBK=1" })},
		{"empty booking id", with(func(c *tickets.Code) { c.BookingID = "" })},
		{"space in seat", with(func(c *tickets.Code) { c.Seat = "F 7" })},
		{"equals in seat", with(func(c *tickets.Code) { c.Seat = "F=7" })},
		{"field smuggled in seat", with(func(c *tickets.Code) { c.Seat = "F-7 line=3" })},
		{"newline in seat", with(func(c *tickets.Code) { c.Seat = "F-7\n" })},
		{"non-ASCII seat", with(func(c *tickets.Code) { c.Seat = "F-7é" })},
		{"seat too long", with(func(c *tickets.Code) { c.Seat = strings.Repeat("S", 17) })},
		{"empty cinema id", with(func(c *tickets.Code) { c.CinemaID = "" })},
		{"space in cinema id", with(func(c *tickets.Code) { c.CinemaID = "1 2" })},
		{"booking id too long", with(func(c *tickets.Code) { c.BookingID = strings.Repeat("B", 33) })},
		{"negative line", with(func(c *tickets.Code) { c.Line = -1 })},
		{"line too large", with(func(c *tickets.Code) { c.Line = 100000 })},
		{"negative booking number", with(func(c *tickets.Code) { c.BookingNumber = -5 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Payload(tt.code)
			if !errors.Is(err, tickets.ErrBadCode) {
				t.Fatalf("Payload(%+v) = %q, %v; want an error wrapping ErrBadCode", tt.code, p, err)
			}
			if p != "" {
				t.Errorf("Payload returned %q with its error, want \"\"", p)
			}
		})
	}
}

func TestParseRejectsTampering(t *testing.T) {
	s := newSigner(t, testKey)
	good, err := s.Payload(typical)
	if err != nil {
		t.Fatal(err)
	}
	unallocated := typical
	unallocated.Seat = ""
	goodUnallocated, err := s.Payload(unallocated)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := newSigner(t, "another-key-of-16+bytes").Payload(typical)
	if err != nil {
		t.Fatal(err)
	}
	sig := good[strings.LastIndex(good, "sig=")+len("sig="):]

	tests := []struct {
		name    string
		payload string
		forged  bool // well formed, so the signature check must be what rejects it
	}{
		{"changed seat", strings.Replace(good, "seat=F-7", "seat=F-8", 1), true},
		{"changed line", strings.Replace(good, "line=2", "line=3", 1), true},
		{"changed booking", strings.Replace(good, "booking=WBK100004", "booking=WBK100005", 1), true},
		{"changed number", strings.Replace(good, "n=100004", "n=100005", 1), true},
		{"changed cinema", strings.Replace(good, "c=1", "c=2", 1), true},
		{"seat removed", strings.Replace(good, " seat=F-7", "", 1), true},
		{"seat added", strings.Replace(goodUnallocated, " n=", " seat=F-7 n=", 1), true},
		{"fields reordered", strings.Replace(good, "line=2 seat=F-7", "seat=F-7 line=2", 1), true},
		{"leading zero", strings.Replace(good, "line=2", "line=02", 1), true},
		{"signed with another key", otherKey, true},
		{"signature changed", good[:len(good)-1] + flip(good[len(good)-1]), true},
		{"signature truncated", good[:len(good)-2], false},
		{"signature lower case", strings.Replace(good, sig, strings.ToLower(sig), 1), false},
		{"signature missing", good[:strings.LastIndex(good, " sig=")], false},
		{"signature extended", good + "A", false},
		{"trailing field", good + " x=1", false},
		{"other version", "TKT2" + good[4:], false},
		{"empty", "", false},
		{"just a booking id", "WBK100004", false},
		{"very long", good + strings.Repeat(" ", 10) + strings.Repeat("A", 300), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.payload == good {
				t.Fatalf("test case did not change the payload")
			}
			c, err := s.Parse(tt.payload)
			if !errors.Is(err, tickets.ErrBadCode) {
				t.Fatalf("Parse(%q) = %+v, %v; want an error wrapping ErrBadCode", tt.payload, c, err)
			}
			if got := errors.Is(err, tickets.ErrForged); got != tt.forged {
				t.Errorf("Parse(%q): errors.Is(err, ErrForged) = %v, want %v (err: %v)", tt.payload, got, tt.forged, err)
			}
			if c != (tickets.Code{}) {
				t.Errorf("Parse returned %+v with its error, want the zero Code", c)
			}
		})
	}
}

// flip returns a different base32 character.
func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}
