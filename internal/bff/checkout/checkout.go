// Package checkout is the purchase flow: what's on, choosing tickets and seats, the buyer's
// details, gift cards and loyalty points, paying by redirect to the payment provider and the
// landing page that waits for the order to complete (or takes the failed-order path), and the
// sale at the counter. The purchase's records, the poller and the watcher of unconfirmed
// orders are the domain package internal/purchases.
package checkout

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/feequotes"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/listings"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/labstack/echo/v4"
)

// Site is what the flow needs from the kernel: addresses, rendering, the visit's flash and
// who is signed in (*web.Kernel).
type Site interface {
	AbsURL(name string, params ...any) string
	AtCounter(c echo.Context) bool
	English() *i18n.Localizer
	Flash(c echo.Context, msg string)
	Fragment(c echo.Context, status int, body templ.Component) error
	PopFlash(c echo.Context) string
	Render(c echo.Context, status int, title string, body templ.Component) error
	RenewSession(c echo.Context) error
	StaffUser(c echo.Context) string
	URL(name string, params ...any) string
}

// Visits is what the flow needs of the visit: the purchase in progress, its hold and its
// payments, and what the flows share about them (*visit.Visits).
type Visits interface {
	AddBuyRef(c echo.Context, ref string)
	AdvanceWithin(ctx context.Context, id string) (entry ledger.Entry, done bool, err error)
	BoughtAlready(c echo.Context) error
	BuyPaymentUnderWay(c echo.Context, buy visit.Buy) (purchases.Record, bool)
	BuyRefs(c echo.Context) []string
	CheckCounterReference(c echo.Context, st *settlement.Settler, p visit.CounterPayment, use settlement.ReferenceUse) (visit.CounterPayment, string, error)
	CinemaByID(ctx context.Context, id string) cinema.Cinema
	Cinemas(ctx context.Context) ([]cinema.Cinema, error)
	ClearBuy(c echo.Context)
	CounterMailLine(ctx context.Context, key string) string
	CounterPay(c echo.Context, view components.CounterPayView, due cinema.Money) components.CounterPayView
	CurrentBuy(c echo.Context) (visit.Buy, bool)
	Detached(ctx context.Context) (context.Context, context.CancelFunc)
	DropHold(ctx context.Context, userSessionID string)
	EndHold(ctx context.Context, userSessionID string)
	EndHoldFor(ctx context.Context, userSessionID string, reason string)
	FromUpstream(err error, backURL string, backLabel string) error
	HasReader(c echo.Context) bool
	HoldExtended(ctx context.Context, userSessionID string, r upstream.ExpiryReset)
	HoldStarted(ctx context.Context, userSessionID string, o cinema.Order)
	MailLine(ctx context.Context, key string) string
	Named(ctx context.Context) names.Namer
	OpenPurchaseHold(c echo.Context, usid string, seats int, replaces string, back string) (done bool, err error)
	OrderAndPlan(ctx context.Context, userSessionID string, cinemaID string, sessionID string) (o cinema.Order, snap seatplans.Snapshot, orderErr error, planErr error)
	PaymentElsewhere(c echo.Context) error
	ReadBooking(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (cinema.Booking, error)
	ReadCounterPayment(c echo.Context, due cinema.Money) (visit.CounterPayment, string, error)
	ReaderMoved(c echo.Context) string
	ReaderSaleUnderWay(ctx context.Context, orderSessionID string) (ledger.Entry, bool)
	RecordAudit(c echo.Context, e audit.Entry)
	ReferenceRefusal(c echo.Context, p visit.CounterPayment, err error) (problem string, ok bool)
	RefuseVisitSeats(c echo.Context, step visit.SeatStep, seats int, editOrder *cinema.Order, back string) (done bool, err error)
	ReleaseReplacedOrder(c echo.Context, prev visit.Buy) error
	SaveBuy(c echo.Context, buy visit.Buy)
	SeatsAsOf(ctx context.Context, cinemaID string, at time.Time) string
	SeatsPerOrder(c echo.Context) int
	ServeCalendar(c echo.Context, b cinema.Booking) error
	SessionTicketTypes(ctx context.Context, cinemaID string, sessionID string) ([]cinema.TicketType, error)
	TicketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView
	TooManySeatsNotice(c echo.Context, seats int) *components.Notice
}

// Handler serves the purchase flow: each field is a thing it uses, built by the root.
type Handler struct {
	Site       Site
	Visits     Visits
	Background context.Context
	Limits     ratelimit.Store
	// Admission is the line in front of the purchase (nil: none, everyone goes straight in);
	// SalesOpen are the times showtimes' sales open.
	Admission admission.Queue
	SalesOpen admission.Openings
	Logger    *slog.Logger
	Now       func() time.Time
	Sessions  *scs.SessionManager
	Ticketing *upstream.Client
	BoxOffice *boxoffice.Register
	Ledger    *ledger.Store
	Listings  *listings.Cache
	Purchases *purchases.Store
	SeatPlans *seatplans.Cache
	Settings  *visit.Settings
	Settler   *settlement.Settler
	// PaymentMethod is sent as ExternalPaymentInfo.PaymentMethod for redirect payments.
	PaymentMethod string
	// CountersOnly guards the sale at the counter: staff signed in on an enrolled counter
	// (built by the staff flow, handed in by the root).
	CountersOnly echo.MiddlewareFunc
	// WalletLinks are a booking's Add to Apple Wallet and Add to Google Wallet links (nil: the
	// confirmation offers none; built by the wallet flow, handed in by the root).
	WalletLinks func(cinemaID string, number int64) (apple, google string)
	// FeeQuotes is the booking fee per ticket last charged at each cinema, learned from the
	// orders opened and kept in the database, so the ticket step's total includes the fees on
	// every replica and after a restart (nil: Start makes one in memory only).
	FeeQuotes *feequotes.Store
	state     *checkoutState // nil without a database or a ticketing client
}

// Start makes the payment records' poller and watcher; they exist only with a database and a
// ticketing client. Call it once every field is set.
func (h *Handler) Start() *Handler {
	if h.FeeQuotes == nil {
		h.FeeQuotes = feequotes.New(nil, feequotes.Options{Logger: h.Logger})
	}
	if h.Purchases != nil && h.Ticketing != nil {
		h.state = h.newCheckoutState()
	}
	return h
}

// Watcher is the watcher of unconfirmed orders (Needs attention checks an order with it); nil
// without a database.
func (h *Handler) Watcher() *purchases.Watcher {
	if h.state == nil {
		return nil
	}
	return h.state.watcher
}

// ResumeWatchers picks up, after a restart, the unconfirmed orders a replica was watching.
func (h *Handler) ResumeWatchers(ctx context.Context) (int, error) {
	if h.state == nil {
		return 0, nil
	}
	return h.state.watcher.Resume(ctx)
}

// StartWatchers checks unconfirmed orders in the background until ctx ends.
func (h *Handler) StartWatchers(ctx context.Context, every time.Duration) {
	if h.state != nil {
		h.state.watcher.Start(ctx, every)
	}
}
