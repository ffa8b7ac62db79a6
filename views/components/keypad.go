package components

import "strings"

// Key is one key of an on-screen keypad of a kiosk form: a submit button whose value
// ("number:7", "email:@", "email:.de", "email:back") the server adds to what was typed so far,
// so the keypads work by touch without JavaScript; app.js types in place when it runs.
type Key struct {
	Value string // field ":" character, or field ":back" / field ":clear"
	Label string // what the key shows (a character; the two edit keys are named by the catalog)
}

// symbolNames are the catalog's names of the keys that show a symbol, not a letter or digit:
// a voice may skip a bare "@" or "." (the kiosk's audio guide, a screen reader), so the key
// is named in words, and its character is read back by that name.
var symbolNames = map[string]string{"@": "kiosk.key_at", ".": "kiosk.key_dot", "-": "kiosk.key_hyphen", "_": "kiosk.key_underscore"}

// SpokenName is the catalog key naming the key in words ("" when its label says it), and the
// symbol it names (".de" is "dot" then "de").
func (k Key) SpokenName() (id, rest string) {
	if k.Label == "" {
		return "", ""
	}
	if id, ok := symbolNames[k.Label]; ok {
		return id, ""
	}
	if id, ok := symbolNames[k.Label[:1]]; ok { // the keys' labels are ASCII
		return id, k.Label[1:]
	}
	return "", ""
}

// Edit is "back" or "clear" for the edit keys, "" for a character key.
func (k Key) Edit() string {
	switch _, what, _ := strings.Cut(k.Value, ":"); what {
	case "back", "clear":
		return what
	}
	return ""
}

// keys are the keys of field, one per character of chars.
func keys(field, chars string) []Key {
	var out []Key
	for _, r := range chars {
		out = append(out, Key{Value: field + ":" + string(r), Label: string(r)})
	}
	return out
}

// NumberPad is the booking number's keypad, as a telephone's: 1 2 3 / 4 5 6 / 7 8 9 / clear 0 back.
func NumberPad() [][]Key {
	return [][]Key{keys("number", "123"), keys("number", "456"), keys("number", "789"),
		{{Value: "number:clear"}, {Value: "number:0", Label: "0"}, {Value: "number:back"}}}
}

// EmailKeyboard is the compact letter keyboard of the e-mail address: digits, three rows of
// letters (QWERTY), and the characters and endings addresses need most.
func EmailKeyboard() [][]Key {
	last := append(keys("email", "@.-_"), Key{Value: "email:.de", Label: ".de"}, Key{Value: "email:.com", Label: ".com"},
		Key{Value: "email:back"}, Key{Value: "email:clear"})
	return [][]Key{keys("email", "1234567890"), keys("email", "qwertyuiop"), keys("email", "asdfghjkl"),
		keys("email", "zxcvbnm"), last}
}
