// Package bff is the backend-for-frontend: Echo handlers for the three jobs (edit a booking,
// pay by redirect, swap seats), the server session, and the payment ledger. Echo stays in this
// package; views and the upstream client never see it.
package bff

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	staffpages "github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bookings"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/payevents"
	"golang.org/x/text/language"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/cinemabff/cinemabff/internal/changewindow"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/static"
)

// Config is the part of the service configuration the web layer needs.
type Config struct {
	SiteName        string
	PublicURL       *url.URL // absolute; https turns on Secure cookies, __Host- names and HSTS
	TrustedProxies  []*net.IPNet
	SessionIdle     time.Duration // a visit ends after this long without activity
	SessionLifetime time.Duration // and at the latest after this long
	// FormActionOrigins are origins (besides 'self') forms may lead to, e.g. the payment provider
	// whose hosted page we redirect to after a POST.
	FormActionOrigins []string
	BodyLimit         string // e.g. "64K"
	KioskIdle         time.Duration
	// ChangeWindow is until when bookings may be changed (internal/changewindow); nil means
	// changewindow.Default(): 30 minutes before the show.
	ChangeWindow *changewindow.Policy
	// OrderWatchFor is how long a redirect payment's order that never completes is checked
	// before it is given up (cancelled upstream); 0 means 24 hours.
	OrderWatchFor time.Duration
	// FailedOrderPolicy is the operator's words on what happens to money taken for an order
	// that was given up, shown as they are; "" means DefaultFailedOrderPolicy.
	FailedOrderPolicy string
	// StaffIdle ends a staff sign-in after this long without a request (0 means 15 minutes);
	// PasswordHashing are the argon2id parameters of staff passwords and PINs (zero: defaults).
	StaffIdle       time.Duration
	PasswordHashing staff.Params
	// Seat hoarding limits (holds.go; signed-in staff are exempt): the seats one visit may hold
	// (0 means 10), the open purchase orders of one client address across replicas (0 means
	// 3), and how long an order whose end is never seen counts (0 means 20 minutes).
	MaxSeatsPerVisit   int
	MaxOrdersPerClient int
	HoldLifetime       time.Duration
	// Box office: the tender categories of payments taken at the counter ("" means "CREDIT"
	// for the card terminal and "CASH"), and the refund amount in cents above which a clerk's
	// refund, on any device, needs a supervisor's approval (0 means 5000: 50,00).
	TenderTerminal      string
	TenderCash          string
	RefundApprovalAbove int64
	// ReadBudget is how long the ticketing reads of one request may take in all, from its
	// arrival (0 means 1.5 s), so a page answers within about 2 s (budget.go); it is also how
	// long a page waits for a money step when its request has no read deadline.
	// MoneyStepTimeout is the own deadline of a step that changes state upstream or moves
	// money, detached from the request (0 means 45 s). New resolves both once.
	ReadBudget       time.Duration
	MoneyStepTimeout time.Duration
	// MetricsToken, when set, opens /metrics on the site to "Authorization: Bearer <token>";
	// when empty /metrics on the site answers 404 (the metrics listener serves MetricsHandler).
	MetricsToken string
}

// Secure reports whether the site is served over https.
func (c Config) Secure() bool { return c.PublicURL != nil && c.PublicURL.Scheme == "https" }

// Pinger is anything that can say it is alive (the database).
type Pinger interface {
	Ping(ctx context.Context) error
}

// ReadyChecker reports whether a dependency can take requests (the upstream's circuit breaker).
type ReadyChecker interface {
	Ready() error
}

// Deps are the server's collaborators, passed explicitly.
type Deps struct {
	Config       Config
	Logger       *slog.Logger
	DB           Pinger
	SessionStore scs.Store
	Device       *device.Store
	Assets       *static.Assets
	Registry     *prometheus.Registry
	// Ticketing is the upstream ticketing client; /readyz checks its circuit breaker.
	Ticketing *upstream.Client
	// Payments is the payment provider the BFF takes edit payments and refunds through.
	Payments upstream.Payments
	// SQL is the BFF's own database (ledger, checkout records).
	SQL *sql.DB
	// PaymentMethod is sent as ExternalPaymentInfo.PaymentMethod for redirect payments.
	PaymentMethod string
	// PaymentsTender is the paymentTenderCategory of payments and refunds taken by Payments
	// (complete-edit); "" means "CREDITCARD".
	PaymentsTender string
	// Webhooks verifies the payment provider's webhook events (POST /payments/webhook); nil:
	// the route answers 404.
	Webhooks WebhookVerifier
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// Mail configures customer e-mail and ticket codes.
	Mail MailDeps
	// Background bounds the server's background work (payment watchers); it ends at shutdown.
	// nil means it never ends.
	Background context.Context
	// Limits keeps the rate limits (look-ups, staff sign-in), shared by every replica: the
	// database's or Redis's. nil means the database's (SQL set), else one process's memory.
	Limits ratelimit.Store
	// Languages are the site's message catalogs (internal/i18n); nil loads them with English
	// as the fallback.
	Languages *i18n.Catalog
	// CSRFKeys make the CSRF secrets of visits without one in their session (CSRFKeys of the
	// cookie keys; csrf.go), newest first. Replicas must share them; nil: a random key of
	// this process.
	CSRFKeys [][]byte
}

// Server is the BFF's HTTP handler.
type Server struct {
	langs    *i18n.Catalog
	cfg      Config
	logger   *slog.Logger
	db       Pinger
	echo     *echo.Echo
	handler  http.Handler // echo wrapped in compression (compress.go)
	sessions *scs.SessionManager
	device   *device.Store
	assets   *static.Assets
	registry *prometheus.Registry
	metrics  *httpMetrics
	upstream ReadyChecker

	ticketing      *upstream.Client
	seatPlans      *seatplans.Cache // seat plans for showing maps (never for deciding a write)
	bookings       bookings.Reader
	placedBookings bookings.Reader // bookings with seat plans from seatPlans: readBooking
	payments       upstream.Payments
	ledger         *ledger.Store
	sql            *sql.DB
	collections    *tickets.Collections // our record of ticket printings (internal/bff/kiosk); nil without SQL
	paymentMethod  string
	paymentsTender string
	webhooks       WebhookVerifier
	inbox          *payevents.Inbox
	now            func() time.Time

	csrfKeys      [][]byte        // csrf.go
	limits        ratelimit.Store // look-up and sign-in limits (staff_security.go)
	cinemaCache   cinemaCache
	swapFlow      *swap.Handler       // the seat swap flow (internal/bff/swap)
	kioskFlow     *kiosk.Handler      // the kiosk: start screen, idle reset, collecting tickets (internal/bff/kiosk)
	staffFlow     *staffpages.Handler // the back office: accounts, terminals, audit trail (internal/bff/staff)
	staff         *staff.Store
	enrolments    *device.Enrolments // counter and kiosk enrolments (device_enrolments)
	checkoutState *checkoutState
	background    context.Context
	changePolicy  changewindow.Policy
	mail          *mailer

	// moneySteps joins a money step to the one of the same ledger entry already running;
	// steps counts those running in the background, for Wait (budget.go).
	moneySteps singleflight.Group
	steps      stepTracker
}

// New builds the server and its routes.
func New(d Deps) (*Server, error) {
	if d.Config.PublicURL == nil {
		return nil, fmt.Errorf("bff: public URL is required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	if d.Config.SiteName == "" {
		d.Config.SiteName = "Cinema"
	}
	if d.Config.BodyLimit == "" {
		d.Config.BodyLimit = "64K"
	}
	if d.Config.KioskIdle == 0 {
		d.Config.KioskIdle = 60 * time.Second
	}
	if d.Config.ReadBudget <= 0 {
		d.Config.ReadBudget = defaultReadBudget
	}
	if d.Config.MoneyStepTimeout <= 0 {
		d.Config.MoneyStepTimeout = defaultMoneyStepTimeout
	}
	if d.Languages == nil {
		langs, err := i18n.Load(language.English)
		if err != nil {
			return nil, fmt.Errorf("bff: %w", err)
		}
		d.Languages = langs
	}
	s := &Server{
		langs:    d.Languages,
		cfg:      d.Config,
		logger:   d.Logger,
		db:       d.DB,
		device:   d.Device,
		assets:   d.Assets,
		registry: d.Registry,
		sessions: newSessionManager(d.SessionStore, d.Config),

		ticketing:      d.Ticketing,
		bookings:       bookings.Reader{Source: d.Ticketing, Logger: d.Logger},
		payments:       d.Payments,
		sql:            d.SQL,
		paymentMethod:  d.PaymentMethod,
		paymentsTender: cmp.Or(d.PaymentsTender, "CREDITCARD"),
		webhooks:       d.Webhooks,
		now:            d.Now,

		limits:   d.Limits,
		csrfKeys: d.CSRFKeys,
	}
	if len(s.csrfKeys) == 0 {
		k := make([]byte, 32)
		_, _ = rand.Read(k) // crypto/rand.Read never fails on supported platforms
		s.csrfKeys = [][]byte{k}
	}
	if d.Ticketing != nil {
		s.upstream = d.Ticketing
		s.seatPlans = seatplans.New(d.Ticketing, seatplans.Options{TTL: seatStatesTTL})
		// readBooking places tickets on the cached plan (layout only, the plan is not
		// returned); the swap pages, which show the plan's seat states to choose from, keep
		// reading it from the upstream through s.bookings.
		s.placedBookings = bookings.Reader{Source: cachedPlanSource{Source: d.Ticketing, plans: s.seatPlans}, Logger: d.Logger}
	} else {
		s.placedBookings = s.bookings
	}
	if d.SQL != nil {
		s.ledger = ledger.New(d.SQL)
		s.inbox = payevents.New(d.SQL)
		s.staff = staff.New(d.SQL).WithParams(d.Config.PasswordHashing)
		s.enrolments = device.NewEnrolments(d.SQL, device.EnrolmentsOptions{})
		s.collections = tickets.NewCollections(d.SQL)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.limits == nil {
		s.limits = defaultLimits(d.SQL)
	}
	s.changePolicy = changewindow.Default()
	if d.Config.ChangeWindow != nil {
		s.changePolicy = *d.Config.ChangeWindow
	}
	s.background = d.Background
	if s.background == nil {
		s.background = context.Background()
	}
	if d.SQL != nil && d.Ticketing != nil {
		s.checkoutState = s.newCheckoutState()
	}
	if d.SQL != nil && d.Ticketing != nil {
		if err := s.setUpMail(d.Mail); err != nil {
			return nil, err
		}
	}
	if s.paymentMethod == "" {
		s.paymentMethod = "SANDBOXPAY"
	}
	m, err := newHTTPMetrics(d.Registry)
	if err != nil {
		return nil, err
	}
	s.metrics = m

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Logger.SetOutput(discard{})
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = ipExtractor(d.Config.TrustedProxies)
	s.echo = e
	s.swapFlow = s.newSwapFlow()
	s.kioskFlow = s.newKioskFlow()
	s.staffFlow = s.newStaffFlow()
	s.useMiddleware()
	s.registerRoutes()
	if s.handler, err = compressed(e); err != nil {
		return nil, err
	}
	return s, nil
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// route registers a handler under a named path.
func (s *Server) route(method, name string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) {
	p, ok := paths[name]
	if !ok {
		// A programming error, caught by the route table test; never reached by a request.
		s.logger.Error("route has no path", "name", name)
		return
	}
	s.echo.Add(method, p, h, m...).Name = name + "." + method
}

// ipExtractor trusts X-Forwarded-For only from the configured proxies.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
