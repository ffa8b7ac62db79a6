// Package booking is the booking flow: finding a booking by its number and e-mail (or a
// ticket's code), showing it with its tickets, and changing it: adding and removing tickets,
// choosing seats, seeing the difference, and completing the change with nothing to pay, a
// payment or a refund through the provider (or at the counter), or cancelling it.
package booking

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/listings"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

// Site is what the flow needs from the kernel: addresses, rendering, the visit's flash and
// who is signed in (*web.Kernel).
type Site interface {
	AtCounter(c echo.Context) bool
	English() *i18n.Localizer
	Flash(c echo.Context, msg string)
	PopFlash(c echo.Context) string
	PopFlashSuccess(c echo.Context) string
	Render(c echo.Context, status int, title string, body templ.Component) error
	RenewSession(c echo.Context) error
	StaffMember(c echo.Context) string
	StaffRole(c echo.Context) (username string, supervisor bool)
	StaffUser(c echo.Context) string
	URL(name string, params ...any) string
}

// Visits is what the flow needs of the visit: the booking found and the edit in progress, and
// what the flows share about them (*visit.Visits).
type Visits interface {
	AdvanceGroupWithin(ctx context.Context, lead ledger.Entry) error
	AdvanceWithin(ctx context.Context, id string) (entry ledger.Entry, done bool, err error)
	ApproveBy(ctx context.Context, username string, pin string) (staffaccounts.Account, error)
	BindBooking(c echo.Context, b visit.Bound) error
	BlockingEntry(ctx context.Context, e visit.Edit) (*ledger.Entry, error)
	BoundBooking(c echo.Context) (visit.Bound, bool)
	ChangeWindow(c echo.Context, cinemaID string, showtime time.Time) (text string, open bool)
	ChangesClosed(c echo.Context, cinemaID string, showtime time.Time) string
	CheckCounterReference(c echo.Context, st *settlement.Settler, p visit.CounterPayment, use settlement.ReferenceUse) (visit.CounterPayment, string, error)
	BookingElsewhere(ctx context.Context, here string, number int64, staff bool, email string) string
	CinemaByID(ctx context.Context, id string) cinema.Cinema
	Cinemas(ctx context.Context) ([]cinema.Cinema, error)
	ClearEdit(c echo.Context)
	CounterMailLine(ctx context.Context, key string) string
	CounterPay(c echo.Context, view components.CounterPayView, due cinema.Money) components.CounterPayView
	CurrentEdit(c echo.Context) (visit.Edit, bool)
	Detached(ctx context.Context) (context.Context, context.CancelFunc)
	MoneyStep(ctx context.Context, key string, step func(ctx context.Context) (any, error)) (val any, done bool, err error)
	EditSaved(ctx context.Context, editSessionID string) bool
	FromUpstream(err error, backURL string, backLabel string) error
	FromUpstreamFor(staff bool, err error, backURL string, backLabel string) error
	HasReader(c echo.Context) bool
	MailLine(ctx context.Context, key string) string
	Named(ctx context.Context) names.Namer
	OrderAndPlan(ctx context.Context, userSessionID string, cinemaID string, sessionID string) (o cinema.Order, snap seatplans.Snapshot, orderErr error, planErr error)
	PaymentElsewhere(c echo.Context) error
	ReadBooking(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (cinema.Booking, error)
	ReadCounterPayment(c echo.Context, due cinema.Money) (visit.CounterPayment, string, error)
	ReaderMoved(c echo.Context) string
	RecordAudit(c echo.Context, e audit.Entry)
	ReferenceRefusal(c echo.Context, p visit.CounterPayment, err error) (problem string, ok bool)
	RefuseClosed(c echo.Context, cinemaID string, showtime time.Time, backURL string, backLabel string) error
	RefuseVisitSeats(c echo.Context, step visit.SeatStep, seats int, editOrder *cinema.Order, back string) (done bool, err error)
	ReleaseEdit(c echo.Context) visit.LetGo
	RememberCustomer(c echo.Context, name string)
	RememberMail(ctx context.Context, key string)
	SaveEdit(c echo.Context, e visit.Edit)
	SeatsAsOf(ctx context.Context, cinemaID string, at time.Time) string
	ServeCalendar(c echo.Context, b cinema.Booking) error
	SessionTicketTypes(ctx context.Context, cinemaID string, sessionID string) ([]cinema.TicketType, error)
	TicketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView
	WriteNotice(ctx context.Context, n notify.Notice)
}

// Reviews tells whether staff have resolved an item of Needs attention.
type Reviews interface {
	Resolution(ctx context.Context, kind attention.Kind, ref string) (attention.Action, bool, error)
}

// Handler serves the booking flow: each field is a thing it uses, built by the root.
type Handler struct {
	Site      Site
	Visits    Visits
	Limits    ratelimit.Store
	Logger    *slog.Logger
	Now       func() time.Time
	Sessions  *scs.SessionManager
	Ticketing *upstream.Client
	Ledger    *ledger.Store
	Listings  *listings.Cache
	Mail      *notify.Mailer
	Payments  upstream.Payments
	SeatPlans *seatplans.Cache
	Settings  *visit.Settings
	Settler   *settlement.Settler
	// SalesOpen are the times showtimes' sales open (-sales-open): before it a customer
	// cannot move a booking to that showtime, as they cannot buy for it.
	SalesOpen admission.Openings
	// Reviews are staff's resolutions on Needs attention: a booking with a refund sent but
	// not applied is not changed again until it is resolved (nil: not checked).
	Reviews Reviews
	// CountersOnly guards the counter's payments and refunds: staff signed in on an enrolled
	// counter (built by the staff flow, handed in by the root).
	CountersOnly echo.MiddlewareFunc
	// WalletLinks are a booking's Add to Apple Wallet and Add to Google Wallet links ("" for
	// none); nil offers none. They work until WalletLinkValidFor after the show: the page
	// offers them no longer than that.
	WalletLinks        func(cinemaID string, number int64) (apple, google string)
	WalletLinkValidFor time.Duration
}
