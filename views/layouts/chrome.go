// Package layouts holds the page frame every screen is rendered into.
package layouts

// Chrome is what the frame around a page needs. Handlers fill it once per request.
type Chrome struct {
	Lang      string     // the page's language code for <html lang>: "en", "de"
	Languages []LangLink // the header's language switch
	Title     string     // page title, without the site name
	SiteName  string     // the cinema chain's name in the header
	Mode      string     // device mode: customer, counter, kiosk (body class mode-<Mode>)
	CSRFToken string     // sent by htmx in X-CSRF-Token and by forms in _csrf
	CSSPath   string     // hashed URL of the stylesheet
	HTMXPath  string     // hashed URL of the vendored htmx
	JSPath    string     // hashed URL of our small enhancement script
	// SpeechPath is the hashed URL of the kiosk's speech mode (speech.js); it is loaded only
	// when Speech is set.
	SpeechPath string
	IconPath   string // hashed URL of the favicon
	HomeURL    string
	// Nav links shown in the header; empty on the kiosk idle screen.
	Nav []Link
	// IdleResetSeconds > 0 makes the kiosk warn after that much inactivity, count down
	// IdleWarnSeconds and then end the visit (app.js); it also shows "Start over".
	IdleResetSeconds int
	IdleWarnSeconds  int
	// ResetURL is where the kiosk's idle reset posts (ends the visit).
	ResetURL string
	// IdlePaused: a payment is in progress (or the page is the idle warning itself): no timer,
	// no meta refresh (body data-idle-paused). IdlePausedFor > 0 ends the pause that many
	// seconds after the page loaded (the payment's own deadline): the timer then runs again.
	IdlePaused    bool
	IdlePausedFor int
	// IdleRefreshURL is where a kiosk without JavaScript goes after IdleResetSeconds (a meta
	// refresh inside <noscript>); "" for none.
	IdleRefreshURL string
	// StaffName is the signed-in staff member ("" when none); SignOutURL ends the sign-in.
	StaffName  string
	SignOutURL string
	// Speech turns on the kiosk's speech mode script (nil when not a kiosk). SpeechEnd: this
	// page starts a new visit (the attract screen), so the last guest's speech settings go.
	Speech    bool
	SpeechEnd bool
	// KioskDisplay is the kiosk's accessibility controls (nil when not a kiosk).
	KioskDisplay *KioskDisplay
	// NextCustomerURL ends the customer's part of a counter visit ("" when not at a counter).
	NextCustomerURL string
	// NextCustomerFrom is the page Next customer was pressed on: its question goes back there.
	NextCustomerFrom string
	// Customer is the counter's customer strip (nil: no customer, or not a counter).
	Customer *CustomerStrip
}

// CustomerStrip is who the clerk is serving, on every counter page of that customer: the name
// (or "walk-in"), the booking or the order, and the amount due now ("" when none is known).
type CustomerStrip struct {
	Who   string
	What  string
	Due   string
	DueOK bool // Due is an amount to take (not a refund or nothing)
}

// KioskDisplay is the kiosk's "Larger text" and "High contrast" switches: what is on for this
// visit, and where the switches post (with the page to come back to).
type KioskDisplay struct {
	LargeText    bool
	HighContrast bool
	URL          string
	Back         string
}

// LangLink switches the site to one language: a plain link, named in that language.
type LangLink struct {
	Lang    string // "de"
	Name    string // "Deutsch"
	URL     string
	Current bool
}

// Link is a labelled URL.
type Link struct {
	Label   string
	URL     string
	Current bool
	// Shortcut is the counter's key for the link (KeyboardEvent.key), drawn beside its label.
	Shortcut string
}

// BodyClass is the class list of <body>.
func (c Chrome) BodyClass() string {
	m := c.Mode
	if m == "" {
		m = "customer"
	}
	cls := "mode-" + m
	if d := c.KioskDisplay; d != nil {
		if d.LargeText {
			cls += " kiosk-large-text"
		}
		if d.HighContrast {
			cls += " kiosk-high-contrast"
		}
	}
	return cls
}

// FullTitle is the document title.
func (c Chrome) FullTitle() string {
	if c.Title == "" {
		return c.SiteName
	}
	return c.Title + " · " + c.SiteName
}
