// Package bff mounts the backend-for-frontend: it builds the web kernel (internal/bff/web),
// the visits (internal/bff/visit) and the domain stores, and mounts every flow's routes
// (booking, checkout, swap, kiosk, staff). Echo stays under internal/bff; views and the
// upstream client never see it. docs/architecture.md draws the packages.
package bff

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/bff/walletflow"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/booking"
	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	"github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bookings"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/feequotes"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/payevents"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/storage"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cinemabff/cinemabff/internal/changewindow"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/listings"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/static"
)

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
	// Storage is the BFF's own database (ledger, checkout records, staff, mail); nil: none. Only
	// the domain stores built in New reach it.
	Storage *storage.DB
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
	// Admission is the line in front of the purchase shared by every replica (Redis); nil: this
	// process's. Unused when Config asks for no admission limits and no sales openings.
	Admission admission.Queue
	// Languages are the site's message catalogs (internal/i18n); nil loads them with English
	// as the fallback.
	Languages *i18n.Catalog
	// Names is the operator's catalog of the cinema's names in each language (internal/names);
	// nil shows every name as the ticketing system sends it.
	Names *names.Catalog
	// Wallet configures the passes for the phone's wallet.
	Wallet WalletDeps
	// CSRFKeys make the CSRF secrets of visits without one in their session (CSRFKeys of the
	// cookie keys; csrf.go), newest first. Replicas must share them; nil: a random key of
	// this process.
	CSRFKeys [][]byte
}

// Server is the BFF's HTTP handler: the kernel, the visits, and every flow mounted on them.
type Server struct {
	// linkWhenRouted set the addresses that parts built before the routes hold (afterRoutes).
	linkWhenRouted []func()
	Kernel         *web.Kernel
	Visits         *visit.Visits
	// Deps are the stores and shared reads the visits and the flows are built on (the domain
	// stores nil without a database); tests read what was stored through them.
	visit.Deps
	Config   Config // the flows' settings are handed over from it
	DB       Pinger
	Echo     *echo.Echo
	handler  http.Handler // echo wrapped in compression (web/compress.go)
	Upstream ReadyChecker

	Storage        *storage.DB
	attentionStore *attention.Store     // Needs attention's actions; nil without a database
	Collections    *tickets.Collections // our record of ticket printings (internal/bff/kiosk); nil without SQL
	PaymentMethod  string
	webhooks       WebhookVerifier
	inbox          *payevents.Inbox
	feeQuotes      *feequotes.Store // the booking fees learned from orders; nil without a database (the purchase flow keeps them in memory)

	bookingFlow     *booking.Handler                                           // finding, showing and changing a booking (internal/bff/booking)
	SwapFlow        *swap.Handler                                              // the seat swap flow (internal/bff/swap)
	walletMailLinks func(cinemaID string, number int64) (apple, google string) // absolute, for e-mail
	walletCertEnds  time.Time                                                  // when the Apple pass certificate (or its WWDR) ends; /readyz warns 30 days before
	walletService   http.Handler                                               // Apple's PassKit web service (nil: no passes that update)
	walletFlow      *walletflow.Handler                                        // the wallet passes of a booking (internal/bff/walletflow)
	kioskFlow       *kiosk.Handler                                             // the kiosk: start screen, idle reset, collecting tickets (internal/bff/kiosk)
	staffFlow       *staff.Handler                                             // the back office: accounts, terminals, audit trail (internal/bff/staff)
	admission       admission.Queue                                            // the line in front of the purchase; nil: none
	checkoutFlow    *checkout.Handler                                          // buying tickets (internal/bff/checkout)
	Watcher         *purchases.Watcher                                         // the checkout flow's watcher of unconfirmed orders; nil without a database
}

// New builds the server and its routes: the kernel, the stores and shared reads, the one
// settlement, the mail, the visits, then the flows, each on what it uses.
func New(d Deps) (*Server, error) {
	d, err := d.withDefaults()
	if err != nil {
		return nil, err
	}
	k := newKernel(d)
	s := &Server{Kernel: k, Config: d.Config, DB: d.DB, Storage: d.Storage, PaymentMethod: cmp.Or(d.PaymentMethod, "SANDBOXPAY"),
		webhooks: d.Webhooks}
	s.Deps = s.newStores(d)
	s.Settler = newSettler(k, s.Deps, cmp.Or(d.PaymentsTender, "CREDITCARD"))
	if k.Limits == nil {
		k.Limits = defaultLimits(d.Storage)
	}
	if d.Storage != nil && d.Ticketing != nil {
		if err := s.setUpMail(d.Mail, d.Storage); err != nil {
			return nil, err
		}
	}
	s.Visits = visit.New(s.Deps)
	if s.admission = admissionLine(d, k.Now); s.admission != nil {
		if s.admission, err = measureLine(d.Registry, s.admission); err != nil {
			return nil, err
		}
	}
	if err := s.newEcho(d.Config.TrustedProxies); err != nil {
		return nil, err
	}
	if err := s.newFlows(d.Wallet); err != nil {
		return nil, err
	}
	s.registerRoutes()
	for _, f := range s.linkWhenRouted {
		f()
	}
	if s.handler, err = web.Compressed(s.Echo); err != nil {
		return nil, err
	}
	return s, nil
}

// withDefaults fills in what the caller left out.
func (d Deps) withDefaults() (Deps, error) {
	if d.Config.PublicURL == nil {
		return d, fmt.Errorf("bff: public URL is required")
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	d.Config.SiteName = cmp.Or(d.Config.SiteName, "Cinema")
	d.Config.BodyLimit = cmp.Or(d.Config.BodyLimit, "64K")
	d.Config.KioskIdle = cmp.Or(d.Config.KioskIdle, 60*time.Second)
	if d.Config.ReadBudget <= 0 {
		d.Config.ReadBudget = web.DefaultReadBudget
	}
	if d.Config.MoneyStepTimeout <= 0 {
		d.Config.MoneyStepTimeout = visit.DefaultMoneyStepTimeout
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Background == nil {
		d.Background = context.Background()
	}
	if d.Languages == nil {
		langs, err := i18n.Load(language.English)
		if err != nil {
			return d, fmt.Errorf("bff: %w", err)
		}
		d.Languages = langs
	}
	return d, nil
}

// newKernel builds the kernel the flows are built on.
func newKernel(d Deps) *web.Kernel {
	return &web.Kernel{
		Cfg:        d.Config.Config,
		Logger:     d.Logger,
		Sessions:   web.NewSessionManager(d.SessionStore, d.Config.Config),
		Langs:      d.Languages,
		Assets:     d.Assets,
		Now:        d.Now,
		Background: d.Background,
		Devices:    d.Device,
		Limits:     d.Limits,
		Ticketing:  d.Ticketing,
		Registry:   d.Registry,
		CSRFKeys:   d.CSRFKeys,
	}
}

// newStores builds the shared reads of the ticketing system and the domain stores over the
// database (each nil without its source), and the kernel's record of staff and terminals.
func (s *Server) newStores(d Deps) visit.Deps {
	k := s.Kernel
	settings := d.Config.visitSettings()
	p := visit.Deps{Kernel: k, Settings: &settings, ChangePolicy: changewindow.Default(), Names: d.Names,
		Bookings: bookings.Reader{Source: d.Ticketing, Logger: d.Logger}, Payments: d.Payments, Readers: readersOf(d.Payments)}
	if d.Config.ChangeWindow != nil {
		p.ChangePolicy = *d.Config.ChangeWindow
	}
	p.PlacedBookings = p.Bookings
	if d.Ticketing != nil {
		s.Upstream = d.Ticketing
		s.sharedReads(&p, d)
	}
	if d.Storage != nil {
		db := d.Storage.SQL
		now := func() time.Time { return k.Now() }
		p.Ledger, p.BoxOffice, p.Audit = ledger.New(db), boxoffice.New(db), audit.New(db)
		p.Staff = staffaccounts.New(db).WithParams(d.Config.PasswordHashing)
		p.Holds, p.Purchases = holds.New(db, now), purchases.NewStore(db, k.Now)
		k.StaffAccounts = staff.SignIns{Store: p.Staff}
		k.Enrolments = device.NewEnrolments(db, device.EnrolmentsOptions{})
		s.inbox, s.Collections, s.attentionStore = payevents.New(db), tickets.NewCollections(db), attention.New(db, now)
		s.feeQuotes = feequotes.New(db, feequotes.Options{Logger: k.Logger})
	}
	return p
}

// sharedReads are the reads of the ticketing system every visitor shares. None waits on a read
// begun before the ticketing system answered well again, so the page after a slow spell works
// at once.
func (s *Server) sharedReads(p *visit.Deps, d Deps) {
	k := s.Kernel
	p.SeatPlans = seatplans.New(d.Ticketing, seatplans.Options{TTL: seatStatesTTL, ServeStaleFor: seatStatesServedStale, Health: d.Ticketing})
	p.Listings = listings.New(d.Ticketing, listings.Options{TTL: d.Config.ListingTTL, Logger: d.Logger, Health: d.Ticketing,
		Now: func() time.Time { return k.Now() }})
	// Ticket types age by the wall clock: a clock that stands still (a test's) must not keep
	// them past the interval.
	p.TicketTypes = listings.NewTicketTypes(d.Ticketing, d.Config.ListingTTL, time.Now, d.Ticketing)
	// Booking pages find their session's film, time and screen in the shared listing.
	p.Bookings = bookings.Reader{Source: listedSessionSource{Source: d.Ticketing, listings: p.Listings}, Logger: d.Logger}
	// ReadBooking places tickets on the cached plan (layout only, the plan is not returned);
	// the swap pages, which show the plan's seat states to choose from, keep reading it from
	// the upstream through Bookings.
	p.PlacedBookings = bookings.Reader{Source: cachedPlanSource{Source: p.Bookings.Source, plans: p.SeatPlans}, Logger: d.Logger}
}

// newEcho builds the Echo the routes are registered on, behind the kernel's middleware.
func (s *Server) newEcho(trusted []*net.IPNet) error {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.Logger.SetOutput(discard{})
	e.IPExtractor = IpExtractor(trusted)
	s.Echo = e
	s.Kernel.SignInCheck = staff.CheckSignIn(s.Kernel, s.Visits)
	return s.Kernel.Use(e)
}

// newFlows builds every flow on what it uses, and each audience's part of the page frame.
func (s *Server) newFlows(w WalletDeps) error {
	s.checkoutFlow = s.newCheckoutFlow()
	s.Watcher = s.checkoutFlow.Watcher()
	s.bookingFlow = s.newBookingFlow()
	var err error
	if s.walletFlow, s.bookingFlow.WalletLinks, err = s.newWalletFlow(w, s.Storage); err != nil {
		return err
	}
	s.checkoutFlow.WalletLinks = s.bookingFlow.WalletLinks
	s.SwapFlow = s.newSwapFlow()
	s.kioskFlow = s.newKioskFlow()
	s.staffFlow = s.newStaffFlow()
	// The frame's audiences: the staff's part first, so that a kiosk keeps a supervisor's links.
	s.Kernel.ChromeHooks = append(s.Kernel.ChromeHooks, s.staffFlow.Chrome, s.kioskFlow.Chrome)
	return nil
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// afterRoutes runs f once every route is registered: for a part built before the routes that
// holds one of their addresses.
func (s *Server) afterRoutes(f func()) { s.linkWhenRouted = append(s.linkWhenRouted, f) }

// IpExtractor trusts X-Forwarded-For only from the configured proxies.
func IpExtractor(trusted []*net.IPNet) echo.IPExtractor {
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

// ResumeCheckoutWatchers keeps checking, in the background, every redirect payment whose
// outcome is not known (purchases.Watcher.Resume); call at start-up, after the migrations. It
// returns how many it looked at. Without a database or a ticketing client it does nothing.
func (s *Server) ResumeCheckoutWatchers(ctx context.Context) (int, error) {
	return s.checkoutFlow.ResumeWatchers(ctx)
}

// StartCheckoutWatchers resumes the watchers now and then every interval until ctx ends
// (purchases.Watcher.Start).
func (s *Server) StartCheckoutWatchers(ctx context.Context, every time.Duration) {
	s.checkoutFlow.StartWatchers(ctx, every)
}

// readersOf is the provider's card readers, when the payments adapter has them (Stripe does).
func readersOf(p upstream.Payments) upstream.CardReaders {
	if r, ok := p.(upstream.CardReaders); ok {
		return r
	}
	return nil
}

// StartReconciler finishes, in the background, every payment or refund a request could not
// finish: at once, then every interval, until ctx ends.
func (s *Server) StartReconciler(ctx context.Context, every time.Duration) {
	s.Visits.StartReconciler(ctx, every)
}

// Reconcile runs one reconciliation pass now (tests, admin) and returns how many entries it
// moved on.
func (s *Server) Reconcile(ctx context.Context) int { return s.Visits.Reconcile(ctx) }

// Wait waits until the money steps still running in the background end, or ctx does; call it
// after the HTTP server has shut down.
func (s *Server) Wait(ctx context.Context) error { return s.Visits.Wait(ctx) }

// MetricsHandler serves the site's metrics on the metrics listener.
func (s *Server) MetricsHandler() http.Handler { return s.Kernel.MetricsHandler() }

// admissionLine is the line in front of the purchase: d's (shared by the replicas), else this
// process's; nil when the configuration asks for no limits and no sales openings.
func admissionLine(d Deps, now func() time.Time) admission.Queue {
	limits := admission.Limits{PerMinute: d.Config.AdmitPerMinute, Active: d.Config.AdmitActive}
	if !limits.On() && len(d.Config.SalesOpen) == 0 {
		return nil
	}
	if d.Admission != nil {
		return d.Admission
	}
	return admission.NewMemory(admission.Options{Limits: limits, Lifetime: d.Config.HoldLifetime, Now: now})
}
