package browser_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// browserBuyToProvider walks the purchase in Chromium up to the provider's page.
func browserBuyToProvider(t *testing.T, h *bfftest.Harness, p *browsertest.Page, name string) {
	t.Helper()
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on"), chromedp.WaitVisible("#whatson-title"))
	p.Screenshot(name + "-1-whats-on")
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "2"))
	p.Screenshot(name + "-2-tickets")
	p.Do(chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	p.Screenshot(name + "-3-seats")
	p.Do(chromedp.Click(`[data-testid="seat-form"] button.button-primary`), chromedp.WaitVisible(`#name`),
		chromedp.SendKeys(`#name`, "Ada Lovelace"), chromedp.SendKeys(`#email`, "ada@example.com"))
	p.Screenshot(name + "-4-details")
	p.Do(chromedp.Click(`[data-testid="details-form"] button.button-primary`), chromedp.WaitVisible(`[data-testid="pay"]`))
	p.Screenshot(name + "-5-summary")
	// Our pages so far: only our host, no console errors (CSP violations show there).
	u, _ := url.Parse(h.TS.URL)
	p.AssertOnlyHost(u.Host)
	p.AssertNoConsoleErrors()
	p.Do(chromedp.Click(`[data-testid="pay"]`), chromedp.WaitVisible(`button[value="pay"]`))
}

func TestBrowserBuyTwoTicketsAndPay(t *testing.T) {
	t.Parallel()
	// The connector completes the paid order only when told (completionDelay -1): with a
	// fixed delay a slow return would find the order complete and show the confirmation at
	// once, with no waiting page to see.
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1})
	p := browsertest.NewPage(t, browsertest.Options{})
	browserBuyToProvider(t, h, p, "buy")
	p.Do(chromedp.Click(`button[value="pay"]`), chromedp.WaitVisible(`[data-testid="poller"]`))
	p.Screenshot("buy-6-confirming")
	ret, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil {
		t.Fatalf("return page address: %v", err)
	}
	if !h.SB.CompleteAwaiting(h.RecordOf(ret).UserSessionID) {
		t.Fatalf("the sandbox did not complete the paid order of %s", ret)
	}
	p.Do(chromedp.WaitVisible(`[data-testid="booking-number"]`))
	p.Screenshot("buy-7-confirmation")
	if n := p.Text(`[data-testid="booking-number"]`); len(n) != 6 {
		t.Fatalf("booking number %q", n)
	}
	ok, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`document.querySelectorAll('[data-testid="ticket-card"]').length === 2`))
	if err != nil || !ok {
		t.Fatalf("two printable tickets expected: %v", err)
	}
	p.AssertNoConsoleErrors()
	u, _ := url.Parse(h.TS.URL)
	pu, _ := url.Parse(h.UpstreamURL)
	for _, r := range p.Requests() {
		ru, _ := url.Parse(r)
		if ru.Host != u.Host && ru.Host != pu.Host && ru.Scheme != "data" {
			t.Errorf("request to a third host: %s", r)
		}
	}
}

func TestBrowserBuyFailedOrderPath(t *testing.T) {
	t.Parallel()
	old := checkout.GiveUpAfter
	checkout.GiveUpAfter = 3 * time.Second
	t.Cleanup(func() { checkout.GiveUpAfter = old })
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1})
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
	browserBuyToProvider(t, h, p, "failed")
	p.Do(chromedp.Click(`button[value="pay"]`), chromedp.WaitVisible(`[data-testid="poller"]`))
	time.Sleep(2100 * time.Millisecond) // one poll has updated the elapsed time
	p.Screenshot("failed-6-confirming")
	p.Do(chromedp.WaitVisible(`[data-testid="failed-order"]`))
	p.Screenshot("failed-7-failed-order")
	if ref := p.Text(`[data-testid="reference"]`); len(ref) != 14 {
		t.Fatalf("reference %q", ref)
	}
	p.AssertNoConsoleErrors()
}
