// Package swap is the seat swap flow: a person who has opened their booking picks tickets
// and new seats on a fresh seat map, checks the moves on a confirm page, and the ticketing
// system swaps them in one call. It is the first flow package (docs/architecture.md, "A flow
// package"): a Handler with the interfaces it uses, and its routes.
package swap

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/bookings"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

// Ticketing is the one write the flow sends upstream.
type Ticketing interface {
	SwapSeats(ctx context.Context, cinemaID, bookingID string, swaps []upstream.SeatSwap) error
}

// SeatPlans gives the showing's seat plan when the booking's read did not fetch one.
type SeatPlans interface {
	Plan(ctx context.Context, cinemaID, sessionID string) (seatplans.Snapshot, error)
}

// Bookings reads a booking from the ticketing system (internal/bookings).
type Bookings interface {
	Read(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (bookings.Booking, error)
}

// Site is what the flow needs from the kernel: rendering, error pages and who is signed in
// (*web.Kernel).
type Site interface {
	// Render writes a full page in the site's frame.
	Render(c echo.Context, status int, title string, body templ.Component) error
	// AtCounter reports a signed-in staff member on a box-office counter: staff words.
	AtCounter(c echo.Context) bool
	// URL builds the path of a named route.
	URL(name string, params ...any) string
}

// Visits is what the flow needs from the visit: its bound booking, the change cut-off, the
// cinemas, the operator's names, detached steps, the audit trail, the change notices and the
// tickets as the booking page shows them (*visit.Visits).
type Visits interface {
	// FromUpstream turns an upstream error into a web.Error with words a person can act on.
	FromUpstream(err error, backURL, backLabel string) error
	// BoundBooking is the booking the visit opened with its number and e-mail.
	BoundBooking(c echo.Context) (visit.Bound, bool)
	// WriteNotice writes the change notice and its e-mail.
	WriteNotice(ctx context.Context, n notify.Notice)
	// RememberMail keeps the outbox key of the message about the last change for the
	// booking page.
	RememberMail(ctx context.Context, key string)
	// MailLine says where the message about a change went.
	MailLine(ctx context.Context, key string) string
	// TicketsView is the booking's tickets as the booking page shows them.
	TicketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView
	// ChangesClosed says why the booking can no longer be changed, "" while it can.
	ChangesClosed(c echo.Context, cinemaID string, showtime time.Time) string
	// RefuseClosed is the error page of a change asked for after the cut-off, nil before.
	RefuseClosed(c echo.Context, cinemaID string, showtime time.Time, backURL, backLabel string) error
	// CinemaByID is the cinema (its time zone), from the shared listing.
	CinemaByID(ctx context.Context, id string) cinema.Cinema
	// Named names tickets and areas as the operator's catalog does, in ctx's language.
	Named(ctx context.Context) names.Namer
	// MoneyStep runs a step that changes the booking without the request: never cut off
	// halfway, and a second call of the same key while it runs joins it.
	MoneyStep(ctx context.Context, key string, step func(ctx context.Context) (any, error)) (val any, done bool, err error)
	// AuditEntry is what the visit did as an audit row; ok is false when none is kept.
	AuditEntry(c echo.Context, e audit.Entry) (row audit.Entry, ok bool)
	// WriteAudit writes an audit row made by AuditEntry.
	WriteAudit(ctx context.Context, e audit.Entry)
}

// Handler serves the swap flow. Every field is required.
type Handler struct {
	Site      Site
	Visits    Visits
	Sessions  *scs.SessionManager
	Logger    *slog.Logger
	Ticketing Ticketing
	SeatPlans SeatPlans
	// Bookings reads a booking with the seat plan when one was read to place its tickets
	// (fresh availability for the map); Placed places them with a cached plan (the done page).
	Bookings, Placed Bookings
}

// Routes registers the flow's handlers.
func (h *Handler) Routes(r web.Router) {
	r.GET("/bookings/:cinema/:number/seats", h.showSwap, "swap.show")
	r.POST("/bookings/:cinema/:number/seats", h.reviewSwap, "swap.show")
	r.GET("/bookings/:cinema/:number/seats/confirm", h.showSwapConfirm, "swap.confirm")
	r.POST("/bookings/:cinema/:number/seats/confirm", h.confirmSwap, "swap.confirm")
	r.GET("/bookings/:cinema/:number/seats/done", h.showSwapDone, "swap.done")
}

// url builds the path of a named route.
func (h *Handler) url(name string, params ...any) string { return h.Site.URL(name, params...) }

// fromUpstream is Site.FromUpstream with the swap's own refusals: the ticketing system says
// why these seats cannot be swapped, in words the person can act on.
func (h *Handler) fromUpstream(err error, backURL, backLabel string) error {
	if r, ok := upstream.SwapRefusal(err); ok && !upstream.TimedOut(err) {
		return &web.Error{Code: web.EConflict, HeadingID: web.Msg("ui.swap_refused.heading"), MessageID: words.SwapRestrictionID(r),
			Err: err, BackURL: backURL, BackLabel: backLabel}
	}
	return h.Visits.FromUpstream(err, backURL, backLabel)
}
