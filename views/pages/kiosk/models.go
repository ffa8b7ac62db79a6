// Package kiosk holds the lobby kiosk's own screens: the start screen, collecting tickets, and
// the idle warning for browsers without JavaScript.
package kiosk

import (
	"strings"

	"github.com/cinemabff/cinemabff/views/components"
)

// StartView is the kiosk's start screen: three large choices, nothing that leaves the kiosk,
// and the languages to choose from.
type StartView struct {
	BuyURL     string
	CollectURL string
	ChangeURL  string
	Notice     *components.Notice // e.g. "The screen started over"
	Languages  []LangChoice
}

// AttractView is the kiosk's screen while no visit runs: the cinema's name and "Touch to
// start", one full-screen button that begins a visit.
type AttractView struct {
	SiteName  string
	BeginURL  string
	CSRFToken string
}

// LangChoice is one language on the start screen: a plain link that switches this visit to it.
type LangChoice struct {
	Lang    string // "de"
	Name    string // in its own language: "Deutsch"
	URL     string // "/?lang=de"
	Current bool
}

// Option is one choice of a select.
type Option struct {
	Value string
	Label string
}

// CollectView is the collect-tickets form: the QR code held up to the scanner, or the booking
// number and e-mail address.
type CollectView struct {
	ActionURL string
	CSRFToken string
	Cinemas   []Option
	CinemaID  string
	Number    string
	Email     string
	Staff     bool   // staff at the box office: the booking number is enough
	Keypad    bool   // a kiosk: on-screen keypads for the number and the e-mail address
	ScanError string // the scanned code could not be used
	Error     string // the number and e-mail did not find a booking
}

// AgainView asks before printing tickets that were printed before.
type AgainView struct {
	Number     string
	Question   string // when and where they were printed, and "Print them again?"
	ConfirmURL string
	CancelURL  string // ends the visit (start over)
	CSRFToken  string
}

// CollectedView is the print view of the collected tickets.
type CollectedView struct {
	Number    string
	Tickets   components.TicketsView
	PrintKey  string // data-autoprint: prints by itself once per collection
	Again     bool   // printed before: this is a reprint
	DoneURL   string // ends the visit (start over)
	CSRFToken string
}

// IdleView is the "Still there?" page a kiosk without JavaScript is sent to after the idle time:
// Continue goes back, and after Seconds the page itself goes to ExpiredURL, which ends the visit.
type IdleView struct {
	ContinueURL string
	ExpiredURL  string
	Seconds     int
	ExpiresISO  string
	NowISO      string
	ResetURL    string // "Start over now"
	CSRFToken   string
}

// Key is one key of an on-screen keypad of the collect form: a submit button whose value
// ("number:7", "email:@", "email:back") the server adds to what was typed so far, so the keypads
// work by touch without JavaScript; app.js types in place when it runs.
type Key struct {
	Value string // field ":" character, or field ":back" / field ":clear"
	Label string // what the key shows (a character; the two edit keys are named by the catalog)
}

// Field is the form field a key types into ("number", "email").
func (k Key) Field() string {
	f, _, _ := strings.Cut(k.Value, ":")
	return f
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
// letters (QWERTY), and the characters addresses need most.
func EmailKeyboard() [][]Key {
	last := append(keys("email", "@.-_"), Key{Value: "email:back"}, Key{Value: "email:clear"})
	return [][]Key{keys("email", "1234567890"), keys("email", "qwertyuiop"), keys("email", "asdfghjkl"),
		keys("email", "zxcvbnm"), last}
}
