// Package layouts holds the page frame every screen is rendered into.
package layouts

// Chrome is what the frame around a page needs. Handlers fill it once per request.
type Chrome struct {
	Title     string // page title, without the site name
	SiteName  string // the cinema chain's name in the header
	Mode      string // device mode: customer, counter, kiosk (body class mode-<Mode>)
	CSRFToken string // sent by htmx in X-CSRF-Token and by forms in _csrf
	CSSPath   string // hashed URL of the stylesheet
	HTMXPath  string // hashed URL of the vendored htmx
	JSPath    string // hashed URL of our small enhancement script
	IconPath  string // hashed URL of the favicon
	HomeURL   string
	// Nav links shown in the header; empty on the kiosk idle screen.
	Nav []Link
	// IdleResetSeconds > 0 makes the kiosk return to HomeURL after that much inactivity.
	IdleResetSeconds int
	// ResetURL is where the kiosk's idle reset posts (ends the visit).
	ResetURL string
	// StaffName is the signed-in staff member ("" when none); SignOutURL ends the sign-in.
	StaffName  string
	SignOutURL string
}

// Link is a labelled URL.
type Link struct {
	Label   string
	URL     string
	Current bool
}

// BodyClass is the class list of <body>.
func (c Chrome) BodyClass() string {
	m := c.Mode
	if m == "" {
		m = "customer"
	}
	return "mode-" + m
}

// FullTitle is the document title.
func (c Chrome) FullTitle() string {
	if c.Title == "" {
		return c.SiteName
	}
	return c.Title + " · " + c.SiteName
}
