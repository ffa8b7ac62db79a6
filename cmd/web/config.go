package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	netmail "net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/changewindow"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
)

// Config is the whole service configuration: every setting has a flag and an environment
// variable (flag wins), and a default that works on a fresh machine.
type Config struct {
	Addr            string // listen address
	MetricsAddr     string // listen address of a listener serving only /metrics; empty: none
	MetricsToken    string // bearer token opening /metrics on Addr; empty: /metrics there is 404. Never logged
	PublicURL       string // how browsers reach the site; builds ReturnUrl and cookie security
	UpstreamURL     string // ticketing API base URL; empty: the embedded sandbox
	UpstreamToken   string // connectapitoken value
	PaymentsURL     string // payment provider API base URL; empty: the embedded sandbox's
	PaymentsKey     string // payment provider secret key (Stripe sk_test_… / sk_live_…); never logged
	PaymentsWebhook string // payment provider webhook signing secret (whsec_…)
	PaymentsTender  string // paymentTenderCategory of the provider's payments in complete-edit
	PaymentMethod   string // ExternalPaymentInfo.PaymentMethod for redirect payments
	DatabaseURL     string // sqlite:PATH or postgres://...
	SessionStore    string // sqlite, postgres or redis; empty: the database's kind
	RedisURL        string // for SessionStore=redis
	CookieKeys      string // comma-separated 128-hex-char secrets, newest first; empty: generated
	DataDir         string // where the SQLite file and generated keys live
	// Wallet passes: Apple's pass type certificate, its key and Apple's WWDR intermediate (PEM
	// files), the pass type and team ids; Google's issuer id, class and service-account key file.
	// Unset: test identities generated into DataDir, and the start banner says so.
	ApplePassTypeID, AppleTeamID, ApplePassCert, ApplePassKey, AppleWWDRCert string
	GoogleIssuerID, GoogleClassID, GoogleServiceAccount                      string
	// The Google Wallet API and the OAuth token URL its calls authenticate at ("": Google's;
	// the embedded sandbox's stand-in on embedded defaults).
	GoogleWalletAPI, GoogleWalletTokenURL string
	// WalletLocations is where each cinema is (CINEMA=LAT:LONG,...), for the passes.
	WalletLocations string
	// WalletLinkValidFor is how long after the show a booking's wallet links work.
	WalletLinkValidFor time.Duration
	// APNs: the .p8 token key and its id; the endpoint (Apple\'s production one by default).
	APNsKey, APNsKeyID, APNsEndpoint string
	// sandboxAPNs is the embedded sandbox's APNs stand-in, which gets the pushes when no
	// -apns-key is set.
	sandboxAPNs     string
	LogLevel        string        // debug, info, warn, error
	LogFormat       string        // text, json, auto (text on a terminal)
	TrustedProxies  string        // comma-separated CIDRs whose X-Forwarded-For is believed
	SessionIdle     time.Duration // visit idle timeout
	SessionLifetime time.Duration // visit absolute lifetime
	ShutdownTimeout time.Duration // how long in-flight requests get on SIGTERM
	SiteName        string        // shown in the header
	KioskIdle       time.Duration // kiosk returns to the start after this long without touch
	ListingTTL      time.Duration // how long a cinema's listing (sessions, films) is shared before it is read again
	ChangeCutoff    time.Duration // customers' changes close this long before the show
	ChangeCutoffBy  string        // per-cinema cut-offs, e.g. "0001=2h,0002=45m"
	SandboxDelay    time.Duration // embedded sandbox: how long the connector takes to complete a paid order
	SandboxStay     bool          // embedded sandbox: edits refuse tickets of another session (no showtime change)
	BookingStatuses string        // upstream bookingStatus numbers, e.g. "0=kept,1=added,2=removed"
	PaymentStatuses string        // upstream PaymentStatus letters, e.g. "P=pending,Y=paid,..."

	// Customer e-mail.
	SMTPURL  string // smtp://user:pass@host:587 (STARTTLS) or smtps://…; empty: .eml files in MailDir
	MailFrom string // the From address of customer e-mail
	MailDir  string // where messages are written as .eml files without SMTP (default <data-dir>/mail)

	// Stuck orders: a redirect payment's order that never completes.
	OrderWatchFor     time.Duration // how long it is checked before it is given up (cancelled upstream)
	FailedOrderPolicy string        // the operator's words on money taken for a given-up order
	AttentionAfter    time.Duration // how long an unconfirmed order waits before staff see it under Needs attention

	// Seat hoarding limits (signed-in staff are exempt).
	MaxSeatsPerVisit   int           // seats one visit may hold at a time
	MaxOrdersPerClient int           // open purchase orders per client address, across replicas
	HoldLifetime       time.Duration // how long an order whose end is never seen counts against its client

	// The admission line in front of the purchase (internal/admission).
	AdmitPerMinute int    // new purchases let in per minute, the site's; 0: no line
	AdmitActive    int    // purchases open at once; 0: no limit
	SalesOpen      string // when showtimes' sales open: SESSION=TIME, comma-separated

	// Staff sign-in (staff.go).
	StaffIdle     time.Duration // a staff sign-in ends after this long without a request
	Argon2Memory  int           // MiB of memory per staff password hash (argon2id)
	Argon2Time    int           // argon2id passes
	Argon2Threads int           // argon2id lanes

	// The deployment of the ticketing API (docs/going-live.md).
	UpstreamHeaders []string // extra "Name: value" headers sent on every upstream call
	UpstreamPaths   string   // JSON file overriding operation paths
	// CollectionPath is the upstream route ("POST path") that marks a booking's tickets
	// collected; "" (the default): collections are recorded only by the site itself.
	CollectionPath string
	// NamesFile is the operator's catalog of the cinema's names (ticket types, area categories,
	// areas, offers, ratings) by code in each language (internal/names, JSON); "" (the default):
	// the embedded sandbox's catalog with the embedded sandbox, otherwise none (names as sent).
	NamesFile      string
	UpstreamIdle   int    // idle keep-alive connections kept to the upstream
	TimeZone       string // IANA zone used when a cinema's TimeZoneId is absent or unknown
	Language       string // the site's language for a browser that asks for none of ours
	Currency       string // ISO 4217 code used when a cinema names none
	TenderCard     string // PaymentTenderCategory of card (external) payments
	TenderGiftCard string // ... of gift card payments
	TenderLoyalty  string // ... of loyalty points payments
	TenderTerminal string // ... of payments on the box office's card terminal
	// ReaderLocation is the payment provider's location (Stripe Terminal tml_…) new card
	// readers are registered at; "": one named after the site, made in ReaderCountry.
	ReaderLocation string
	ReaderCountry  string
	TenderCash     string // ... of cash taken at the box office
	// RefundApprovalAbove: a clerk's refunds above this amount, on any device, need a
	// supervisor's username and PIN (a supervisor's own refunds need none).
	RefundApprovalAbove string
	PrintStreamType     string // PrintSettings.PrintStreamType of redirect payments
	BookingModes        string // BookingMode numbers, e.g. "sale=0,reservation=1"
}

// envPrefix is the prefix of every environment variable.
const envPrefix = "CINEMA_"

type setting struct {
	name, env, help string
	str             *string
	dur             *time.Duration
	list            *[]string // repeatable flag; its environment variable holds one value per line
	num             *int      // a whole number (complete checks its range)
	on              *bool     // a switch: -name or -name=false; its environment variable true or false
	def             string
}

func (c *Config) settings() []setting {
	settings := []setting{
		{name: "addr", help: "listen address", str: &c.Addr, def: "localhost:8080"},
		{name: "metrics-addr", help: "listen address of a separate listener serving only /metrics, e.g. 127.0.0.1:9090 (default: none)", str: &c.MetricsAddr},
		{name: "metrics-token", help: "bearer token that opens /metrics on the site's own listener (default: none, and /metrics there answers 404)", str: &c.MetricsToken},
		{name: "public-url", help: "public base URL of the site (default: http://<addr>)", str: &c.PublicURL},
		{name: "upstream-url", help: "ticketing API base URL (default: start the embedded sandbox)", str: &c.UpstreamURL},
		{name: "upstream-token", help: "ticketing API token (connectapitoken)", str: &c.UpstreamToken, def: "sandbox-dev-token"},
		{name: "payments-url", help: "payment provider API base URL (default: the embedded sandbox's)", str: &c.PaymentsURL},
		{name: "payments-key", help: "payment provider secret key: Stripe sk_test_… or sk_live_… (the embedded sandbox's: sk_test_sandbox)", str: &c.PaymentsKey, def: "sk_test_sandbox"},
		{name: "payments-webhook-secret", help: "payment provider webhook signing secret (Stripe whsec_…; the embedded sandbox makes one)", str: &c.PaymentsWebhook},
		{name: "payments-tender", help: "paymentTenderCategory of payments and refunds taken by the payment provider", str: &c.PaymentsTender, def: "CREDITCARD"},
		{name: "payment-method", help: "PaymentMethod sent when starting a redirect payment", str: &c.PaymentMethod, def: "SANDBOXPAY"},
		{name: "database-url", help: "database: sqlite:PATH or postgres://... (default: sqlite:<data-dir>/cinema.db)", str: &c.DatabaseURL},
		{name: "session-store", help: "session store: sqlite, postgres or redis (default: the database's kind)", str: &c.SessionStore},
		{name: "redis-url", help: "Redis URL for session-store=redis", str: &c.RedisURL, def: "redis://127.0.0.1:6379/0"},
		{name: "cookie-keys", help: "comma-separated cookie secrets (128 hex chars each), newest first (default: generated into <data-dir>)", str: &c.CookieKeys},
		{name: "data-dir", help: "folder for the SQLite database and generated keys", str: &c.DataDir, def: "data"},
		{name: "smtp-url", help: "customer e-mail relay: smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465 (default: write .eml files into -mail-dir)", str: &c.SMTPURL},
		{name: "mail-from", help: "From address of customer e-mail", str: &c.MailFrom, def: "Cinema tickets <tickets@cinema.example>"},
		{name: "mail-dir", help: "folder for .eml files when no -smtp-url is set (default <data-dir>/mail)", str: &c.MailDir},
		{name: "log-level", help: "debug, info, warn or error", str: &c.LogLevel, def: "info"},
		{name: "log-format", help: "text, json or auto", str: &c.LogFormat, def: "auto"},
		{name: "trusted-proxies", help: "comma-separated CIDRs of reverse proxies whose X-Forwarded-For is trusted", str: &c.TrustedProxies},
		{name: "session-idle", help: "a visit ends after this long without activity", dur: &c.SessionIdle, def: "30m"},
		{name: "session-lifetime", help: "a visit ends at the latest after this long", dur: &c.SessionLifetime, def: "12h"},
		{name: "shutdown-timeout", help: "how long in-flight requests may finish on shutdown", dur: &c.ShutdownTimeout, def: "15s"},
		{name: "site-name", help: "name shown in the header", str: &c.SiteName, def: "Lumière Cinemas"},
		{name: "kiosk-idle", help: "kiosk idle time before it starts over", dur: &c.KioskIdle, def: "60s"},
		{name: "listing-ttl", help: "how long a cinema's listing (sessions with free seats, films) is shared by every visitor before it is read again (then served for as long again while it is read in the background)", dur: &c.ListingTTL, def: "30s"},
		{name: "change-cutoff", help: "customers may change, refund or swap until this long before the show (staff at the counter until it starts)", dur: &c.ChangeCutoff, def: "30m"},
		{name: "change-cutoff-cinema", help: "per-cinema change cut-offs, CINEMA=DURATION comma-separated, e.g. 0001=2h,0002=45m", str: &c.ChangeCutoffBy},
		{name: "booking-status-map", help: "upstream bookingStatus numbers (NUMBER=kept|added|removed, comma-separated; default the sandbox's 0=kept,1=added,2=removed)", str: &c.BookingStatuses},
		{name: "payment-status-map", help: "upstream PaymentStatus letters (LETTER=pending|paid|declined|cancelled|refunded; default P,Y,N,C,R); unlisted letters are never success", str: &c.PaymentStatuses},
		{name: "upstream-header", env: envPrefix + "UPSTREAM_HEADERS", help: "extra header on every upstream call, 'Name: value' (repeatable; the environment variable holds one per line)", list: &c.UpstreamHeaders},
		{name: "upstream-idle-conns", help: "idle keep-alive connections kept to the ticketing API for reuse (size for the calls in flight in a burst; below 1: the default)", num: &c.UpstreamIdle, def: strconv.Itoa(upstream.DefaultMaxIdleConnsPerHost)},
		{name: "upstream-paths", help: "JSON file overriding upstream operation paths ({\"RemoveTickets\":\"POST RESTTicketing.svc/...\"})", str: &c.UpstreamPaths},
		{name: "collection-path", help: "upstream route that marks a booking's tickets collected, \"METHOD path\", e.g. \"POST RESTBooking.svc/booking/collected\" (default: none; the real ticketing API has no such operation, and the site records collections itself)", str: &c.CollectionPath},
		{name: "names-file", help: "JSON file naming ticket types, area categories, areas, offers and ratings by code in each language (docs/going-live.md; default: the embedded sandbox's with the sandbox, else none: names as the ticketing API sends them)", str: &c.NamesFile},
		{name: "language", help: "the site's language for a browser that asks for none of its languages (en or de)", str: &c.Language, def: "en"},
		{name: "time-zone", help: "time zone for a cinema whose TimeZoneId is absent or unknown", str: &c.TimeZone, def: "Europe/Berlin"},
		{name: "currency", help: "currency for a cinema that names none (ISO 4217)", str: &c.Currency, def: upstream.DefaultCurrency},
		{name: "tender-card", help: "PaymentTenderCategory of card payments taken by the payment provider", str: &c.TenderCard, def: upstream.DefaultTenders.Card},
		{name: "tender-giftcard", help: "PaymentTenderCategory of gift card payments", str: &c.TenderGiftCard, def: upstream.DefaultTenders.GiftCard},
		{name: "tender-loyalty", help: "PaymentTenderCategory of loyalty points payments", str: &c.TenderLoyalty, def: upstream.DefaultTenders.Loyalty},
		{name: "tender-terminal", help: "PaymentTenderCategory of payments on the box office's card terminal", str: &c.TenderTerminal, def: "CREDIT"},
		{name: "reader-location", help: "the payment provider's location (Stripe Terminal tml_…) new card readers are registered at (default: one named after the site, made when the first reader is registered)", str: &c.ReaderLocation},
		{name: "reader-country", help: "country (ISO 3166-1 alpha-2) of the location made for card readers when -reader-location is not set", str: &c.ReaderCountry, def: "DE"},
		{name: "tender-cash", help: "PaymentTenderCategory of cash taken at the box office", str: &c.TenderCash, def: "CASH"},
		{name: "refund-approval-above", help: "a clerk's refunds above this amount (e.g. 50.00), on any device, need a supervisor's username and PIN; a supervisor's own need none", str: &c.RefundApprovalAbove, def: "50.00"},
		{name: "print-stream-type", help: "PrintStreamType asked for when an order completes", str: &c.PrintStreamType, def: upstream.DefaultPrintStreamType},
		{name: "booking-modes", help: "the upstream's BookingMode numbers", str: &c.BookingModes, def: "sale=0,reservation=1"},
		{name: "attention-after", help: "an order whose redirect payment is still unconfirmed this long after it started is listed for staff under Needs attention", dur: &c.AttentionAfter, def: "10m"},
		{name: "order-watch-for", help: "how long an order whose redirect payment never completes is checked (growing interval, up to every 10 minutes) before it is given up and cancelled upstream", dur: &c.OrderWatchFor, def: "24h"},
		{name: "failed-order-policy", help: "what the page of a given-up order says about money taken for it, shown as written (default: a sentence that promises nothing)", str: &c.FailedOrderPolicy},
		{name: "max-seats-per-visit", help: "seats one visit may hold at a time: the tickets being bought and those added to a booking change (signed-in staff are exempt)", num: &c.MaxSeatsPerVisit, def: "10"},
		{name: "max-orders-per-client", help: "open purchase orders one client address may have at a time, counted in the database across replicas (signed-in staff are exempt)", num: &c.MaxOrdersPerClient, def: "3"},
		{name: "hold-lifetime", help: "how long an open order whose end is never seen counts against its client (at most; its expiry upstream when known)", dur: &c.HoldLifetime, def: "20m"},
		{name: "admit-per-minute", help: "new purchases let in per minute for the whole site (shared by the replicas through Redis); more visitors than that wait in a fair line (0: no line)", num: &c.AdmitPerMinute, def: "0"},
		{name: "admit-active", help: "purchases that may be open at once; more visitors than that wait in line until one ends (0: no limit)", num: &c.AdmitActive, def: "0"},
		{name: "sales-open", help: "when showtimes' sales open: SESSION=TIME comma-separated, e.g. 1011=2026-12-24T10:00:00+01:00 (CINEMA-SESSION for one cinema's); before it a countdown, and those who came before are let in in random order (default: none)", str: &c.SalesOpen},
		{name: "staff-idle", help: "a staff sign-in ends after this long without a request (the visit's own -session-idle still applies)", dur: &c.StaffIdle, def: "15m"},
		{name: "argon2-memory", help: "memory in MiB per staff password or PIN hash (argon2id); older hashes are upgraded at the next sign-in", num: &c.Argon2Memory, def: "64"},
		{name: "argon2-time", help: "argon2id passes per staff password or PIN hash", num: &c.Argon2Time, def: "3"},
		{name: "argon2-threads", help: "argon2id lanes per staff password or PIN hash", num: &c.Argon2Threads, def: "2"},
		{name: "sandbox-completion-delay", help: "embedded sandbox: delay before a paid redirect order completes (negative: never)", dur: &c.SandboxDelay, def: "1s"},
		{name: "sandbox-edits-stay-in-session", help: "embedded sandbox: refuse tickets of another session while editing a booking, like a ticketing API without showtime changes", on: &c.SandboxStay, def: "false"},
	}
	return append(settings, c.walletSettings()...)
}

// walletSettings are the settings of the passes for the phone's wallet.
func (c *Config) walletSettings() []setting {
	return []setting{
		{name: "apple-pass-type-id", help: "Apple Wallet pass type identifier (pass.com.example.tickets); with -apple-pass-cert", str: &c.ApplePassTypeID},
		{name: "apple-team-id", help: "Apple developer team id of the pass type", str: &c.AppleTeamID},
		{name: "apple-pass-cert", help: "PEM file of the pass type certificate (default: a generated TEST identity in <data-dir>)", str: &c.ApplePassCert},
		{name: "apple-pass-key", help: "PEM file of the pass type certificate's private key (unencrypted)", str: &c.ApplePassKey},
		{name: "apple-wwdr-cert", help: "PEM file of Apple's WWDR intermediate certificate that issued the pass type certificate", str: &c.AppleWWDRCert},
		{name: "apns-key", help: "APNs auth key (.p8 file) that tells phones a pass changed (default: changes are logged; phones see them when Wallet next asks)", str: &c.APNsKey},
		{name: "apns-key-id", help: "id of the APNs auth key", str: &c.APNsKeyID},
		{name: "apns-endpoint", help: "APNs endpoint", str: &c.APNsEndpoint, def: "https://api.push.apple.com"},
		{name: "google-wallet-issuer-id", help: "Google Wallet issuer id (default: a test issuer)", str: &c.GoogleIssuerID},
		{name: "google-wallet-class-id", help: "suffix of the Google Wallet event ticket class the tickets use", str: &c.GoogleClassID, def: "cinema-tickets"},
		{name: "google-wallet-service-account", help: "JSON key file of the Google service account that signs save links (default: a generated TEST key in <data-dir>)", str: &c.GoogleServiceAccount},
		{name: "google-wallet-api", help: "base URL of the Google Wallet API, through which saved tickets are patched after a change (default: Google's with -google-wallet-service-account; the embedded sandbox's stand-in on embedded defaults)", str: &c.GoogleWalletAPI},
		{name: "wallet-cinema-locations", help: "where each cinema is, so its passes show on the lock screen nearby: CINEMA=LATITUDE:LONGITUDE comma-separated, e.g. 0001=52.5219:13.4132 (default: none; the embedded sandbox's cinemas on embedded defaults)", str: &c.WalletLocations},
		{name: "google-wallet-token-url", help: "OAuth token URL of the service account's API calls (default: the key file's token_uri, else Google's)", str: &c.GoogleWalletTokenURL},
		{name: "wallet-link-valid-for", help: "a booking's Add to Apple Wallet and Add to Google Wallet links work until this long after its show (passes already in a wallet keep updating)", dur: &c.WalletLinkValidFor, def: "168h"},
	}
}

// envVar is the setting's environment variable: its own, or the flag's name (envName).
func (s setting) envVar() string {
	if s.env != "" {
		return s.env
	}
	return envName(s.name)
}

// envName is the environment variable of a flag: CINEMA_ plus the name in upper snake case.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseConfig reads flags (args) over environment (getenv) over defaults.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	return parseConfigWith(args, getenv, out, nil)
}

// parseConfigWith is parseConfig with extra flags registered by a subcommand (extra may be nil).
func parseConfigWith(args []string, getenv func(string) string, out io.Writer, extra func(*flag.FlagSet)) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(out)
	for _, s := range c.settings() {
		def := s.def
		if v := getenv(s.envVar()); v != "" {
			def = v
		}
		help := s.help + " [$" + s.envVar() + "]"
		if s.list != nil {
			*s.list = splitLines(def)
			fs.Var(&listFlag{vals: s.list}, s.name, help)
			continue
		}
		if s.str != nil {
			fs.StringVar(s.str, s.name, def, help)
			continue
		}
		if s.on != nil {
			b, err := strconv.ParseBool(strings.TrimSpace(def))
			if err != nil {
				return c, fmt.Errorf("%s: %q is not true or false: %w", s.envVar(), def, err)
			}
			fs.BoolVar(s.on, s.name, b, help)
			continue
		}
		if s.num != nil {
			n, err := strconv.Atoi(strings.TrimSpace(def))
			if err != nil {
				return c, fmt.Errorf("%s: %q is not a whole number: %w", s.envVar(), def, err)
			}
			fs.IntVar(s.num, s.name, n, help)
			continue
		}
		d, err := time.ParseDuration(def)
		if err != nil {
			return c, fmt.Errorf("%s: %q is not a duration (e.g. 30s, 5m): %w", s.envVar(), def, err)
		}
		fs.DurationVar(s.dur, s.name, d, help)
	}
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return c, c.complete()
}

// complete fills derived defaults and validates, one group of settings after another; the
// first problem stops it, naming the setting.
func (c *Config) complete() error {
	c.fillDefaults()
	for _, check := range []func() error{c.checkSite, c.checkMail, c.checkSessions, c.checkUpstream, c.checkWalletSettings,
		c.checkWords, c.checkOrders, c.checkStaffSettings} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// fillDefaults derives the settings whose defaults depend on others.
func (c *Config) fillDefaults() {
	if c.PublicURL == "" {
		host := c.Addr
		if strings.HasPrefix(host, ":") {
			host = "localhost" + host
		}
		c.PublicURL = "http://" + host
	}
	c.PublicURL = strings.TrimSuffix(c.PublicURL, "/")
	if c.DatabaseURL == "" {
		c.DatabaseURL = "sqlite:" + c.DataDir + string(os.PathSeparator) + "cinema.db"
	}
	if c.MailDir == "" {
		c.MailDir = filepath.Join(c.DataDir, "mail")
	}
	if c.SessionStore == "" {
		c.SessionStore = "sqlite"
		if strings.HasPrefix(c.DatabaseURL, "postgres") {
			c.SessionStore = "postgres"
		}
	}
	c.FailedOrderPolicy = strings.TrimSpace(c.FailedOrderPolicy)
}

// checkSite checks the site's own address, its metrics token, its proxies and its refund limit.
func (c *Config) checkSite() error {
	u, err := url.Parse(c.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("public URL %q must be an absolute http(s) URL", c.PublicURL)
	}
	if strings.ContainsAny(c.MetricsToken, " \t\r\n") {
		return errors.New("metrics-token must not contain spaces (it is sent as \"Authorization: Bearer <token>\")")
	}
	if _, err := c.refundApprovalCents(); err != nil {
		return err
	}
	_, err = c.proxies()
	return err
}

// checkMail checks the mail server's URL and the sender.
func (c *Config) checkMail() error {
	if c.SMTPURL != "" {
		if _, err := mail.NewSMTP(c.SMTPURL); err != nil {
			return err
		}
	}
	if _, err := netmail.ParseAddress(c.MailFrom); err != nil {
		return fmt.Errorf("mail-from %q: %w", c.MailFrom, err)
	}
	return nil
}

// checkSessions checks the session store and how long a visit lasts.
func (c *Config) checkSessions() error {
	switch c.SessionStore {
	case "sqlite", "postgres", "redis":
	default:
		return fmt.Errorf("session store %q: want sqlite, postgres or redis", c.SessionStore)
	}
	if c.SessionIdle <= 0 || c.SessionLifetime <= 0 || c.SessionIdle > c.SessionLifetime {
		return errors.New("session-idle and session-lifetime must be positive, idle not longer than lifetime")
	}
	return nil
}

// checkUpstream checks how the ticketing API is spoken to: its mappings, headers, paths and
// the collection route.
func (c *Config) checkUpstream() error {
	if _, err := upstream.ParseBookingStatusMapping(c.BookingStatuses); err != nil {
		return err
	}
	if _, err := upstream.ParsePaymentStatusMapping(c.PaymentStatuses); err != nil {
		return err
	}
	if _, err := upstream.ParseHeaders(c.UpstreamHeaders); err != nil {
		return err
	}
	if _, err := upstream.ParseBookingModes(c.BookingModes); err != nil {
		return err
	}
	if c.UpstreamPaths != "" {
		if _, err := upstream.LoadPaths(c.UpstreamPaths); err != nil {
			return err
		}
	}
	if c.CollectionPath != "" {
		if _, err := upstream.ParseRoute(c.CollectionPath); err != nil {
			return fmt.Errorf("-collection-path: %w", err)
		}
	}
	return nil
}

// checkWords checks the languages, the names catalog, the time zone and the change cut-off.
func (c *Config) checkWords() error {
	if _, err := c.languages(); err != nil {
		return err
	}
	if _, err := c.names(false); err != nil {
		return err
	}
	if _, err := time.LoadLocation(c.TimeZone); err != nil {
		return fmt.Errorf("time zone %q: %w", c.TimeZone, err)
	}
	_, err := c.changeWindow()
	return err
}

// checkOrders checks how long unconfirmed orders are watched and the seat hoarding limits.
func (c *Config) checkOrders() error {
	if c.AttentionAfter < time.Minute || c.AttentionAfter > c.OrderWatchFor {
		return fmt.Errorf("attention-after %v: give at least 1m and at most order-watch-for (the default is 10m)", c.AttentionAfter)
	}
	if c.OrderWatchFor < time.Minute {
		return fmt.Errorf("order-watch-for %v: give at least 1m (the default is 24h)", c.OrderWatchFor)
	}
	if c.MaxSeatsPerVisit < 1 || c.MaxOrdersPerClient < 1 {
		return fmt.Errorf("max-seats-per-visit %d and max-orders-per-client %d: give at least 1 (the defaults are 10 and 3)", c.MaxSeatsPerVisit, c.MaxOrdersPerClient)
	}
	if c.HoldLifetime < time.Minute {
		return fmt.Errorf("hold-lifetime %v: give at least 1m (the default is 20m)", c.HoldLifetime)
	}
	return c.checkAdmission()
}

// checkAdmission checks the admission line's limits and the sales openings.
func (c *Config) checkAdmission() error {
	if c.AdmitPerMinute < 0 || c.AdmitActive < 0 || c.AdmitPerMinute > admission.MaxPerMinute {
		return fmt.Errorf("admit-per-minute %d and admit-active %d: give 0 (no limit) or more, at most %d a minute", c.AdmitPerMinute, c.AdmitActive, admission.MaxPerMinute)
	}
	if _, err := admission.ParseOpenings(c.SalesOpen); err != nil {
		return fmt.Errorf("-sales-open / $%s: %w", envName("sales-open"), err)
	}
	return nil
}

// changeWindow is the change cut-off policy of ChangeCutoff and ChangeCutoffBy.
func (c *Config) changeWindow() (changewindow.Policy, error) {
	per, err := changewindow.ParsePerCinema(c.ChangeCutoffBy)
	if err != nil {
		return changewindow.Policy{}, fmt.Errorf("-change-cutoff-cinema / $%s: %w", envName("change-cutoff-cinema"), err)
	}
	p := changewindow.Policy{Default: c.ChangeCutoff, PerCinema: per}
	if err := p.Validate(); err != nil {
		return changewindow.Policy{}, fmt.Errorf("-change-cutoff / $%s: %w", envName("change-cutoff"), err)
	}
	return p, nil
}

// checkWalletSettings checks the wallet passes' settings that need no file.
func (c *Config) checkWalletSettings() error {
	if _, err := applepass.ParseLocations(c.WalletLocations); err != nil {
		return fmt.Errorf("-wallet-cinema-locations / $%s: %w", envName("wallet-cinema-locations"), err)
	}
	if c.WalletLinkValidFor < time.Hour {
		return fmt.Errorf("-wallet-link-valid-for / $%s %v: give at least 1h (the default is 168h, a week after the show)", envName("wallet-link-valid-for"), c.WalletLinkValidFor)
	}
	return nil
}

// proxies parses TrustedProxies.
func (c *Config) proxies() ([]*net.IPNet, error) {
	var nets []*net.IPNet
	for _, s := range strings.Split(c.TrustedProxies, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is not a CIDR (e.g. 10.0.0.0/8): %w", s, err)
		}
		nets = append(nets, n)
	}
	return nets, nil
}

// listFlag is a repeatable flag. The first value given on the command line replaces the
// environment's values; later ones add to it.
type listFlag struct {
	vals     *[]string
	fromFlag bool
}

// String never shows the values: a header value may be a secret.
func (l *listFlag) String() string {
	if l == nil || l.vals == nil {
		return ""
	}
	return fmt.Sprint(len(*l.vals), " values")
}

func (l *listFlag) Set(v string) error {
	if !l.fromFlag {
		*l.vals, l.fromFlag = nil, true
	}
	*l.vals = append(*l.vals, v)
	return nil
}

// splitLines splits an environment value holding one entry per line, skipping blank lines.
func splitLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// refundApprovalCents reads -refund-approval-above ("50", "50.00", "50,00") as cents.
func (c Config) refundApprovalCents() (int64, error) {
	v := strings.Replace(strings.TrimSpace(c.RefundApprovalAbove), ",", ".", 1)
	whole, frac, _ := strings.Cut(v, ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("refund-approval-above %q: at most two decimals", c.RefundApprovalAbove)
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || w < 0 || w > 1_000_000 {
		return 0, fmt.Errorf("refund-approval-above %q: want an amount such as 50.00", c.RefundApprovalAbove)
	}
	return w*100 + f, nil
}

// languages loads the message catalogs with -language as the fallback.
// names is the operator's names catalog: -names-file, else the embedded sandbox's when the site
// runs on it (embedded), else nil (every name as the ticketing API sends it).
func (c Config) names(embedded bool) (*names.Catalog, error) {
	switch {
	case c.NamesFile != "":
		cat, err := names.Load(c.NamesFile)
		if err != nil {
			return nil, fmt.Errorf("-names-file: %w", err)
		}
		return cat, nil
	case embedded:
		cat, err := names.Parse(sandbox.NamesCatalog)
		if err != nil {
			return nil, fmt.Errorf("the embedded sandbox's names: %w", err)
		}
		return cat, nil
	}
	return nil, nil
}

func (c Config) languages() (*i18n.Catalog, error) {
	tag, ok := i18n.Supported(c.Language)
	if !ok {
		return nil, fmt.Errorf("language %q: the site speaks %v", c.Language, i18n.Languages)
	}
	return i18n.Load(tag)
}
