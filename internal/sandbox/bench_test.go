package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// discardWriter is a ResponseWriter that keeps only the status, so a
// benchmark measures the sandbox and not a growing recorder buffer.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (d *discardWriter) Header() http.Header { return d.h }
func (d *discardWriter) WriteHeader(s int)   { d.status = s }
func (d *discardWriter) Write(b []byte) (int, error) {
	d.n += len(b)
	return len(b), nil
}

type benchEnv struct {
	handler http.Handler
	orderID string
}

func newBenchEnv(b *testing.B) benchEnv {
	b.Helper()
	clock := testclock.New(testNow)
	srv, err := New(Options{Token: testToken, Clock: clock, Payments: payprovider.New(payprovider.Options{PublicURL: "http://127.0.0.1/pay", Now: clock.Now})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	id := newID()
	body, _ := json.Marshal(map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": "1113",
		"TicketTypes": []any{map[string]any{"TicketTypeCode": "0001", "Qty": 2}, map[string]any{"TicketTypeCode": "0002"}}})
	w := &discardWriter{h: http.Header{}}
	srv.Handler().ServeHTTP(w, benchRequest("POST", "/RESTTicketing.svc/order/tickets", body))
	if w.status != 200 {
		b.Fatalf("AddTickets: %d", w.status)
	}
	return benchEnv{srv.Handler(), id}
}

func benchRequest(method, path string, body []byte) *http.Request {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	r.Header.Set(tokenHeader, testToken) // in process: the canonical key, as the server would parse it
	return r
}

func runBench(b *testing.B, h http.Handler, method, path string, body []byte) {
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, benchRequest(method, path, body))
		if w.status != 200 {
			b.Fatalf("status %d", w.status)
		}
	}
	b.ReportMetric(float64(w.n)/float64(b.N), "resp-bytes/op")
}

func BenchmarkGetOrder(b *testing.B) {
	env := newBenchEnv(b)
	body, _ := json.Marshal(map[string]any{"UserSessionId": env.orderID})
	runBench(b, env.handler, "POST", "/RESTTicketing.svc/order", body)
}

func BenchmarkSeatPlanLargeAuditorium(b *testing.B) {
	env := newBenchEnv(b)
	runBench(b, env.handler, "GET", "/RESTData.svc/cinemas/0001/sessions/1113/seat-plan", nil)
}

func BenchmarkOrderDetails(b *testing.B) {
	env := newBenchEnv(b)
	runBench(b, env.handler, "GET", "/RESTTicketing.svc/order/details?userSessionId="+env.orderID, nil)
}

// BenchmarkGetOrderOverHTTP includes a real loopback HTTP round trip
// (client and server in the same process) through the raw header wrapper.
func BenchmarkGetOrderOverHTTP(b *testing.B) {
	env := newBenchEnv(b)
	ts := newRawHeaderServer(b, env.handler)
	body, _ := json.Marshal(map[string]any{"UserSessionId": env.orderID})
	client := ts.Client()
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("POST", ts.URL+"/RESTTicketing.svc/order", bytes.NewReader(body))
		setToken(req.Header, testToken)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkSeatPlanLargeAuditoriumUncached renders the plan every time, as
// after every seat change (the cache is dropped before each call).
func BenchmarkSeatPlanLargeAuditoriumUncached(b *testing.B) {
	clock := testclock.New(testNow)
	srv, err := New(Options{Token: testToken, Clock: clock, Payments: payprovider.New(payprovider.Options{PublicURL: "http://127.0.0.1/pay", Now: clock.Now})})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ss := srv.sessions[1113]
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		srv.mu.Lock()
		ss.plan = nil
		srv.mu.Unlock()
		clear(w.h)
		srv.Handler().ServeHTTP(w, benchRequest("GET", "/RESTData.svc/cinemas/0001/sessions/1113/seat-plan", nil))
		if w.status != 200 {
			b.Fatalf("status %d", w.status)
		}
	}
}
