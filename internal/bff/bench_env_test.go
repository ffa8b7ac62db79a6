package bff_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// newBenchEnv is the test harness's server for benchmarks, with the upstream answered through
// a replayTransport. The sandbox serves the setup (its writes happen for real); once replay is
// on, every upstream answer is recorded the first time and replayed after, so a page's ns/op is
// the BFF's own work and not the sandbox's. The connector never completes a paid order, so the
// return page keeps polling.
func newBenchEnv(b *testing.B) (*bfftest.Harness, *replayTransport) {
	b.Helper()
	rt := &replayTransport{answers: map[string]recordedAnswer{}}
	h := bfftest.NewHarness(b, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, MaxOrdersPerClient: 1000,
		UpstreamTransport: func(next http.RoundTripper) http.RoundTripper { rt.next = next; return rt }})
	return h, rt
}

// recordedAnswer is one upstream answer kept for replay.
type recordedAnswer struct {
	status int
	header http.Header
	body   []byte
}

// replayTransport stands between the upstream client and its transport to the sandbox. While
// replaying it keeps the first answer to each request (method, URL and body) and hands out
// copies of it after; otherwise every call reaches the sandbox.
type replayTransport struct {
	next   http.RoundTripper
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
	req := r.Clone(r.Context())
	if r.Body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	a := recordedAnswer{status: resp.StatusCode, header: resp.Header.Clone(), body: b}
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

// benchVisitor is one browser: its own visit (cookie jar) on the bench's harness, which walks
// it to its page, and the Cookie header it sends when the page is measured.
type benchVisitor struct {
	*bfftest.Harness
	site   *url.URL
	cookie string // the Cookie header the jar sends to the site
}

func newBenchVisitor(h *bfftest.Harness) *benchVisitor {
	site, err := url.Parse(h.TS.URL)
	if err != nil {
		h.T.Fatal(err)
	}
	return &benchVisitor{Harness: h.Browser(), site: site}
}

// serve sends one GET straight to the server's handler (not over the network), as a returning
// browser does (its cookies, gzip accepted), and keeps any cookie the answer sets. It is the
// measured step.
func (v *benchVisitor) serve(path string, header http.Header) *httptest.ResponseRecorder {
	if v.cookie == "" {
		v.cookie = cookieHeader(v.Client.Jar.Cookies(v.site))
	}
	req := httptest.NewRequest(http.MethodGet, v.TS.URL+path, nil)
	req.Header.Set("Cookie", v.cookie)
	req.Header.Set("Accept-Encoding", "gzip")
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	v.Srv.ServeHTTP(rec, req)
	if len(rec.Header()["Set-Cookie"]) > 0 {
		v.Client.Jar.SetCookies(v.site, rec.Result().Cookies())
		v.cookie = cookieHeader(v.Client.Jar.Cookies(v.site))
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
