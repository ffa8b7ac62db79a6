package upstream

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

const testToken = "test-token"

// fakeUpstream is a tiny scripted upstream for unit tests. Each route is a
// "METHOD /path" pattern of http.ServeMux.
type fakeUpstream struct {
	t   *testing.T
	srv *httptest.Server
	mux *http.ServeMux

	mu     sync.Mutex
	calls  map[string]int
	bodies map[string][]byte
	hdrs   map[string]http.Header
	urls   map[string]string
}

func newFake(t *testing.T) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{t: t, mux: http.NewServeMux(), calls: map[string]int{}, bodies: map[string][]byte{}, hdrs: map[string]http.Header{}, urls: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, pattern := f.mux.Handler(r)
		f.mu.Lock()
		f.calls[pattern]++
		f.bodies[pattern] = b
		f.hdrs[pattern] = r.Header.Clone()
		f.urls[pattern] = r.URL.RequestURI()
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		f.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUpstream) handle(pattern string, h http.HandlerFunc) { f.mux.HandleFunc(pattern, h) }

// reply answers pattern with status and body (a file name under testdata or
// literal JSON).
func (f *fakeUpstream) reply(pattern string, status int, body string) {
	f.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

func (f *fakeUpstream) count(pattern string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[pattern]
}

func (f *fakeUpstream) body(pattern string) map[string]any {
	f.mu.Lock()
	b := f.bodies[pattern]
	f.mu.Unlock()
	var m map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			f.t.Fatalf("request body of %s is not JSON: %v: %s", pattern, err, b)
		}
	}
	return m
}

func (f *fakeUpstream) rawBody(pattern string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.bodies[pattern])
}

func (f *fakeUpstream) header(pattern string) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hdrs[pattern]
}

func (f *fakeUpstream) url(pattern string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.urls[pattern]
}

// fastOpts keep retries and the breaker quick in tests.
func fastOpts() []Option {
	return []Option{
		WithRetry(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}),
		WithTimeout(2 * time.Second),
	}
}

func (f *fakeUpstream) client(opts ...Option) *Client {
	f.t.Helper()
	c, err := New(f.srv.URL, testToken, append(fastOpts(), opts...)...)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
