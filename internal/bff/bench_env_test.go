package bff

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/keys"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/static"
)

// benchSite is the host of the server under benchmark; requests to it never touch the network.
const benchSite = "http://bff.bench"

// benchEnv is the whole server with its upstream answered in memory, for benchmarks. The
// sandbox serves the setup (its writes happen for real); once replay is on, every upstream
// answer is recorded the first time and replayed after, so a page's ns/op is the BFF's own
// work and not the sandbox's.
type benchEnv struct {
	srv      *Server
	sb       *sandbox.Server
	store    *countingStore
	upstream *replayTransport
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	quiet := slog.New(slog.DiscardHandler)
	if _, err := db.Migrate(ctx, quiet); err != nil {
		b.Fatal(err)
	}
	st, err := storage.NewSessionStore(ctx, storage.SessionsSQLite, db, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	k, err := keys.Generate()
	if err != nil {
		b.Fatal(err)
	}
	cookieKeys, err := keys.Parse(k)
	if err != nil {
		b.Fatal(err)
	}
	assets, err := static.New()
	if err != nil {
		b.Fatal(err)
	}

	// The payment provider is only used while setting up (pressing Pay): it keeps a real port,
	// as stripe-go makes its own HTTP client.
	payMux := http.NewServeMux()
	paySrv := httptest.NewServer(payMux)
	b.Cleanup(paySrv.Close)
	prov := payprovider.New(payprovider.Options{PublicURL: paySrv.URL + "/pay", APIKey: testPayKey, WebhookSecret: testWebhookSecret})
	b.Cleanup(prov.Close)
	payMux.Handle("/pay/", http.StripPrefix("/pay", prov.Handler()))
	// The connector never completes a paid order, so the return page keeps polling.
	sb, err := sandbox.New(sandbox.Options{Token: testToken, CompletionDelay: -1, Payments: prov, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sb.Close)
	rt := &replayTransport{next: sb.Handler(), answers: map[string]recordedAnswer{}}
	ticketing, err := upstream.New("http://upstream.bench", testToken, upstream.WithHTTPClient(&http.Client{Transport: rt}),
		upstream.WithTimeout(5*time.Second), upstream.WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	payments, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: paySrv.URL + "/pay", SecretKey: testPayKey,
		WebhookSecret: testWebhookSecret, Timeout: 5 * time.Second, Retries: ptrTo(int64(0))})
	if err != nil {
		b.Fatal(err)
	}

	bg, stop := context.WithCancel(context.Background())
	b.Cleanup(stop)
	pu, _ := url.Parse(benchSite)
	cs := &countingStore{Store: st.Store}
	mailDir := filepath.Join(b.TempDir(), "mail")
	s, err := New(Deps{
		Background: bg,
		Config: Config{SiteName: "Bench Cinemas", PublicURL: pu, PasswordHashing: testPasswordHashing,
			FormActionOrigins: []string{paySrv.URL}, MaxOrdersPerClient: 1000},
		Logger:       quiet,
		DB:           db,
		SQL:          db.SQL,
		SessionStore: cs,
		Device:       device.NewStore(cookieKeys, false),
		Assets:       assets,
		Ticketing:    ticketing,
		Payments:     payments,
		Webhooks:     payments,
		Mail: MailDeps{TicketKey: keys.Derive(cookieKeys[0], "ticket-codes"), Transport: mail.NewDir(mailDir), Dir: mailDir,
			From: "Bench Cinemas <tickets@bench.example>"},
	})
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{srv: s, sb: sb, store: cs, upstream: rt}
}

// recordedAnswer is one upstream answer kept for replay.
type recordedAnswer struct {
	status int
	header http.Header
	body   []byte
}

// replayTransport answers the upstream client from the sandbox's handler in the same process.
// While replaying it keeps the first answer to each request (method, URL and body) and hands
// out copies of it after; otherwise every call reaches the sandbox.
type replayTransport struct {
	next   http.Handler
	replay atomic.Bool
	calls  atomic.Int64

	mu      sync.Mutex
	answers map[string]recordedAnswer
}

func (t *replayTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.calls.Add(1)
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		_ = r.Body.Close()
	}
	key := r.Method + " " + r.URL.String() + "\n" + string(body)
	replay := t.replay.Load()
	if replay {
		t.mu.Lock()
		a, ok := t.answers[key]
		t.mu.Unlock()
		if ok {
			return a.response(r), nil
		}
	}
	req := httptest.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), bytes.NewReader(body))
	for k, vs := range r.Header { // as a server reads them off the wire
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	rec := httptest.NewRecorder()
	t.next.ServeHTTP(rec, req)
	a := recordedAnswer{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()}
	if replay {
		t.mu.Lock()
		t.answers[key] = a
		t.mu.Unlock()
	}
	return a.response(r), nil
}

func (a recordedAnswer) response(r *http.Request) *http.Response {
	return &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: a.header.Clone(), Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: r}
}

// benchVisitor is one browser: a cookie jar, and a client that reaches the server in memory
// (and the payment provider's page over the loopback).
type benchVisitor struct {
	b      *testing.B
	env    *benchEnv
	jar    *cookiejar.Jar
	client *http.Client
	cookie string // the Cookie header the jar sends to the site
}

var benchSiteURL, _ = url.Parse(benchSite)

func (e *benchEnv) visitor(b *testing.B) *benchVisitor {
	jar, _ := cookiejar.New(nil)
	v := &benchVisitor{b: b, env: e, jar: jar}
	v.client = &http.Client{Jar: jar, Transport: siteTransport{site: e.srv},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return v
}

// siteTransport serves requests to benchSite with the server's handler and sends the rest out.
type siteTransport struct{ site http.Handler }

func (t siteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != benchSiteURL.Host {
		return http.DefaultTransport.RoundTrip(r)
	}
	req := httptest.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), r.Body)
	req.Header = r.Header.Clone()
	rec := httptest.NewRecorder()
	t.site.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// do sends a request through the client (setup steps) and returns the answer with its body.
func (v *benchVisitor) do(method, u string, form url.Values) (*http.Response, string) {
	v.b.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	if strings.HasPrefix(u, "/") {
		u = benchSite + u
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		v.b.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := v.client.Do(req)
	if err != nil {
		v.b.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// submit posts a form with the CSRF token of tokenPage and expects a redirect; it returns
// where to.
func (v *benchVisitor) submit(path, tokenPage string, form url.Values) string {
	v.b.Helper()
	_, page := v.do("GET", tokenPage, nil)
	tok, _ := v.doc(page).Find(`input[name="_csrf"]`).First().Attr("value")
	if tok == "" {
		v.b.Fatalf("no CSRF token on %s: %s", tokenPage, page)
	}
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", tok)
	resp, body := v.do("POST", path, form)
	if resp.StatusCode != http.StatusSeeOther {
		v.b.Fatalf("POST %s: status %d: %s", path, resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}

func (v *benchVisitor) doc(body string) *goquery.Document {
	d, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		v.b.Fatal(err)
	}
	return d
}

// serve sends one GET straight to the server's handler, as a returning browser does (its
// cookies, gzip accepted), and keeps any cookie the answer sets. It is the measured step.
func (v *benchVisitor) serve(path string, header http.Header) *httptest.ResponseRecorder {
	if v.cookie == "" {
		v.cookie = cookieHeader(v.jar.Cookies(benchSiteURL))
	}
	req := httptest.NewRequest(http.MethodGet, benchSite+path, nil)
	req.Header.Set("Cookie", v.cookie)
	req.Header.Set("Accept-Encoding", "gzip")
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	v.env.srv.ServeHTTP(rec, req)
	if len(rec.Header()["Set-Cookie"]) > 0 {
		v.jar.SetCookies(benchSiteURL, rec.Result().Cookies())
		v.cookie = cookieHeader(v.jar.Cookies(benchSiteURL))
	}
	return rec
}

func cookieHeader(cs []*http.Cookie) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + "=" + c.Value
	}
	return strings.Join(parts, "; ")
}
