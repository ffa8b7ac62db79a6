// Package bfftest starts the whole site (the server of internal/bff with its stores, the sandbox
// ticketing API and payment provider, a mail folder) on a random port for the HTTP tests of each
// flow, and holds what those tests share: a visitor with a cookie jar that posts forms with their
// CSRF token, the fixture bookings, staff accounts and enrolled devices, and helpers that walk a
// purchase or an edit to a given step. Browser tests (internal/bff/browser) use it too; it never
// imports a browser driver, so a flow's tests build without one.
package bfftest

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/goldenapi"
	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wallet/apns"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlewallet"
	"github.com/cinemabff/cinemabff/static"
)

// CountingStore counts writes to the session store; it keeps the context-aware methods of the
// store it wraps (the Redis store has only those working).
type CountingStore struct {
	scs.Store
	Commits atomic.Int64
}

func (c *CountingStore) Commit(token string, b []byte, expiry time.Time) error {
	return c.CommitCtx(context.Background(), token, b, expiry)
}

func (c *CountingStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	c.Commits.Add(1)
	if cs, ok := c.Store.(scs.CtxStore); ok {
		return cs.CommitCtx(ctx, token, b, expiry)
	}
	return c.Store.Commit(token, b, expiry)
}

func (c *CountingStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	if cs, ok := c.Store.(scs.CtxStore); ok {
		return cs.FindCtx(ctx, token)
	}
	return c.Store.Find(token)
}

func (c *CountingStore) DeleteCtx(ctx context.Context, token string) error {
	if cs, ok := c.Store.(scs.CtxStore); ok {
		return cs.DeleteCtx(ctx, token)
	}
	return c.Store.Delete(token)
}

type HarnessOpts struct {
	Sandbox         bool          // start the sandbox upstream and payment provider
	Clock           sandbox.Clock // sandbox clock (nil: real time)
	CompletionDelay time.Duration // sandbox connector delay (0: 20ms)
	Now             func() time.Time
	KioskIdle       time.Duration
	DatabaseURL     string
	SessionStore    storage.SessionStoreKind
	RedisURL        string
	PublicURL       string
	Keys            []keys.Pair
	Breaker         *upstream.BreakerSettings // the ticketing client's breaker (nil: the default)
	CallTimeout     time.Duration             // the ticketing client's own timeout of a call (0: 5 s)
	// upstreamURL points the server at a sandbox that is already running (another process's):
	// its ticketing API there, its payment provider under /pay. wrapPayments wraps the provider.
	UpstreamURL  string
	WrapPayments func(upstream.Payments) upstream.Payments
	Golden       *goldenapi.Server // an upstream answering with the golden bodies of the real wire
	GoldenToken  string            // the token the BFF sends to it (default: testToken)
	// mailTransport delivers customer e-mail (nil: .eml files in the harness's mailDir).
	MailTransport mail.Transport
	MailBackoff   func(attempt int) time.Duration // nil: the default
	// trustedProxies believe X-Forwarded-For from these senders (the test client: loopback),
	// so a test can speak as several client addresses.
	TrustedProxies []*net.IPNet
	MetricsToken   string // opens /metrics on the site (Config.MetricsToken)
	// upstreamTransport wraps the transport of the sandbox's ticketing client (nil: as it is).
	UpstreamTransport  func(next http.RoundTripper) http.RoundTripper
	MaxOrdersPerClient int           // Config.MaxOrdersPerClient (0: the default)
	AttentionAfter     time.Duration // Config.AttentionAfter (0: the default)
	// markCollected: the operator configured the upstream's collection route
	// (Config.MarkCollectedUpstream, -collection-path); false: the site records collections alone.
	MarkCollected bool
	Logger        *slog.Logger // the server's logger (nil: discarded, or stderr with TEST_LOG)
	// Admission is the site's admission line (nil: the process's, when Configure asks for one);
	// two harnesses given lines on one Redis are two replicas of one site.
	Admission admission.Queue
	// Configure changes the site's settings before the server is built (nil: the defaults
	// above), e.g. the refund approval limit or the failed-order policy.
	Configure func(*bff.Config)
}

type Harness struct {
	T           testing.TB
	SB          *sandbox.Server
	Prov        *payprovider.Provider
	UpstreamURL string // sandbox base URL
	Srv         *bff.Server
	DB          *storage.DB // the site's database, for tests that read what was stored
	TS          *httptest.Server
	Store       *CountingStore
	Client      *http.Client
	MailDir     string       // where the default transport writes .eml files
	MailDeps    bff.MailDeps // as given to the server
	// dropAfter makes the payment provider process the next n API writes and then drop the
	// connection without an answer (the request happened; the caller cannot know).
	DropAfter *atomic.Int32
	// Pushes records what APNs was asked to push (a stand-in speaking HTTP/2, as APNs does).
	Pushes *apns.Recorder
	// Google records what the Google Wallet API was asked (a stand-in, with its token endpoint).
	Google *googlewallet.Recorder
}

// NewHarness starts the real server on a random port with the given stores.
func NewHarness(t testing.TB, o HarnessOpts) *Harness {
	t.Helper()
	db, cs := openHarnessStores(t, &o)
	if o.Keys == nil {
		k, err := keys.Generate()
		if err != nil {
			t.Fatal(err)
		}
		o.Keys, _ = keys.Parse(k)
	}
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	if o.PublicURL == "" {
		o.PublicURL = "http://127.0.0.1"
	}
	h := &Harness{T: t, DropAfter: new(atomic.Int32), DB: db}
	deps := h.siteDeps(o, db, cs, assets)
	h.addMail(&deps, o)
	h.addWallet(&deps, o)
	h.addUpstreams(&deps, o)
	h.serve(deps, o, cs)
	return h
}

// openHarnessStores opens and migrates the site's database (a fresh SQLite file unless o
// names one) and its session store, counted.
func openHarnessStores(t testing.TB, o *HarnessOpts) (*storage.DB, *CountingStore) {
	ctx := context.Background()
	if o.DatabaseURL == "" {
		o.DatabaseURL = "sqlite:" + filepath.Join(t.TempDir(), "test.db")
	}
	if o.SessionStore == "" {
		o.SessionStore = storage.SessionsSQLite
	}
	db, err := storage.Open(ctx, o.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewSessionStore(ctx, o.SessionStore, db, o.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return db, &CountingStore{Store: st.Store}
}

// harnessLogger is the server's logger: o's, else stderr with TEST_LOG, else discarded.
func harnessLogger(o HarnessOpts) *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	if os.Getenv("TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.DiscardHandler)
}

// siteDeps are the server's dependencies before mail, wallet and upstreams: its settings
// (o's, then Configure), stores, keys and assets; its background work ends with the test.
func (h *Harness) siteDeps(o HarnessOpts, db *storage.DB, cs *CountingStore, assets *static.Assets) bff.Deps {
	pu, _ := url.Parse(o.PublicURL)
	bg, stopBackground := context.WithCancel(context.Background())
	h.T.Cleanup(stopBackground) // background watchers end with the test
	deps := bff.Deps{
		Background: bg,
		Config: bff.Config{Config: web.Config{SiteName: "Test Cinemas", PublicURL: pu, TrustedProxies: o.TrustedProxies},
			KioskIdle: o.KioskIdle, PasswordHashing: TestPasswordHashing},
		Logger:       harnessLogger(o),
		DB:           db,
		Storage:      db,
		SessionStore: cs,
		Device:       device.NewStore(o.Keys, pu.Scheme == "https"),
		CSRFKeys:     web.CSRFKeys(o.Keys),
		Assets:       assets,
		Now:          o.Now,
		Admission:    o.Admission,
	}
	deps.Config.MetricsToken, deps.Config.MaxOrdersPerClient = o.MetricsToken, o.MaxOrdersPerClient
	deps.Config.AttentionAfter = o.AttentionAfter
	deps.Config.MarkCollectedUpstream = o.MarkCollected
	if o.Configure != nil {
		o.Configure(&deps.Config)
	}
	return deps
}

// addMail sends the site's mail through o's transport, else into .eml files in h.MailDir
// (with the mailbox page shown).
func (h *Harness) addMail(deps *bff.Deps, o HarnessOpts) {
	h.MailDir = filepath.Join(h.T.TempDir(), "mail")
	deps.Mail = bff.MailDeps{TicketKey: keys.Derive(o.Keys[0], "ticket-codes"), Transport: o.MailTransport, From: "Test Cinemas <tickets@test.example>",
		Backoff: o.MailBackoff}
	if deps.Mail.Transport == nil {
		deps.Mail.Transport, deps.Mail.Dir, deps.Mail.ShowMailbox = mail.NewDir(h.MailDir), h.MailDir, true
	}
	h.MailDeps = deps.Mail
}

// addWallet gives the site wallet passes, with stand-ins for APNs and the Google Wallet API
// that record what they are asked.
func (h *Harness) addWallet(deps *bff.Deps, o HarnessOpts) {
	t := h.T
	deps.Wallet = WalletDeps(t, o.Keys[0])
	deps.Wallet.TokenKey = keys.Derive(o.Keys[0], "wallet-pass-tokens")
	h.Pushes, deps.Wallet.Pusher = apnsStandIn(t)
	h.Google, deps.Wallet.GoogleAPI = googleStandIn(t, deps.Wallet.GoogleKey)
}

// addUpstreams points the site at its ticketing API and payment provider: the sandbox, the
// golden upstream, or o.UpstreamURL, with the payments wrapped when o asks.
func (h *Harness) addUpstreams(deps *bff.Deps, o HarnessOpts) {
	t := h.T
	if o.Sandbox {
		h.StartSandbox(deps, o)
	}
	if o.Golden != nil {
		h.StartGolden(deps, o)
	}
	if o.UpstreamURL != "" {
		c, err := upstream.New(o.UpstreamURL, TestToken, upstream.WithTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: o.UpstreamURL + "/pay", SecretKey: TestPayKey, Retries: PtrTo(int64(0))})
		if err != nil {
			t.Fatal(err)
		}
		deps.Ticketing, deps.Payments, h.UpstreamURL = c, p, o.UpstreamURL
	}
	if o.WrapPayments != nil {
		deps.Payments = o.WrapPayments(deps.Payments)
	}
}

// serve builds the server and serves it on a random port, with a client that keeps cookies
// and does not follow redirects.
func (h *Harness) serve(deps bff.Deps, o HarnessOpts, cs *CountingStore) {
	t := h.T
	// The site's own URL is only known once it listens; the public URL must match it so the
	// payment provider returns here.
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	if h.Prov != nil {
		h.Prov.SetWebhookURL(ts.URL + "/payments/webhook") // the provider's events come to the site
	}
	if o.PublicURL == "http://127.0.0.1" {
		deps.Config.PublicURL, _ = url.Parse(ts.URL)
	}
	s, err := bff.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	h.Srv, h.TS, h.Store, h.Client = s, ts, cs, client
}

const (
	TestToken         = "bff-test-token"
	TestPayKey        = "sk_test_bff"
	TestWebhookSecret = "whsec_bff_test"
)

func PtrTo[T any](v T) *T { return &v }

// StartSandbox runs the sandbox ticketing API and payment provider on their own port, as a
// real upstream would be, and points the server's clients at them.
func (h *Harness) StartSandbox(d *bff.Deps, o HarnessOpts) {
	t := h.T
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	prov := payprovider.New(payprovider.Options{PublicURL: srv.URL + "/pay", APIKey: TestPayKey, WebhookSecret: TestWebhookSecret,
		WebhookBackoff: 20 * time.Millisecond})
	t.Cleanup(prov.Close)
	delay := o.CompletionDelay
	if delay == 0 {
		delay = 20 * time.Millisecond
	}
	sb, err := sandbox.New(sandbox.Options{Token: TestToken, Clock: o.Clock, CompletionDelay: delay, Payments: prov})
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox's names catalog, as the embedded default uses it.
	if d.Names, err = names.Parse(sandbox.NamesCatalog); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	mux.Handle("/pay/", http.StripPrefix("/pay", h.Dropping(prov.Handler())))
	mux.Handle("/", sb.Handler())
	opts := []upstream.Option{
		upstream.WithTimeout(cmp.Or(o.CallTimeout, 5*time.Second)),
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}),
	}
	if o.Breaker != nil {
		opts = append(opts, upstream.WithBreaker(*o.Breaker))
	}
	if o.UpstreamTransport != nil {
		opts = append(opts, upstream.WithHTTPClient(&http.Client{Transport: o.UpstreamTransport(upstream.NewTransport(0))}))
	}
	c, err := upstream.New(srv.URL, TestToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListCinemas(context.Background()); err != nil {
		t.Fatal(err)
	}
	p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: srv.URL + "/pay", SecretKey: TestPayKey, WebhookSecret: TestWebhookSecret,
		Timeout: 5 * time.Second, Retries: PtrTo(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	d.Ticketing, d.Payments, d.Webhooks = c, p, p
	d.Config.FormActionOrigins = []string{srv.URL}
	h.SB, h.Prov, h.UpstreamURL = sb, prov, srv.URL
}

// Dropping serves next, except that while dropAfter is set an API write (POST /v1/...) is
// processed in full and then the connection is closed without the answer.
func (h *Harness) Dropping(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/") || h.DropAfter == nil || h.DropAfter.Load() <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		h.DropAfter.Add(-1)
		next.ServeHTTP(httptest.NewRecorder(), r) // the provider does it
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close() // and the answer is lost
				return
			}
		}
		panic(http.ErrAbortHandler)
	})
}

// StartGolden points the server at an upstream written from upstream-notes (internal/goldenapi)
// instead of our sandbox.
func (h *Harness) StartGolden(d *bff.Deps, o HarnessOpts) {
	t := h.T
	srv := httptest.NewServer(o.Golden)
	t.Cleanup(srv.Close)
	token := o.GoldenToken
	if token == "" {
		token = TestToken
	}
	c, err := upstream.New(srv.URL, token, upstream.WithTimeout(5*time.Second),
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	prov := payprovider.New(payprovider.Options{PublicURL: srv.URL + "/pay", APIKey: TestPayKey, AdoptUnknownPayments: true})
	t.Cleanup(prov.Close)
	pay := httptest.NewServer(http.StripPrefix("/pay", prov.Handler()))
	t.Cleanup(pay.Close)
	p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: pay.URL + "/pay", SecretKey: TestPayKey, Retries: PtrTo(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	d.Ticketing, d.Payments = c, p
	h.UpstreamURL = srv.URL
}

// Do sends a request and returns the response with its body read.
func (h *Harness) Do(method, path string, form url.Values, header http.Header) (*http.Response, string) {
	h.T.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, h.TS.URL+path, body)
	if err != nil {
		h.T.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.T.Fatal(err)
	}
	return resp, string(b)
}

func (h *Harness) Get(path string) (*http.Response, string) { return h.Do("GET", path, nil, nil) }

func (h *Harness) Doc(body string) *goquery.Document {
	h.T.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		h.T.Fatal(err)
	}
	return d
}

func (h *Harness) Cookie(name string) *http.Cookie {
	u, _ := url.Parse(h.TS.URL)
	for _, c := range h.Client.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

type GoquerySel = goquery.Selection

func DocFrom(t testing.TB, r *http.Response) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// AddSessionProbe adds routes that write, read and renew a session value.
func AddSessionProbe(h *Harness) {
	h.Srv.Echo.POST("/test/put", func(c echo.Context) error {
		h.Srv.Kernel.Sessions.Put(c.Request().Context(), "probe", c.FormValue("v"))
		return c.String(http.StatusOK, "stored")
	})
	h.Srv.Echo.GET("/test/get", func(c echo.Context) error {
		return c.String(http.StatusOK, h.Srv.Kernel.Sessions.GetString(c.Request().Context(), "probe"))
	})
	h.Srv.Echo.POST("/test/renew", func(c echo.Context) error {
		if err := h.Srv.Kernel.RenewSession(c); err != nil {
			return err
		}
		return c.String(http.StatusOK, "renewed")
	})
}

// walletIdentities are the test binary's wallet signing identities, made once: an RSA key takes
// a while, and every harness signs with the same ones.
var walletIdentities struct {
	once   sync.Once
	apple  applepass.Identity
	google googlepass.ServiceAccount
	err    error
}

// WalletDeps are the wallet passes of a harness: links signed with a key derived from k, the
// test binary's Apple test identity and Google test key, and a test issuer.
func WalletDeps(t testing.TB, k keys.Pair) bff.WalletDeps {
	t.Helper()
	apple, google := WalletIdentities(t)
	return bff.WalletDeps{LinkKey: keys.Derive(k, "wallet-links"), Apple: apple, GoogleKey: google,
		Google: googlepass.Issuer{ID: TestGoogleIssuer, ClassID: "cinema-tickets", Origins: []string{"http://127.0.0.1"}}}
}

// WalletIdentities are the test binary's Apple test identity and Google test key.
func WalletIdentities(t testing.TB) (applepass.Identity, googlepass.ServiceAccount) {
	t.Helper()
	walletIdentities.once.Do(func() {
		dir, err := os.MkdirTemp("", "bfftest-wallet-")
		if err != nil {
			walletIdentities.err = err
			return
		}
		defer os.RemoveAll(dir) // what the files hold is read by then
		if walletIdentities.apple, _, err = applepass.GenerateTestIdentity(dir, time.Now()); err != nil {
			walletIdentities.err = err
			return
		}
		walletIdentities.google, walletIdentities.err = googlepass.GenerateTestServiceAccount(dir)
	})
	if walletIdentities.err != nil {
		t.Fatalf("wallet test identities: %v", walletIdentities.err)
	}
	return walletIdentities.apple, walletIdentities.google
}

// TestGoogleIssuer is the harness's Google Wallet issuer id.
const TestGoogleIssuer = "3388000000012345678"

// googleStandIn is a Google Wallet API stand-in on a local port that hands tokens only to sa,
// and a client of it.
func googleStandIn(t testing.TB, sa googlepass.ServiceAccount) (*googlewallet.Recorder, *googlewallet.Client) {
	t.Helper()
	rec := googlewallet.NewRecorder(&sa.Key.PublicKey)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	c, err := googlewallet.New(context.Background(), googlewallet.Options{BaseURL: srv.URL, TokenURL: srv.URL + "/token", Account: sa, Backoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return rec, c
}

// apnsStandIn is an APNs stand-in on a local port (unencrypted HTTP/2) and a push client that
// speaks to it with a token of a fresh key.
func apnsStandIn(t testing.TB) (*apns.Recorder, *apns.Client) {
	t.Helper()
	rec := apns.NewRecorder()
	url, stop, err := rec.Serve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return rec, &apns.Client{Endpoint: url, Topic: applepass.TestPassTypeID, MaxAttempts: 2,
		Auth: &apns.TokenAuth{KeyID: "TESTKEY123", TeamID: applepass.TestTeamID, Key: key}}
}
