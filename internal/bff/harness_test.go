package bff

import (
	"cmp"
	"context"
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
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/alexedwards/scs/v2"

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
	"github.com/cinemabff/cinemabff/static"
)

// countingStore counts writes to the session store; it keeps the context-aware methods of the
// store it wraps (the Redis store has only those working).
type countingStore struct {
	scs.Store
	commits atomic.Int64
}

var _ scs.CtxStore = (*countingStore)(nil)

func (c *countingStore) Commit(token string, b []byte, expiry time.Time) error {
	return c.CommitCtx(context.Background(), token, b, expiry)
}

func (c *countingStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	c.commits.Add(1)
	if cs, ok := c.Store.(scs.CtxStore); ok {
		return cs.CommitCtx(ctx, token, b, expiry)
	}
	return c.Store.Commit(token, b, expiry)
}

func (c *countingStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	if cs, ok := c.Store.(scs.CtxStore); ok {
		return cs.FindCtx(ctx, token)
	}
	return c.Store.Find(token)
}

func (c *countingStore) DeleteCtx(ctx context.Context, token string) error {
	if cs, ok := c.Store.(scs.CtxStore); ok {
		return cs.DeleteCtx(ctx, token)
	}
	return c.Store.Delete(token)
}

type harnessOpts struct {
	sandbox         bool          // start the sandbox upstream and payment provider
	clock           sandbox.Clock // sandbox clock (nil: real time)
	completionDelay time.Duration // sandbox connector delay (0: 20ms)
	now             func() time.Time
	kioskIdle       time.Duration
	databaseURL     string
	sessionStore    storage.SessionStoreKind
	redisURL        string
	publicURL       string
	keys            []keys.Pair
	breaker         *upstream.BreakerSettings // the ticketing client's breaker (nil: the default)
	callTimeout     time.Duration             // the ticketing client's own timeout of a call (0: 5 s)
	// upstreamURL points the server at a sandbox that is already running (another process's):
	// its ticketing API there, its payment provider under /pay. wrapPayments wraps the provider.
	upstreamURL  string
	wrapPayments func(upstream.Payments) upstream.Payments
	golden       *goldenapi.Server // an upstream answering with the golden bodies of the real wire
	goldenToken  string            // the token the BFF sends to it (default: testToken)
	// mailTransport delivers customer e-mail (nil: .eml files in the harness's mailDir).
	mailTransport mail.Transport
	mailBackoff   func(attempt int) time.Duration // nil: the default
	// trustedProxies believe X-Forwarded-For from these senders (the test client: loopback),
	// so a test can speak as several client addresses.
	trustedProxies []*net.IPNet
	metricsToken   string // opens /metrics on the site (Config.MetricsToken)
	// upstreamTransport wraps the transport of the sandbox's ticketing client (nil: as it is).
	upstreamTransport  func(next http.RoundTripper) http.RoundTripper
	maxOrdersPerClient int           // Config.MaxOrdersPerClient (0: the default)
	attentionAfter     time.Duration // Config.AttentionAfter (0: the default)
	// markCollected: the operator configured the upstream's collection route
	// (Config.MarkCollectedUpstream, -collection-path); false: the site records collections alone.
	markCollected bool
	logger        *slog.Logger // the server's logger (nil: discarded, or stderr with TEST_LOG)
}

type harness struct {
	t        testing.TB
	sb       *sandbox.Server
	prov     *payprovider.Provider
	upURL    string // sandbox base URL
	srv      *Server
	db       *storage.DB // the site's database, for tests that read what was stored
	ts       *httptest.Server
	store    *countingStore
	client   *http.Client
	mailDir  string   // where the default transport writes .eml files
	mailDeps MailDeps // as given to the server
	// dropAfter makes the payment provider process the next n API writes and then drop the
	// connection without an answer (the request happened; the caller cannot know).
	dropAfter *atomic.Int32
}

// newHarness starts the real server on a random port with the given stores.
func newHarness(t testing.TB, o harnessOpts) *harness {
	t.Helper()
	ctx := context.Background()
	if o.databaseURL == "" {
		o.databaseURL = "sqlite:" + filepath.Join(t.TempDir(), "test.db")
	}
	if o.sessionStore == "" {
		o.sessionStore = storage.SessionsSQLite
	}
	db, err := storage.Open(ctx, o.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewSessionStore(ctx, o.sessionStore, db, o.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cs := &countingStore{Store: st.Store}
	if o.keys == nil {
		k, err := keys.Generate()
		if err != nil {
			t.Fatal(err)
		}
		o.keys, _ = keys.Parse(k)
	}
	assets, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	if o.publicURL == "" {
		o.publicURL = "http://127.0.0.1"
	}
	pu, _ := url.Parse(o.publicURL)
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if o.logger != nil {
		logger = o.logger
	}
	h := &harness{t: t, dropAfter: new(atomic.Int32), db: db}
	bg, stopBackground := context.WithCancel(context.Background())
	t.Cleanup(stopBackground) // background watchers end with the test
	deps := Deps{
		Background:   bg,
		Config:       Config{SiteName: "Test Cinemas", PublicURL: pu, KioskIdle: o.kioskIdle, TrustedProxies: o.trustedProxies, PasswordHashing: testPasswordHashing},
		Logger:       logger,
		DB:           db,
		Storage:      db,
		SessionStore: cs,
		Device:       device.NewStore(o.keys, pu.Scheme == "https"),
		CSRFKeys:     web.CSRFKeys(o.keys),
		Assets:       assets,
		Now:          o.now,
	}
	deps.Config.MetricsToken, deps.Config.MaxOrdersPerClient = o.metricsToken, o.maxOrdersPerClient
	deps.Config.AttentionAfter = o.attentionAfter
	deps.Config.MarkCollectedUpstream = o.markCollected
	h.mailDir = filepath.Join(t.TempDir(), "mail")
	deps.Mail = MailDeps{TicketKey: keys.Derive(o.keys[0], "ticket-codes"), Transport: o.mailTransport, From: "Test Cinemas <tickets@test.example>",
		Backoff: o.mailBackoff}
	if deps.Mail.Transport == nil {
		deps.Mail.Transport, deps.Mail.Dir, deps.Mail.ShowMailbox = mail.NewDir(h.mailDir), h.mailDir, true
	}
	h.mailDeps = deps.Mail
	if o.sandbox {
		h.startSandbox(&deps, o)
	}
	if o.golden != nil {
		h.startGolden(&deps, o)
	}
	if o.upstreamURL != "" {
		c, err := upstream.New(o.upstreamURL, testToken, upstream.WithTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: o.upstreamURL + "/pay", SecretKey: testPayKey, Retries: ptrTo(int64(0))})
		if err != nil {
			t.Fatal(err)
		}
		deps.Ticketing, deps.Payments, h.upURL = c, p, o.upstreamURL
	}
	if o.wrapPayments != nil {
		deps.Payments = o.wrapPayments(deps.Payments)
	}
	// The site's own URL is only known once it listens; the public URL must match it so the
	// payment provider returns here.
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	t.Cleanup(ts.Close)
	if h.prov != nil {
		h.prov.SetWebhookURL(ts.URL + "/payments/webhook") // the provider's events come to the site
	}
	if o.publicURL == "http://127.0.0.1" {
		deps.Config.PublicURL, _ = url.Parse(ts.URL)
	}
	s, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	h.srv, h.ts, h.store, h.client = s, ts, cs, client
	return h
}

const (
	testToken         = "bff-test-token"
	testPayKey        = "sk_test_bff"
	testWebhookSecret = "whsec_bff_test"
)

func ptrTo[T any](v T) *T { return &v }

// startSandbox runs the sandbox ticketing API and payment provider on their own port, as a
// real upstream would be, and points the server's clients at them.
func (h *harness) startSandbox(d *Deps, o harnessOpts) {
	t := h.t
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	prov := payprovider.New(payprovider.Options{PublicURL: srv.URL + "/pay", APIKey: testPayKey, WebhookSecret: testWebhookSecret,
		WebhookBackoff: 20 * time.Millisecond})
	t.Cleanup(prov.Close)
	delay := o.completionDelay
	if delay == 0 {
		delay = 20 * time.Millisecond
	}
	sb, err := sandbox.New(sandbox.Options{Token: testToken, Clock: o.clock, CompletionDelay: delay, Payments: prov})
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox's names catalog, as the embedded default uses it.
	if d.Names, err = names.Parse(sandbox.NamesCatalog); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	mux.Handle("/pay/", http.StripPrefix("/pay", h.dropping(prov.Handler())))
	mux.Handle("/", sb.Handler())
	opts := []upstream.Option{
		upstream.WithTimeout(cmp.Or(o.callTimeout, 5*time.Second)),
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}),
	}
	if o.breaker != nil {
		opts = append(opts, upstream.WithBreaker(*o.breaker))
	}
	if o.upstreamTransport != nil {
		opts = append(opts, upstream.WithHTTPClient(&http.Client{Transport: o.upstreamTransport(upstream.NewTransport(0))}))
	}
	c, err := upstream.New(srv.URL, testToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListCinemas(context.Background()); err != nil {
		t.Fatal(err)
	}
	p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: srv.URL + "/pay", SecretKey: testPayKey, WebhookSecret: testWebhookSecret,
		Timeout: 5 * time.Second, Retries: ptrTo(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	d.Ticketing, d.Payments, d.Webhooks = c, p, p
	d.Config.FormActionOrigins = []string{srv.URL}
	h.sb, h.prov, h.upURL = sb, prov, srv.URL
}

// dropping serves next, except that while dropAfter is set an API write (POST /v1/...) is
// processed in full and then the connection is closed without the answer.
func (h *harness) dropping(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/") || h.dropAfter == nil || h.dropAfter.Load() <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		h.dropAfter.Add(-1)
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

// startGolden points the server at an upstream written from upstream-notes (internal/goldenapi)
// instead of our sandbox.
func (h *harness) startGolden(d *Deps, o harnessOpts) {
	t := h.t
	srv := httptest.NewServer(o.golden)
	t.Cleanup(srv.Close)
	token := o.goldenToken
	if token == "" {
		token = testToken
	}
	c, err := upstream.New(srv.URL, token, upstream.WithTimeout(5*time.Second),
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	prov := payprovider.New(payprovider.Options{PublicURL: srv.URL + "/pay", APIKey: testPayKey, AdoptUnknownPayments: true})
	t.Cleanup(prov.Close)
	pay := httptest.NewServer(http.StripPrefix("/pay", prov.Handler()))
	t.Cleanup(pay.Close)
	p, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: pay.URL + "/pay", SecretKey: testPayKey, Retries: ptrTo(int64(0))})
	if err != nil {
		t.Fatal(err)
	}
	d.Ticketing, d.Payments = c, p
	h.upURL = srv.URL
}

// do sends a request and returns the response with its body read.
func (h *harness) do(method, path string, form url.Values, header http.Header) (*http.Response, string) {
	h.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, h.ts.URL+path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp, string(b)
}

func (h *harness) get(path string) (*http.Response, string) { return h.do("GET", path, nil, nil) }

// csrfToken scrapes the CSRF token from a page's form.
func (h *harness) csrfToken(path string) string {
	h.t.Helper()
	_, body := h.get(path)
	doc := h.doc(body)
	tok, ok := doc.Find(`input[name="_csrf"]`).First().Attr("value")
	if !ok || tok == "" {
		h.t.Fatalf("no CSRF token on %s", path)
	}
	return tok
}

// post submits a form with the CSRF token scraped from tokenPage.
func (h *harness) post(path, tokenPage string, form url.Values) (*http.Response, string) {
	h.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", h.csrfToken(tokenPage))
	return h.do("POST", path, form, nil)
}

func (h *harness) doc(body string) *goquery.Document {
	h.t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	return d
}

func (h *harness) cookie(name string) *http.Cookie {
	u, _ := url.Parse(h.ts.URL)
	for _, c := range h.client.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}
