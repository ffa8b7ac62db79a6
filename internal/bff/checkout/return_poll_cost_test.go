package checkout_test

import (
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// waitingVisitors pays n orders at the provider (never completed) and returns each visitor with
// the GET of its return page's poll as htmx sends it, answered at once (without what the page
// shows: checkoutview.PollShownParam, as cmd/loadtest polls).
func waitingVisitors(t *testing.T, h *bfftest.Harness, n int) ([]*bfftest.Harness, []string) {
	t.Helper()
	old := checkout.GiveUpAfter
	checkout.GiveUpAfter = time.Hour // a slow run must not reach the failed-order page
	t.Cleanup(func() { checkout.GiveUpAfter = old })
	sessions := []string{"1111", "1112", "1113", "1121", "1122", "1123"}
	visitors, polls := make([]*bfftest.Harness, n), make([]string, n)
	for i := range n {
		v := h.Browser()
		v.BuyUpToSummary(sessions[i%len(sessions)], bfftest.Url1Adult())
		_, landing := v.Get(v.ActAtProvider(v.PressPay(), "pay"))
		poll, ok := v.Doc(landing).Find(`[data-testid="poller"]`).Attr("hx-get")
		if !ok {
			t.Fatalf("visitor %d: the return page does not poll: %.500s", i, landing)
		}
		u, err := url.Parse(poll)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Del(checkoutview.PollShownParam)
		u.RawQuery = q.Encode()
		visitors[i], polls[i] = v, u.String()
	}
	return visitors, polls
}

// TestReturnPollsWriteNothingAndShareReads: many people waiting on their return pages, each
// polling far more often than the page does, make no session store writes, and the upstream
// is asked about each order at most once per poll interval, whoever asks (the page's polls and
// the background checks share the reads).
func TestReturnPollsWriteNothingAndShareReads(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, MaxOrdersPerClient: 1000})
	const orders = 12
	visitors, polls := waitingVisitors(t, h, orders)
	writes, calls := h.Store.Commits.Load(), h.SB.Calls("GetOrderDetails")
	start := time.Now()
	const window = 2*purchases.PollInterval + purchases.PollInterval/2
	var wg sync.WaitGroup
	var mu sync.Mutex
	polled := 0
	for i, v := range visitors {
		wg.Go(func() {
			for time.Since(start) < window {
				resp, body := v.Do("GET", polls[i], nil, http.Header{"Hx-Request": {"true"}})
				if resp.StatusCode != http.StatusOK {
					t.Errorf("poll %d: status %d: %.300s", i, resp.StatusCode, body)
					return
				}
				mu.Lock()
				polled++
				mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	w, c := h.Store.Commits.Load()-writes, h.SB.Calls("GetOrderDetails")-calls
	intervals := int64(elapsed/purchases.PollInterval) + 1 // the one under way when polling began
	t.Logf("%d orders, %d polls in %v: %d session store writes, %d order-details calls (at most %d)",
		orders, polled, elapsed.Round(time.Millisecond), w, c, orders*intervals)
	if w != 0 {
		t.Errorf("%d session store writes for %d polls, want none", w, polled)
	}
	if c > orders*intervals {
		t.Errorf("%d order-details calls for %d orders in %v, want at most one per order per %v interval (%d)",
			c, orders, elapsed, purchases.PollInterval, orders*intervals)
	}
}

// TestWaitingVisitorsCostNoGoroutines: an order waiting for its payment is watched in the
// background by a timer: the server holds no goroutine per waiting visitor between two polls.
func TestWaitingVisitorsCostNoGoroutines(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, MaxOrdersPerClient: 1000})
	waitingVisitors(t, h, 1) // warms up the site, its pools and connections
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	const orders = 20
	visitors, _ := waitingVisitors(t, h, orders)
	for _, v := range visitors {
		v.Client.CloseIdleConnections() // a browser's connection is its own, not the server's
	}
	time.Sleep(100 * time.Millisecond)
	extra := runtime.NumGoroutine() - before
	t.Logf("%d waiting orders: %d more goroutines", orders, extra)
	if extra >= orders/2 {
		t.Fatalf("%d more goroutines for %d waiting orders, want none per order", extra, orders)
	}
}
