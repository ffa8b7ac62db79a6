package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const okOrder = `{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null,"Order":{"UserSessionId":"u","CinemaId":"0001"}}`

// flaky answers with failStatus for the first n calls, then with body.
func flaky(n int, failStatus int, body string) (http.HandlerFunc, *atomic.Int32) {
	var calls atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if int(calls.Add(1)) <= n {
			w.WriteHeader(failStatus)
			io.WriteString(w, `{"Result":1,"ExtendedResultCode":0,"ErrorDescription":"boom"}`)
			return
		}
		io.WriteString(w, body)
	}, &calls
}

func TestReadRetriesAfterOne5xx(t *testing.T) {
	f := newFake(t)
	h, calls := flaky(1, http.StatusServiceUnavailable, okOrder)
	f.handle("POST /RESTTicketing.svc/order", h)
	o, err := f.client().GetOrder(context.Background(), "u")
	if err != nil {
		t.Fatalf("GetOrder after one 503: %v", err)
	}
	if o.UserSessionID != "u" || calls.Load() != 2 {
		t.Errorf("order %q after %d calls, want 2", o.UserSessionID, calls.Load())
	}
}

func TestReadRetriesAreBounded(t *testing.T) {
	f := newFake(t)
	h, calls := flaky(100, http.StatusBadGateway, okOrder)
	f.handle("GET /RESTTicketing.svc/order/details", h)
	_, err := f.client().GetOrderDetails(context.Background(), "u")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls, want MaxAttempts=3", calls.Load())
	}
}

func TestRetryStaysWithinDeadline(t *testing.T) {
	f := newFake(t)
	h, calls := flaky(100, http.StatusBadGateway, okOrder)
	f.handle("POST /RESTTicketing.svc/order", h)
	c := f.client(WithRetry(RetryPolicy{MaxAttempts: 10, BaseDelay: 200 * time.Millisecond, MaxDelay: time.Second}),
		WithOperationTimeout(OpGetOrder, 300*time.Millisecond))
	start := time.Now()
	_, err := c.GetOrder(context.Background(), "u")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Errorf("took %v with a 300ms deadline", d)
	}
	if n := calls.Load(); n < 1 || n > 3 {
		t.Errorf("%d calls", n)
	}
}

func TestWritesAreNeverRetried(t *testing.T) {
	writes := []struct {
		pattern string
		call    func(*Client) error
	}{
		{"POST /RESTTicketing.svc/order/tickets", func(c *Client) error { _, err := c.AddTickets(context.Background(), AddTicketsRequest{}); return err }},
		{"POST /RESTTicketing.svc/order/cancel", func(c *Client) error { return c.CancelOrder(context.Background(), "u") }},
		{"POST /orders/{id}/complete-edit", func(c *Client) error {
			_, err := c.CompleteEditBooking(context.Background(), "u", CompleteEditUnpaid())
			return err
		}},
		{"POST /RESTTicketing.svc/order/startexternalpayment", func(c *Client) error {
			_, err := c.ExternalPaymentStarting(context.Background(), ExternalPaymentRequest{})
			return err
		}},
		{"POST /cinemas/{c}/bookings/{b}/swap-seats", func(c *Client) error { return c.SwapSeats(context.Background(), "c", "b", nil) }},
	}
	for _, w := range writes {
		t.Run(w.pattern, func(t *testing.T) {
			f := newFake(t)
			h, calls := flaky(1, http.StatusServiceUnavailable, okOrder)
			f.handle(w.pattern, h)
			err := w.call(f.client())
			if !errors.Is(err, ErrUnavailable) {
				t.Fatalf("err = %v", err)
			}
			if calls.Load() != 1 {
				t.Errorf("write sent %d times", calls.Load())
			}
		})
	}
}

// hang blocks until the request is abandoned.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

func TestHangingUpstreamReturnsWithinDeadline(t *testing.T) {
	f := newFake(t)
	f.handle("POST /RESTTicketing.svc/order", hang)
	f.handle("POST /RESTTicketing.svc/order/tickets", hang)
	c := f.client(WithTimeout(150*time.Millisecond), WithOperationTimeout(OpGetOrder, 100*time.Millisecond))

	start := time.Now()
	_, err := c.GetOrder(context.Background(), "u")
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Errorf("GetOrder returned after %v with a 100ms deadline", d)
	}
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}

	start = time.Now()
	_, err = c.AddTickets(context.Background(), AddTicketsRequest{})
	if d := time.Since(start); d > 350*time.Millisecond || d < 140*time.Millisecond {
		t.Errorf("AddTickets returned after %v with the default 150ms deadline", d)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v", err)
	}

	// The caller's shorter deadline wins.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = c.GetOrder(ctx, "u")
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("returned after %v with a 30ms caller deadline", d)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v", err)
	}
}

func TestBreakerOpensAndCloses(t *testing.T) {
	f := newFake(t)
	var healthy atomic.Bool
	var calls atomic.Int32
	f.handle("POST /RESTTicketing.svc/order", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if !healthy.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		io.WriteString(w, okOrder)
	})
	f.reply("POST /RESTTicketing.svc/order/seats", 200, `{"Result":8,"ExtendedResultCode":0,"ErrorDescription":"taken"}`)
	c := f.client(WithRetry(RetryPolicy{MaxAttempts: 1}), WithBreaker(BreakerSettings{ConsecutiveFailures: 3, OpenTimeout: 150 * time.Millisecond}))
	ctx := context.Background()

	// Refusals by rule do not count as failures.
	for range 5 {
		if _, err := c.SetSelectedSeats(ctx, SetSelectedSeatsRequest{}); !errors.Is(err, ErrSeatsUnavailable) {
			t.Fatal(err)
		}
	}
	if err := c.Ready(); err != nil {
		t.Fatalf("breaker open after refusals: %v", err)
	}
	for range 3 {
		if _, err := c.GetOrder(ctx, "u"); !errors.Is(err, ErrUnavailable) {
			t.Fatal(err)
		}
	}
	if err := c.Ready(); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("Ready = %v after 3 failures", err)
	}
	before := calls.Load()
	start := time.Now()
	_, err := c.GetOrder(ctx, "u")
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != before || time.Since(start) > 20*time.Millisecond {
		t.Error("an open breaker let a call through or was slow")
	}

	healthy.Store(true)
	time.Sleep(200 * time.Millisecond)
	if err := c.Ready(); err != nil {
		t.Fatalf("Ready = %v after the open timeout (half-open)", err)
	}
	if _, err := c.GetOrder(ctx, "u"); err != nil {
		t.Fatalf("trial call: %v", err)
	}
	if err := c.Ready(); err != nil || c.t.breaker.cb.State().String() != "closed" {
		t.Fatalf("breaker %v after a successful trial: %v", c.t.breaker.cb.State(), err)
	}
}

func TestCallerCancellationDoesNotTripBreaker(t *testing.T) {
	f := newFake(t)
	f.handle("POST /RESTTicketing.svc/order", hang)
	c := f.client(WithRetry(RetryPolicy{MaxAttempts: 1}), WithBreaker(BreakerSettings{ConsecutiveFailures: 2}))
	for range 4 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(10*time.Millisecond, cancel)
		if _, err := c.GetOrder(ctx, "u"); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	}
	if err := c.Ready(); err != nil {
		t.Fatalf("cancelled calls opened the breaker: %v", err)
	}
}

func TestConcurrentPollersAreCoalesced(t *testing.T) {
	f := newFake(t)
	var calls atomic.Int32
	f.handle("GET /RESTTicketing.svc/order/details", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		time.Sleep(50 * time.Millisecond)
		io.WriteString(w, fixture(t, "order_details.json"))
	})
	c := f.client()

	const pollers = 100
	var wg sync.WaitGroup
	errs := make(chan error, pollers)
	start := make(chan struct{})
	for i := range pollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ctx := context.Background()
			if i%10 == 0 {
				// Some pollers give up early; the shared call goes on for the others.
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 5*time.Millisecond)
				defer cancel()
				_, err := c.GetOrderDetails(ctx, "0123456789abcdef0123456789abcdef")
				if !errors.Is(err, context.DeadlineExceeded) {
					errs <- errors.New("early quitter: " + errString(err))
				}
				return
			}
			d, err := c.GetOrderDetails(ctx, "0123456789abcdef0123456789abcdef")
			if err != nil || !d.Completed {
				errs <- errors.New("poller: " + errString(err))
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := calls.Load(); n > 3 {
		t.Errorf("%d upstream calls for %d concurrent pollers", n, pollers)
	}
	t.Logf("%d pollers, %d upstream calls", pollers, calls.Load())
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestMetricsAndLogs(t *testing.T) {
	f := newFake(t)
	f.reply("POST /RESTTicketing.svc/order", 200, okOrder)
	f.reply("POST /RESTTicketing.svc/order/cancel", 200, `{"Result":4,"ExtendedResultCode":41,"ErrorDescription":"expired"}`)
	reg := prometheus.NewRegistry()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := f.client(WithRegisterer(reg), WithLogger(log), WithVersion("1.2.3"))
	// A second client on the same registerer shares the collectors.
	if _, err := New(f.srv.URL, "k", WithRegisterer(reg)); err != nil {
		t.Fatal(err)
	}
	ctx := WithRequestID(context.Background(), "rid-1")
	if _, err := c.GetOrder(ctx, "u"); err != nil {
		t.Fatal(err)
	}
	_ = c.CancelOrder(ctx, "u")
	if ua := f.header("POST /RESTTicketing.svc/order").Get("User-Agent"); ua != "cinemabff/1.2.3" {
		t.Errorf("User-Agent %q", ua)
	}

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := ""
			for _, l := range m.GetLabel() {
				labels += l.GetName() + "=" + l.GetValue() + ","
			}
			switch mf.GetName() {
			case "upstream_requests_total":
				got["total:"+labels] = m.GetCounter().GetValue()
			case "upstream_request_duration_seconds":
				got["hist:"+labels] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	for _, k := range []string{"total:operation=GetOrder,outcome=ok,", "total:operation=CancelOrder,outcome=expired,", "hist:operation=GetOrder,outcome=ok,"} {
		if got[k] != 1 {
			t.Errorf("%s = %v (all: %v)", k, got[k], got)
		}
	}

	logs := buf.String()
	if strings.Contains(logs, testToken) {
		t.Error("the token was logged")
	}
	for _, want := range []string{`"op":"GetOrder"`, `"op":"CancelOrder"`, `"extended_result":41`, `"request_id":"rid-1"`, `"duration"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

func TestBackoffIsCappedWithJitter(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: 400 * time.Millisecond}
	for attempt, max := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 8: 400 * time.Millisecond} {
		for range 50 {
			d := backoff(p, attempt)
			if d < max/2 || d > max {
				t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, max/2, max)
			}
		}
	}
}

func TestTransportKeepsIdleConnections(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
		want int
	}{
		{"default", nil, DefaultMaxIdleConnsPerHost},
		{"configured", []Option{WithMaxIdleConnsPerHost(16)}, 16},
		{"zero means default", []Option{WithMaxIdleConnsPerHost(0)}, DefaultMaxIdleConnsPerHost},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New("http://upstream.test", "token", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			tr, ok := c.cfg.httpClient.Transport.(*http.Transport)
			if !ok {
				t.Fatalf("transport %T", c.cfg.httpClient.Transport)
			}
			if tr.MaxIdleConnsPerHost != tc.want || tr.MaxIdleConns < tc.want {
				t.Fatalf("MaxIdleConnsPerHost %d, MaxIdleConns %d; want %d per host", tr.MaxIdleConnsPerHost, tr.MaxIdleConns, tc.want)
			}
			if tr == http.DefaultTransport {
				t.Fatal("the client changed http.DefaultTransport")
			}
		})
	}
	// A client of one's own is used as it is.
	own := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 3}}
	c, err := New("http://upstream.test", "token", WithHTTPClient(own), WithMaxIdleConnsPerHost(50))
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.httpClient != own {
		t.Fatal("WithHTTPClient's client not used")
	}
}

// TestReadBudgetDoesNotTripBreaker: a read cut off by the page's read budget (WithReadDeadline)
// says nothing about the upstream's health, so the breaker counts it neither way; the same
// hang past the call's own timeout is an outage and opens it.
func TestReadBudgetDoesNotTripBreaker(t *testing.T) {
	f := newFake(t)
	f.handle("POST /RESTTicketing.svc/order", hang)
	c := f.client(WithTimeout(300*time.Millisecond), WithRetry(RetryPolicy{MaxAttempts: 1}), WithBreaker(BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Minute}))
	for range 4 {
		ctx := WithReadDeadline(context.Background(), time.Now().Add(20*time.Millisecond))
		if _, err := c.GetOrder(ctx, "u"); !TimedOut(err) || !SafeCall(err) {
			t.Fatalf("err = %v, want a timed-out read", err)
		}
	}
	if err := c.Ready(); err != nil {
		t.Fatalf("reads cut off by the read budget opened the breaker: %v", err)
	}
	for range 2 { // the call's own timeout: the upstream really hangs
		if _, err := c.GetOrder(context.Background(), "u"); !TimedOut(err) {
			t.Fatalf("err = %v, want a timed-out read", err)
		}
	}
	if err := c.Ready(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("Ready = %v after 2 reads past their own timeout, want the breaker open", err)
	}
}

// TestFailuresOlderThanAHealthyAnswerDoNotTripBreaker: calls begun during a slow spell that
// fail after a later call has answered well do not open the breaker (they describe the
// spell, not the upstream now); failures begun after the good answer still do.
func TestFailuresOlderThanAHealthyAnswerDoNotTripBreaker(t *testing.T) {
	f := newFake(t)
	var mode atomic.Int32 // 0 hang then fail, 1 healthy, 2 fail at once
	release := make(chan struct{})
	var hanging sync.WaitGroup
	f.handle("POST /RESTTicketing.svc/order", func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case 0:
			hanging.Done()
			<-release
			w.WriteHeader(http.StatusInternalServerError)
		case 1:
			io.WriteString(w, okOrder)
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	c := f.client(WithRetry(RetryPolicy{MaxAttempts: 1}), WithBreaker(BreakerSettings{ConsecutiveFailures: 3, OpenTimeout: time.Minute}))
	ctx := context.Background()

	const spell = 5
	hanging.Add(spell)
	errs := make(chan error, spell)
	for range spell {
		go func() { _, err := c.GetOrder(ctx, "u"); errs <- err }()
	}
	hanging.Wait() // every call of the spell has begun
	mode.Store(1)
	if _, err := c.GetOrder(ctx, "u"); err != nil {
		t.Fatalf("healthy call: %v", err)
	}
	close(release)
	for range spell {
		if err := <-errs; !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("a call of the spell: %v, want the upstream's failure as it was", err)
		}
	}
	if err := c.Ready(); err != nil {
		t.Fatalf("failures begun before a healthy answer opened the breaker: %v", err)
	}

	mode.Store(2)
	for range 3 {
		if _, err := c.GetOrder(ctx, "u"); !errors.Is(err, ErrUnavailable) {
			t.Fatal(err)
		}
	}
	if err := c.Ready(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("Ready = %v after 3 failures begun after the healthy answer, want the breaker open", err)
	}
}
