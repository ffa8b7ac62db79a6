package checkout_test

import (
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// TestBenchConfirmationDelay measures the delay from the upstream marking an order completed
// to the confirmation being shown, with a browser that polls like the page does (htmx every
// 2 s after the landing page loaded, then the full page after HX-Redirect). The completion
// moment is the provider's answer to "Pay" plus the sandbox's completion delay, drawn at
// random per purchase so the poll phase is random. Run it with
//
//	CHECKOUT_BENCH=30 [CHECKOUT_BENCH_WATCHERS=3] go test -run TestBenchConfirmationDelay -v ./internal/bff/
//
// (the number is how many purchases, each takes up to ~4 s; watchers is how many pages poll
// the same order, default 1).
func TestBenchConfirmationDelay(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CHECKOUT_BENCH"))
	if n <= 0 {
		t.Skip("set CHECKOUT_BENCH=<purchases> to run the confirmation delay benchmark")
	}
	watchers := 1
	if w, _ := strconv.Atoi(os.Getenv("CHECKOUT_BENCH_WATCHERS")); w > 0 {
		watchers = w
	}
	const pollEvery = purchases.PollInterval // the page's hx-trigger (views/pages/checkoutview PollTrigger)
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	var delays []time.Duration
	for i := 0; i < n; i++ {
		d := 200*time.Millisecond + time.Duration(rand.Int64N(int64(2*time.Second)))
		h.SB.Faults().SetCompletionDelay(d)
		h.BuyUpToSummary("1113", bfftest.Url1Adult())
		ret := h.ActAtProvider(h.PressPay(), "pay")
		completed := time.Now().Add(d) // the connector's timer started while the provider answered
		_, landing := h.Get(ret)       // the landing page
		// Each watcher (a tab, a second device) polls like the page: the poller's hx-get (it
		// carries what the page shows), PollPause after the last answer (the server holds an
		// answer the page already shows until its next read); opened at a random moment.
		pollURL := func(body string) string {
			u := h.Doc(body).Find(`[data-testid="poller"]`).AttrOr("hx-get", "")
			return strings.ReplaceAll(u, "&amp;", "&")
		}
		shownAt := make([]time.Time, watchers)
		var wg sync.WaitGroup
		for w := range watchers {
			wg.Go(func() {
				page := landing
				if w > 0 { // opened a little later: its own landing page first
					time.Sleep(time.Duration(rand.Int64N(int64(pollEvery))))
					if _, page = h.Get(ret); h.Doc(page).Find(`[data-testid="booking-number"]`).Length() == 1 {
						shownAt[w] = time.Now()
						return
					}
				}
				next := pollURL(page)
				for {
					time.Sleep(checkoutview.PollPause)
					resp, frag := h.Do("GET", next, nil, http.Header{"Hx-Request": {"true"}})
					if to := resp.Header.Get("HX-Redirect"); to != "" {
						_, body := h.Get(h.Local(to))
						if h.Doc(body).Find(`[data-testid="booking-number"]`).Length() != 1 {
							t.Errorf("redirected page is not the confirmation: %s", body)
						}
						shownAt[w] = time.Now()
						return
					}
					if u := pollURL(frag); u != "" {
						next = u
					}
				}
			})
		}
		wg.Wait()
		for _, shown := range shownAt {
			delays = append(delays, shown.Sub(completed))
		}
	}
	slices.Sort(delays)
	pct := func(p float64) time.Duration { return delays[min(len(delays)-1, int(p*float64(len(delays))))] }
	t.Logf("purchases %d, %d watchers each, poll every %v: completion→confirmation p50 %v, p95 %v, max %v (target ≤ %v)",
		n, watchers, pollEvery, pct(0.50).Round(time.Millisecond), pct(0.95).Round(time.Millisecond), delays[len(delays)-1].Round(time.Millisecond), pollEvery+100*time.Millisecond)
	if p95 := pct(0.95); p95 > pollEvery+100*time.Millisecond {
		t.Errorf("p95 %v above one poll interval plus 100 ms", p95)
	}
}
