// Package keypad types the keys of the on-screen keypads of the kiosk's forms into the fields
// they edit.
package keypad

import (
	"strings"
	"unicode/utf8"
)

// The on-screen keypads of the kiosk's forms (views/components: NumberPad, EmailKeyboard) are
// submit buttons: each sends the form with what was typed so far and its own value in "key",
// and the page comes back with the key applied. So they work by touch without JavaScript.

// Longest values the keypads type (the form's maxlength).
const (
	MaxNumberLen = 12
	MaxEmailLen  = 254
)

// ApplyKey types key ("number:7", "email:@", "email:back", "number:clear") into the booking
// number or the e-mail address and returns both. A key of no field, a character the field does
// not take (a letter in the number) or one past the field's length changes nothing.
func ApplyKey(number, email, key string) (string, string) {
	field, what, ok := strings.Cut(key, ":")
	if !ok {
		return number, email
	}
	switch field {
	case "number":
		number = typeKey(number, what, MaxNumberLen, func(r rune) bool { return r >= '0' && r <= '9' })
	case "email":
		if emailEndings[what] {
			if utf8.RuneCountInString(email)+len(what) <= MaxEmailLen {
				email += what
			}
			break
		}
		email = typeKey(email, what, MaxEmailLen, func(r rune) bool {
			return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("@.-_", r)
		})
	}
	return number, email
}

// emailEndings are the keys that type a whole ending of an address at once.
var emailEndings = map[string]bool{".de": true, ".com": true}

// typeKey applies one key to s: "back" deletes the last character, "clear" all of them, and a
// single character the field takes is added when s has room for it.
func typeKey(s, what string, max int, takes func(rune) bool) string {
	switch what {
	case "back":
		_, n := utf8.DecodeLastRuneInString(s)
		return s[:len(s)-n]
	case "clear":
		return ""
	}
	r, n := utf8.DecodeRuneInString(what)
	if n == 0 || n != len(what) || !takes(r) || utf8.RuneCountInString(s) >= max {
		return s
	}
	return s + what
}
