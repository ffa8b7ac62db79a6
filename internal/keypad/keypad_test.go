package keypad_test

import (
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/keypad"
)

// TestApplyKey: each key types into its own field; Back and Clear edit; characters a field does
// not take, keys of no field and keys past the field's length change nothing.
func TestApplyKey(t *testing.T) {
	long := strings.Repeat("9", keypad.MaxNumberLen)
	for _, tc := range []struct {
		name, number, email, key string
		wantNumber, wantEmail    string
	}{
		{"digit", "10", "a@b", "number:7", "107", "a@b"},
		{"letter", "10", "a@b", "email:c", "10", "a@bc"},
		{"at sign", "", "paid2", "email:@", "", "paid2@"},
		{"symbols", "", "x", "email:.", "", "x."},
		{"underscore", "", "x", "email:_", "", "x_"},
		{"hyphen", "", "x", "email:-", "", "x-"},
		{"back", "100", "ab", "number:back", "10", "ab"},
		{"back of empty", "", "", "email:back", "", ""},
		{"clear", "100", "ab", "email:clear", "100", ""},
		{"letter in the number", "1", "", "number:a", "1", ""},
		{"two characters at once", "1", "", "number:12", "1", ""},
		{"a character e-mail keys do not type", "", "a", "email:<", "", "a"},
		{"no field", "1", "a", "7", "1", "a"},
		{"unknown field", "1", "a", "cinema:7", "1", "a"},
		{"full number", long, "", "number:1", long, ""},
		{"ending .de", "", "anna@kino", "email:.de", "", "anna@kino.de"},
		{"ending .com", "", "bo@mail", "email:.com", "", "bo@mail.com"},
		{"an ending the keyboard has not", "", "x@y", "email:.org", "", "x@y"},
		{"an ending in the number", "1", "", "number:.de", "1", ""},
		{"an ending past the length", "", strings.Repeat("a", keypad.MaxEmailLen-2), "email:.com", "", strings.Repeat("a", keypad.MaxEmailLen-2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, e := keypad.ApplyKey(tc.number, tc.email, tc.key)
			if n != tc.wantNumber || e != tc.wantEmail {
				t.Errorf("applyKey(%q, %q, %q) = %q, %q; want %q, %q", tc.number, tc.email, tc.key, n, e, tc.wantNumber, tc.wantEmail)
			}
		})
	}
}
