// Package kiosk is the lobby kiosk's own flow: its start screen, the idle warning that ends an
// abandoned visit, and collecting (printing) booked tickets at a kiosk or the box office. It is
// a flow package (docs/architecture.md, "A flow package"): a Handler with the interfaces it
// uses, among them a Site (the page frame, staff identity) that the kernel satisfies and
// Visits (ending a visit) that the visits (internal/bff/visit) satisfy.
package kiosk

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bookings"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/layouts"
	"github.com/cinemabff/cinemabff/views/pages/kioskview"
)

// Server-session keys of the kiosk.
const (
	sessIdle      = "kiosk.idle"      // JSON of idleToken: the warning page's one-time token
	sessCollect   = "kiosk.collect"   // JSON of collectVisit: a booking found, not yet printed
	sessCollected = "kiosk.collected" // JSON of collectedVisit: the tickets being printed
)

// Ticketing is the one write the flow may send upstream: the tickets were printed. It is an
// operation of our own (the real ticketing API has none), called only when the operator
// configured its route (-collection-path).
type Ticketing interface {
	MarkBookingCollected(ctx context.Context, cinemaID string, bookingNumber int64) (upstream.Collection, error)
}

// Bookings reads a booking from the ticketing system (internal/bookings).
type Bookings interface {
	Read(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (bookings.Booking, error)
}

// Collections is our record of ticket printings (tickets.Collections).
type Collections interface {
	Latest(ctx context.Context, cinemaID string, number int64) (tickets.Collection, error)
	Record(ctx context.Context, tc tickets.Collection) (tickets.Collection, error)
}

// Codes reads the signed code of a ticket or booking confirmation (tickets.Signer).
type Codes interface {
	Parse(payload string) (tickets.Code, error)
}

// Limits are the look-up limits, shared with the booking look-up: only failed attempts count.
type Limits struct {
	Store            ratelimit.Store
	PerClient        ratelimit.Rule // failed look-ups of one client (its address; a staff member's account)
	PerBookingClient ratelimit.Rule // failed look-ups of one booking number by one client
}

// Site is what the flow needs from the kernel: rendering, error pages, the header's flash
// and language links, and who is signed in (*web.Kernel).
type Site interface {
	// Render writes a full page in the site's frame.
	Render(c echo.Context, status int, title string, body templ.Component) error
	// PopFlash takes the visit's one-time message ("" when none).
	PopFlash(c echo.Context) string
	// LanguageLinks are the header's language switch for this page.
	LanguageLinks(c echo.Context) []layouts.LangLink
	// StaffUser is the signed-in staff member's username ("" when none).
	StaffUser(c echo.Context) string
	// StaffMember is the signed-in staff member's name ("" when none).
	StaffMember(c echo.Context) string
	// HasSession reports whether this browser has a visit (a server session) to end.
	HasSession(c echo.Context) bool
	// URL builds the path of a named route; Path is its pattern.
	URL(name string, params ...any) string
	Path(name string) string
}

// Visits is what the flow needs from the visit: the cinemas, the operator's names, the audit
// trail, the tickets as the booking page shows them, and ending the visit (*visit.Visits).
type Visits interface {
	// FromUpstream turns an upstream error into a web.Error with words a person can act on.
	FromUpstream(err error, backURL, backLabel string) error
	// TicketsView is the booking's tickets as the booking page shows them.
	TicketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView
	// EndVisit releases what the visit holds upstream and destroys it.
	EndVisit(c echo.Context) error
	// CinemaByID is the cinema (its time zone), from the shared listing.
	CinemaByID(ctx context.Context, id string) cinema.Cinema
	// Cinemas are the cinemas to collect at, from the shared listing.
	Cinemas(ctx context.Context) ([]cinema.Cinema, error)
	// BookingElsewhere is the cinema other than here where the booking number is one the
	// person proves, or "".
	BookingElsewhere(ctx context.Context, here string, number int64, staff bool, email string) string
	// Named names tickets as the operator's catalog does, in ctx's language.
	Named(ctx context.Context) names.Namer
	// RecordAudit records what the visit did.
	RecordAudit(c echo.Context, e audit.Entry)
}

// Handler serves the kiosk. Every field is required except Collections (nil without SQL: no
// record of earlier printings), Codes (nil without a signing key: no scanning) and Ticketing
// (nil unless the operator configured the upstream's collection route: nothing is sent).
type Handler struct {
	Site        Site
	Visits      Visits
	Sessions    *scs.SessionManager
	Logger      *slog.Logger
	Now         func() time.Time
	Ticketing   Ticketing
	Bookings    Bookings // places the tickets on a cached seat plan
	Collections Collections
	Codes       Codes
	Limits      Limits
	SiteName    string // the cinema's name on the attract screen
	// Idle is how long a kiosk page waits without a touch before it warns and starts over.
	Idle time.Duration

	voices voiceReports // the last answer of each kiosk about its voices
}

// Routes registers the flow's handlers. The start screen has no route of its own: it is the
// home page of a kiosk (Start).
func (h *Handler) Routes(r web.Router) {
	r.GET("/kiosk/collect", h.showCollect, "kiosk.collect")
	r.POST("/kiosk/collect", h.collectTickets, "kiosk.collect")
	r.GET("/kiosk/collect/again", h.showCollectAgain, "kiosk.collect.again")
	r.POST("/kiosk/collect/again", h.collectAgain, "kiosk.collect.again")
	r.GET("/kiosk/collect/tickets", h.showCollected, "kiosk.collected")
	r.GET("/kiosk/idle", h.showIdle, "kiosk.idle")
	r.GET("/kiosk/idle/expired", h.idleExpired, "kiosk.idle.expired")
	r.POST("/kiosk/begin", h.begin, "kiosk.begin")
	r.POST("/kiosk/display", h.setDisplay, "kiosk.display")
	r.POST("/kiosk/voices", h.reportVoices, "kiosk.voices")
}

// url builds the path of a named route.
func (h *Handler) url(name string, params ...any) string { return h.Site.URL(name, params...) }

// Start is the kiosk's start screen (the home page of a kiosk), with a large button per
// language: the guest's choice lasts for the visit (the kernel's language.go keeps it in the
// visit's session), so the next guest, after Start over or the idle reset, is greeted in the
// kiosk's own default language again.
//
// While no visit runs (no session: a fresh kiosk, or after the idle reset, "Start over" or
// "Done") the home page is the attract screen instead, whose "Touch to start" begins a visit.
func (h *Handler) Start(c echo.Context) error {
	if !h.Site.HasSession(c) {
		return h.attract(c)
	}
	v := kioskview.StartView{BuyURL: h.url("whatson"), CollectURL: h.url("kiosk.collect"), ChangeURL: h.url("booking.find")}
	if msg := h.Site.PopFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	for _, ll := range h.Site.LanguageLinks(c) {
		v.Languages = append(v.Languages, kioskview.LangChoice{Lang: ll.Lang, Name: ll.Name, URL: ll.URL, Current: ll.Current})
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("kiosk.page_title"), kioskview.Start(v))
}
