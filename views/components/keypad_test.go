package components

import "testing"

func TestKeySpokenName(t *testing.T) {
	for _, tc := range []struct {
		label, id, rest string
	}{
		{"@", "kiosk.key_at", ""},
		{".", "kiosk.key_dot", ""},
		{"-", "kiosk.key_hyphen", ""},
		{"_", "kiosk.key_underscore", ""},
		{".com", "kiosk.key_dot", "com"},
		{"a", "", ""},
		{"7", "", ""},
		{"", "", ""},
	} {
		id, rest := Key{Value: "email:" + tc.label, Label: tc.label}.SpokenName()
		if id != tc.id || rest != tc.rest {
			t.Errorf("%q: named %q %q, want %q %q", tc.label, id, rest, tc.id, tc.rest)
		}
	}
}
