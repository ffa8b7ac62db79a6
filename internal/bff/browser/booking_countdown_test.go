package browser_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// TestBrowserCountdownWarns: with little time left the countdown warns (role=alert) and tells
// screen readers the time once, through its polite live region, and "More time" is at hand.
func TestBrowserCountdownWarns(t *testing.T) {
	t.Parallel()
	// The sandbox's clock runs 9 minutes behind: an edit started now expires in about a minute.
	clock := testclock.New(time.Now().Add(-9 * time.Minute))
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock})
	p := browsertest.NewPage(t, browsertest.Options{})
	browserFind(p, h.TS.URL, "100001", "paid1@example.com")
	p.Do(
		chromedp.Click(`[data-testid="action-edit"] button`),
		chromedp.WaitVisible("#edit-title"),
		chromedp.WaitVisible(`[data-countdown-warning]`),
	)
	if got := p.Text(`[data-countdown-warning]`); !strings.Contains(got, "Less than two minutes") {
		t.Fatalf("warning text %q", got)
	}
	role, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.querySelector('[data-countdown-warning]').getAttribute('role')`))
	if err != nil || role != "alert" {
		t.Fatalf("warning role %q (%v)", role, err)
	}
	sr, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.querySelector('.countdown-sr').textContent`))
	if err != nil || strings.TrimSpace(sr) == "" {
		t.Fatalf("screen-reader line empty (%v)", err)
	}
	hidden, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.querySelector('.countdown-time').getAttribute('aria-hidden')`))
	if err != nil || hidden != "true" {
		t.Fatalf("the per-second clock is not hidden from screen readers: %q", hidden)
	}
	p.Screenshot("edit-countdown-warning")
	p.AssertNoConsoleErrors()
}
