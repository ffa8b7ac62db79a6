package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/term"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/walletstandin"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wallet/apns"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlewallet"
	"github.com/cinemabff/cinemabff/static"
)

// run is the whole program; main only supplies the process's context, arguments and
// environment, so tests can run it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "sandbox":
			return runSandbox(ctx, args[1:], stdout)
		case "staff":
			return runStaff(ctx, args[1:], getenv, os.Stdin, stdout)
		case "check-upstream":
			return runCheckUpstream(ctx, args[1:], getenv, stdout)
		case "config-doc":
			return runConfigDoc(stdout)
		}
	}
	cfg, err := parseConfig(args, getenv, stdout)
	if err != nil {
		return err
	}
	logger, err := newLogger(cfg, stdout)
	if err != nil {
		return err
	}
	var closers []func()
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}()
	return runSite(ctx, cfg, logger, stdout, func(f func()) { closers = append(closers, f) })
}

// runSite opens the storage, starts the stand-ins where nothing real is configured, builds the
// site on them, starts its background work and serves until ctx ends. onClose is told what to
// close when it returns.
func runSite(ctx context.Context, cfg Config, logger *slog.Logger, stdout io.Writer, onClose func(func())) error {
	db, err := openStorage(ctx, cfg, logger, onClose)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// The embedded sandbox stands in for the ticketing API and the payment provider unless real
	// ones are configured (startStandIns points cfg at them).
	stand, err := startStandIns(ctx, &cfg, logger, stdout, onClose)
	if err != nil {
		return err
	}
	learnSandboxFees(ctx, db, stand.fees, logger)
	deps, err := siteDeps(ctx, cfg, db, stand.embedded, reg, logger, stdout, onClose)
	if err != nil {
		return err
	}
	site, err := bff.New(deps)
	if err != nil {
		return err
	}
	startBackground(ctx, site, logger)
	proxies, _ := cfg.proxies() // checked by parseConfig
	return serve(ctx, cfg, stand.mount(site, proxies), site.MetricsHandler(), site.Wait, logger, stdout)
}

// openStorage opens the database and brings its tables up to date.
func openStorage(ctx context.Context, cfg Config, logger *slog.Logger, onClose func(func())) (*storage.DB, error) {
	db, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	onClose(func() { db.Close() })
	if _, err := db.Migrate(ctx, logger); err != nil {
		return nil, err
	}
	return db, nil
}

// standIns are the embedded sandbox's pages for a browser (its payment page and card reader's
// tap form, its wallet page), where the site runs on them.
type standIns struct {
	embedded    bool // the whole sandbox: ticketing API and payment provider
	pay, wallet http.Handler
	fees        map[string]sandbox.FeeQuote // the whole sandbox's booking fees
}

// startStandIns starts the embedded sandbox when no ticketing API is configured, or the
// stand-in payment provider when only the payment provider is missing.
func startStandIns(ctx context.Context, cfg *Config, logger *slog.Logger, stdout io.Writer, onClose func(func())) (standIns, error) {
	switch {
	case cfg.UpstreamURL == "":
		sb, err := startEmbeddedSandbox(ctx, cfg, logger, stdout)
		if err != nil {
			return standIns{}, err
		}
		onClose(sb.Close)
		return standIns{embedded: true, pay: sb.browserHandler, wallet: sb.walletPage, fees: sb.fees}, nil
	case cfg.PaymentsURL == "":
		pp, err := startEmbeddedPayments(cfg, logger)
		if err != nil {
			return standIns{}, err
		}
		onClose(pp.Close)
		return standIns{pay: pp.browserHandler}, nil
	}
	return standIns{}, nil
}

// mount serves the site, and beside it the stand-ins' pages: they pay without a key, so they
// answer a browser on this machine only.
func (st standIns) mount(site http.Handler, proxies []*net.IPNet) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", site)
	if st.pay != nil {
		mux.Handle(sandboxPayPrefix+"/", bff.LoopbackOnly(http.StripPrefix(sandboxPayPrefix, st.pay), proxies))
	}
	if st.wallet != nil {
		mux.Handle(sandboxWalletPath, bff.LoopbackOnly(st.wallet, proxies))
	}
	return mux
}

// siteDeps gathers what the site is built on: keys, sessions, limits, the upstream clients,
// mail, wallet passes, languages and names, and the site's settings.
func siteDeps(ctx context.Context, cfg Config, db *storage.DB, embedded bool, reg *prometheus.Registry, logger *slog.Logger,
	stdout io.Writer, onClose func(func())) (bff.Deps, error) {
	cookieKeys, err := loadCookieKeys(cfg, db, logger)
	if err != nil {
		return bff.Deps{}, err
	}
	sessStore, err := storage.NewSessionStore(ctx, storage.SessionStoreKind(cfg.SessionStore), db, cfg.RedisURL)
	if err != nil {
		return bff.Deps{}, err
	}
	onClose(func() { sessStore.Close() })
	// The demo staff accounts (demoStaffUser) exist only in demo mode: the embedded sandbox on
	// the default SQLite file. In any other database a leftover one is disabled (staff.go).
	passwordHashing, _ := cfg.passwordHashing() // checked by parseConfig
	if err := applyDemoAccounts(ctx, staffaccounts.New(db.SQL).WithParams(passwordHashing), demoMode(cfg, embedded), logger, stdout); err != nil {
		return bff.Deps{}, err
	}
	limits, line, closeLimits, err := newLimitStore(ctx, cfg, db)
	if err != nil {
		return bff.Deps{}, err
	}
	if line == nil && db.Dialect == storage.Postgres && (cfg.AdmitPerMinute > 0 || cfg.AdmitActive > 0 || cfg.SalesOpen != "") {
		// A shared database is how replicas run; the line is shared only through Redis.
		logger.Warn("the admission line is kept in this process: with several replicas each keeps its own line and lets in at the configured rate; set -session-store=redis to share one line",
			"admit_per_minute", cfg.AdmitPerMinute, "admit_active", cfg.AdmitActive)
	}
	onClose(func() { _ = closeLimits() })
	ticketing, payments, err := newUpstreamClients(ctx, cfg, logger, reg)
	if err != nil {
		return bff.Deps{}, err
	}
	d := bff.Deps{Config: siteConfig(cfg), Logger: logger, DB: db, Storage: db, SessionStore: sessStore.Store, Registry: reg,
		Ticketing: ticketing, Payments: payments, Webhooks: payments, PaymentMethod: cfg.PaymentMethod, PaymentsTender: cfg.PaymentsTender,
		Background: ctx, Limits: limits, Admission: line, Device: device.NewStore(cookieKeys, secureSite(cfg)), CSRFKeys: web.CSRFKeys(cookieKeys)}
	return withContent(ctx, d, cfg, cookieKeys, embedded, stdout, logger)
}

// withContent adds to d what the site says and hands out: its languages and names, the mail
// and the wallet passes.
func withContent(ctx context.Context, d bff.Deps, cfg Config, cookieKeys []keys.Pair, embedded bool, stdout io.Writer, logger *slog.Logger) (bff.Deps, error) {
	var err error
	if d.Assets, err = static.New(); err != nil {
		return d, err
	}
	if d.Mail, err = newMailDeps(cfg, cookieKeys, embedded, stdout); err != nil {
		return d, err
	}
	if d.Wallet, err = newWalletDeps(ctx, cfg, cookieKeys, time.Now(), stdout, logger); err != nil {
		return d, err
	}
	if d.Languages, err = cfg.languages(); err != nil {
		return d, err
	}
	d.Names, err = cfg.names(embedded)
	return d, err
}

// secureSite reports whether the site is served over https (its cookies are then Secure).
func secureSite(cfg Config) bool {
	u, _ := url.Parse(cfg.PublicURL) // validated by parseConfig
	return u.Scheme == "https"
}

// siteConfig is the site's part of the configuration (parseConfig has checked every value).
func siteConfig(cfg Config) bff.Config {
	publicURL, _ := url.Parse(cfg.PublicURL)
	proxies, _ := cfg.proxies()
	changeWindow, _ := cfg.changeWindow()
	refundApproval, _ := cfg.refundApprovalCents()
	passwordHashing, _ := cfg.passwordHashing()
	salesOpen, _ := admission.ParseOpenings(cfg.SalesOpen)
	return bff.Config{
		Config: web.Config{
			SiteName:          cfg.SiteName,
			PublicURL:         publicURL,
			TrustedProxies:    proxies,
			SessionIdle:       cfg.SessionIdle,
			SessionLifetime:   cfg.SessionLifetime,
			FormActionOrigins: formActionOrigins(cfg),
			MetricsToken:      cfg.MetricsToken,
			StaffIdle:         cfg.StaffIdle,
		},
		KioskIdle:           cfg.KioskIdle,
		ListingTTL:          cfg.ListingTTL,
		OrderWatchFor:       cfg.OrderWatchFor,
		FailedOrderPolicy:   cfg.FailedOrderPolicy,
		AttentionAfter:      cfg.AttentionAfter,
		TenderTerminal:      cfg.TenderTerminal,
		ReaderLocation:      cfg.ReaderLocation,
		ReaderCountry:       cfg.ReaderCountry,
		TenderCash:          cfg.TenderCash,
		RefundApprovalAbove: refundApproval,
		ChangeWindow:        &changeWindow,
		PasswordHashing:     passwordHashing,
		// Seat hoarding limits (internal/bff/visit/holds.go).
		MaxSeatsPerVisit:   cfg.MaxSeatsPerVisit,
		MaxOrdersPerClient: cfg.MaxOrdersPerClient,
		HoldLifetime:       cfg.HoldLifetime,
		AdmitPerMinute:     cfg.AdmitPerMinute,
		AdmitActive:        cfg.AdmitActive,
		SalesOpen:          salesOpen,
		// The upstream is told of collections only when the operator gave its route.
		MarkCollectedUpstream: cfg.marksCollectedUpstream(),
	}
}

// startBackground starts what runs beside the requests: the reconciler of payments and
// refunds a request could not finish, the watchers of redirect payments whose outcome is not
// known, and the mail sender.
func startBackground(ctx context.Context, site *bff.Server, logger *slog.Logger) {
	site.StartReconciler(ctx, 30*time.Second)
	// Keep checking redirect payments whose outcome is not known (also those awaiting it when
	// we stopped) until they complete, end, or are given up after -order-watch-for.
	if n, err := site.ResumeCheckoutWatchers(ctx); err != nil {
		logger.Warn("resume checkout watchers", "err", err)
	} else if n > 0 {
		logger.Info("resumed checkout watchers", "count", n)
	}
	site.StartCheckoutWatchers(ctx, time.Minute)
	// Deliver customer e-mail from the outbox (every replica may: each message goes once).
	site.StartMailSender(ctx, 5*time.Second)
}

// newUpstreamClients builds the ticketing and payment provider clients. It asks the upstream
// for its cinemas once (their currencies); a failure there is logged, not fatal: the site
// starts and /readyz tells.
func newUpstreamClients(ctx context.Context, cfg Config, logger *slog.Logger, reg prometheus.Registerer) (*upstream.Client, *upstream.StripePayments, error) {
	c, err := newTicketingClient(cfg, logger, reg)
	if err != nil {
		return nil, nil, err
	}
	p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: cfg.PaymentsURL, SecretKey: cfg.PaymentsKey,
		WebhookSecret: cfg.PaymentsWebhook, Logger: logger.With("component", "payments")})
	if err != nil {
		return nil, nil, fmt.Errorf("payment provider: %w", err)
	}
	// Which provider and mode, never the key.
	logger.Info("payments: Stripe", "mode", p.Mode(), "api", cfg.PaymentsURL, "webhook_secret_set", cfg.PaymentsWebhook != "")
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.ListCinemas(lctx); err != nil {
		logger.Warn("could not list cinemas at start", "err", err)
	}
	return c, p, nil
}

// newTicketingClient builds the ticketing API client with the deployment's settings
// (docs/going-live.md). parseConfig has validated them.
func newTicketingClient(cfg Config, logger *slog.Logger, reg prometheus.Registerer) (*upstream.Client, error) {
	bookingStatuses, _ := upstream.ParseBookingStatusMapping(cfg.BookingStatuses)
	paymentStatuses, _ := upstream.ParsePaymentStatusMapping(cfg.PaymentStatuses)
	headers, _ := upstream.ParseHeaders(cfg.UpstreamHeaders)
	modes, _ := upstream.ParseBookingModes(cfg.BookingModes)
	loc, _ := time.LoadLocation(cfg.TimeZone)
	opts := []upstream.Option{
		upstream.WithBookingStatusMapping(bookingStatuses),
		upstream.WithPaymentStatusMapping(paymentStatuses),
		upstream.WithLogger(logger.With("component", "upstream")),
		upstream.WithRegisterer(reg),
		upstream.WithVersion(version),
		upstream.WithOperationTimeout(upstream.OpCompleteEditBooking, 20*time.Second),
		upstream.WithHeaders(headers),
		upstream.WithMaxIdleConnsPerHost(cfg.UpstreamIdle),
		upstream.WithTimeZone(loc),
		upstream.WithCurrency(cfg.Currency),
		upstream.WithTenders(upstream.Tenders{Card: cfg.TenderCard, GiftCard: cfg.TenderGiftCard, Loyalty: cfg.TenderLoyalty}),
		upstream.WithPrintStreamType(cfg.PrintStreamType),
		upstream.WithBookingModes(modes),
	}
	paths := upstream.Paths{}
	if cfg.UpstreamPaths != "" {
		p, err := upstream.LoadPaths(cfg.UpstreamPaths)
		if err != nil {
			return nil, err
		}
		paths = p
	}
	if cfg.CollectionPath != "" {
		r, err := upstream.ParseRoute(cfg.CollectionPath)
		if err != nil {
			return nil, fmt.Errorf("-collection-path: %w", err)
		}
		paths[upstream.OpMarkBookingCollected] = r
	}
	if len(paths) > 0 {
		opts = append(opts, upstream.WithPaths(paths))
	}
	c, err := upstream.New(cfg.UpstreamURL, cfg.UpstreamToken, opts...)
	if err != nil {
		return nil, fmt.Errorf("ticketing client: %w", err)
	}
	return c, nil
}

// marksCollectedUpstream reports whether the operator gave the upstream's route that marks
// tickets collected: -collection-path, or a MarkBookingCollected row in -upstream-paths. The
// real ticketing API has no such operation, so by default nothing is sent for a collection.
func (c Config) marksCollectedUpstream() bool {
	if c.CollectionPath != "" {
		return true
	}
	if c.UpstreamPaths == "" {
		return false
	}
	p, err := upstream.LoadPaths(c.UpstreamPaths) // checked when the configuration was read
	if err != nil {
		return false
	}
	_, ok := p[upstream.OpMarkBookingCollected]
	return ok
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// serve listens, prints the URL, and shuts down gracefully when ctx ends: once the HTTP
// servers have stopped it waits for the work they left running (waitSteps: the site's money
// steps), all within the shutdown timeout. With -metrics-addr it also serves metrics, and
// nothing else, on a listener of their own.
func serve(ctx context.Context, cfg Config, h, metrics http.Handler, waitSteps func(context.Context) error, logger *slog.Logger, stdout io.Writer) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	servers := []*http.Server{newHTTPServer(h, logger)}
	listeners := []net.Listener{ln}
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("listen on %s (metrics): %w", cfg.MetricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		servers = append(servers, newHTTPServer(mux, logger))
		listeners = append(listeners, mln)
		// Printed before the site's line, which tells callers (and tests) the site is up.
		fmt.Fprintf(stdout, "metrics served on http://%s/metrics\n", mln.Addr())
		logger.Info("metrics listener", "addr", mln.Addr().String())
	}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	fmt.Fprintf(stdout, "cinema BFF listening on http://%s (open %s)\n", ln.Addr(), cfg.PublicURL)
	logger.Info("listening", "addr", ln.Addr().String(), "public_url", cfg.PublicURL)

	select {
	case err := <-errc:
		for _, srv := range servers {
			srv.Close()
		}
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "deadline", cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	var errs []error
	for _, srv := range servers {
		if err := srv.Shutdown(sctx); err != nil {
			errs = append(errs, fmt.Errorf("graceful shutdown: %w", err))
		}
	}
	for range servers {
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	if waitSteps != nil {
		// No request runs any more: wait for the steps they left in the background (a
		// step not waited for leaves its ledger entry to the reconciler of the next start).
		if err := waitSteps(sctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// newHTTPServer is an http.Server with the service's timeouts and limits.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// loadCookieKeys returns the configured keys, or keys generated once and kept beside the
// SQLite file (or in the data folder).
func loadCookieKeys(cfg Config, db *storage.DB, logger *slog.Logger) ([]keys.Pair, error) {
	if cfg.CookieKeys != "" {
		return keys.Parse(cfg.CookieKeys)
	}
	dir := cfg.DataDir
	if db.Path != "" {
		dir = filepath.Dir(db.Path)
	}
	path := filepath.Join(dir, "cookie-keys")
	pairs, created, err := keys.LoadOrCreate(path)
	if err != nil {
		return nil, err
	}
	logger.Warn("cookie keys not configured: using keys kept in "+path+"; production must set "+envName("cookie-keys"), "generated", created)
	return pairs, nil
}

func newLogger(cfg Config, out io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", cfg.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	format := cfg.LogFormat
	if format == "auto" {
		format = "json"
		if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(out, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(out, opts)), nil
	default:
		return nil, fmt.Errorf("log format %q: want text, json or auto", cfg.LogFormat)
	}
}

// formActionOrigins lists origins our forms may lead to besides our own: the payment
// provider's hosted page, reached by a redirect after a POST.
func formActionOrigins(cfg Config) []string {
	var out []string
	for _, raw := range []string{cfg.PaymentsURL} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			out = append(out, u.Scheme+"://"+u.Host)
		}
	}
	return out
}

// newMailDeps sets up customer e-mail: SMTP when -smtp-url is set, otherwise .eml files in
// -mail-dir (the start banner says which). Ticket codes are signed with a key derived from the
// newest cookie key, so every replica with the same keys makes and checks the same codes.
func newMailDeps(cfg Config, cookieKeys []keys.Pair, sandbox bool, stdout io.Writer) (bff.MailDeps, error) {
	d := bff.MailDeps{From: cfg.MailFrom, TicketKey: keys.Derive(cookieKeys[0], "ticket-codes")}
	if cfg.SMTPURL != "" {
		t, err := mail.NewSMTP(cfg.SMTPURL)
		if err != nil {
			return d, err
		}
		d.Transport = t
		fmt.Fprintf(stdout, "Customer e-mail: %s\n", t.Describe())
		return d, nil
	}
	d.Transport, d.Dir, d.ShowMailbox = mail.NewDir(cfg.MailDir), cfg.MailDir, sandbox
	where := "Customer e-mail: no -smtp-url, so every message is written as an .eml file into " + cfg.MailDir
	if sandbox {
		where += " (listed at /sandbox/mail)"
	}
	fmt.Fprintln(stdout, where)
	return d, nil
}

// newWalletDeps sets up the wallet passes. The operator's Apple identity and Google key are
// loaded when set (a missing, garbled or expired one stops the start with the reason); unset,
// labelled test identities are generated into the data folder so a fresh machine shows the
// whole feature, and the start banner says the passes are test passes. A certificate that
// expires within 30 days is a warning on start.
func newWalletDeps(ctx context.Context, cfg Config, cookieKeys []keys.Pair, now time.Time, stdout io.Writer, logger *slog.Logger) (bff.WalletDeps, error) {
	d := bff.WalletDeps{LinkKey: keys.Derive(cookieKeys[0], "wallet-links"), TokenKey: keys.Derive(cookieKeys[0], "wallet-pass-tokens"),
		Organization: cfg.SiteName, LinkValidFor: cfg.WalletLinkValidFor}
	var err error
	if d.Locations, err = applepass.ParseLocations(cfg.WalletLocations); err != nil {
		return d, err // checked when the configuration was read
	}
	if cfg.ApplePassCert != "" {
		d.Apple, err = applepass.LoadIdentityFiles(cfg.ApplePassCert, cfg.ApplePassKey, cfg.AppleWWDRCert, cfg.ApplePassTypeID, cfg.AppleTeamID, now)
		if err != nil {
			return d, fmt.Errorf("apple wallet passes (-apple-pass-cert): %w", err)
		}
	} else {
		if d.Apple, _, err = applepass.GenerateTestIdentity(cfg.DataDir, now); err != nil {
			return d, fmt.Errorf("apple wallet test identity: %w", err)
		}
		fmt.Fprintf(stdout, "wallet passes are TEST passes (signed by a generated test identity in %s, which Wallet on a real phone refuses); set -apple-pass-cert and -google-wallet-service-account for real ones\n", cfg.DataDir)
	}
	if d.Apple.ExpiresWithin(now, 30*24*time.Hour) {
		msg := fmt.Sprintf("the Apple pass certificate expires on %s: renew it (passes already issued are signed again on their next fetch)", d.Apple.NotAfter().Format("2 January 2006"))
		fmt.Fprintln(stdout, "WARNING: "+msg)
		logger.Warn(msg)
	}
	if cfg.APNsKey != "" {
		pem, err := os.ReadFile(cfg.APNsKey)
		if err != nil {
			return d, fmt.Errorf("apns (-apns-key): %w", err)
		}
		key, err := apns.ParseKey(pem)
		if err != nil {
			return d, fmt.Errorf("apns (-apns-key): %w", err)
		}
		d.Pusher = &apns.Client{Endpoint: cfg.APNsEndpoint, Topic: d.Apple.PassTypeID,
			Auth: &apns.TokenAuth{KeyID: cfg.APNsKeyID, TeamID: d.Apple.TeamID, Key: key}}
	} else if cfg.sandboxAPNs != "" {
		key, err := walletstandin.TestAPNsKey(cfg.DataDir)
		if err != nil {
			return d, err
		}
		d.Pusher = &apns.Client{Endpoint: cfg.sandboxAPNs, Topic: d.Apple.PassTypeID,
			Auth: &apns.TokenAuth{KeyID: "SANDBOXKEY", TeamID: d.Apple.TeamID, Key: key}}
	}
	d.Google = googlepass.Issuer{ID: cfg.GoogleIssuerID, ClassID: cfg.GoogleClassID}
	if cfg.GoogleServiceAccount != "" {
		data, err := os.ReadFile(cfg.GoogleServiceAccount)
		if err != nil {
			return d, fmt.Errorf("google wallet (-google-wallet-service-account): %w", err)
		}
		if d.GoogleKey, err = googlepass.ParseServiceAccount(data); err != nil {
			return d, fmt.Errorf("google wallet (-google-wallet-service-account): %w", err)
		}
	} else if d.GoogleKey, err = googlepass.GenerateTestServiceAccount(cfg.DataDir); err != nil {
		return d, fmt.Errorf("google wallet test key: %w", err)
	}
	if d.Google.ID == "" {
		d.Google.ID = "3388000000000000000" // a test issuer: Google refuses its links, as it should
	}
	if origin := cfg.PublicURL; origin != "" {
		d.Google.Origins = []string{origin}
	}
	// Saved tickets are patched after a change where an API will take the key: Google's with
	// the operator's key, the sandbox's stand-in (or one named) with any.
	if cfg.GoogleServiceAccount != "" || cfg.GoogleWalletAPI != "" {
		c, err := googlewallet.New(ctx, googlewallet.Options{BaseURL: cfg.GoogleWalletAPI, TokenURL: cfg.GoogleWalletTokenURL, Account: d.GoogleKey})
		if err != nil {
			return d, fmt.Errorf("google wallet api (-google-wallet-api): %w", err)
		}
		d.GoogleAPI = c
	} else {
		logger.Info("google wallet: saved tickets are not patched after a change (test key; set -google-wallet-service-account)")
	}
	return d, nil
}
