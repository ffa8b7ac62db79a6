package bff

import (
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestBenchConfirmationDelay measures the delay from the upstream marking an order completed
// to the confirmation being shown, with a browser that polls like the page does (htmx every
// 2 s after the landing page loaded, then the full page after HX-Redirect). The completion
// moment is the provider's answer to "Pay" plus the sandbox's completion delay, drawn at
// random per purchase so the poll phase is random. Run it with
//
//	CHECKOUT_BENCH=30 go test -run TestBenchConfirmationDelay -v ./internal/bff/
//
// (the number is how many purchases; each takes up to ~4 s).
func TestBenchConfirmationDelay(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CHECKOUT_BENCH"))
	if n <= 0 {
		t.Skip("set CHECKOUT_BENCH=<purchases> to run the confirmation delay benchmark")
	}
	const pollEvery = 2 * time.Second // hx-trigger="every 2s" in views/pages/checkout
	h := newHarness(t, harnessOpts{sandbox: true})
	var delays []time.Duration
	for i := 0; i < n; i++ {
		d := 200*time.Millisecond + time.Duration(rand.Int64N(int64(2*time.Second)))
		h.sb.Faults().SetCompletionDelay(d)
		h.buyUpToSummary("1113", url1Adult())
		ret := h.actAtProvider(h.pressPay(), "pay")
		completed := time.Now().Add(d) // the connector's timer started while the provider answered
		h.get(ret)                     // the landing page
		var shown time.Time
		for shown.IsZero() {
			time.Sleep(pollEvery)
			resp, _ := h.do("GET", ret, nil, http.Header{"Hx-Request": {"true"}})
			if to := resp.Header.Get("HX-Redirect"); to != "" {
				_, body := h.get(h.local(to))
				if h.doc(body).Find(`[data-testid="booking-number"]`).Length() != 1 {
					t.Fatalf("redirected page is not the confirmation: %s", body)
				}
				shown = time.Now()
			}
		}
		delays = append(delays, shown.Sub(completed))
	}
	slices.Sort(delays)
	pct := func(p float64) time.Duration { return delays[min(len(delays)-1, int(p*float64(len(delays))))] }
	t.Logf("purchases %d, poll every %v: completion→confirmation p50 %v, p95 %v, max %v (target ≤ %v)",
		n, pollEvery, pct(0.50).Round(time.Millisecond), pct(0.95).Round(time.Millisecond), delays[len(delays)-1].Round(time.Millisecond), pollEvery+100*time.Millisecond)
	if p95 := pct(0.95); p95 > pollEvery+100*time.Millisecond {
		t.Errorf("p95 %v above one poll interval plus 100 ms", p95)
	}
}

func url1Adult() map[string][]string { return map[string][]string{"qty-0001": {"1"}} }
