// Package kioskview holds the lobby kiosk's own screens: the start screen, collecting tickets, and
// the idle warning for browsers without JavaScript.
package kioskview

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/i18n"
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
	// VoicesURL is where the screen tells the service which of Languages the kiosk has a
	// voice for (speech.js), so that a missing one is in the service's log.
	VoicesURL string
	Languages []string
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

// collectedSummary is what a kiosk in speech mode says on arriving at the collected tickets:
// the film, the time, the screen and the seats, then that the tickets print.
func collectedSummary(ctx context.Context, v CollectedView) string {
	printing := i18n.T(ctx, "kiosk.printing")
	if v.Again {
		printing = i18n.T(ctx, "kiosk.printing_again")
	}
	return components.TicketsSpeech(ctx, v.Tickets) + " " + printing + " " + i18n.T(ctx, "kiosk.take_tickets")
}
