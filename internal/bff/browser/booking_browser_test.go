package browser_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// browserFind opens the find form and looks a booking up, as a customer types it.
func browserFind(p *browsertest.Page, base string, number string, email string) {
	p.Do(
		chromedp.Navigate(base+"/booking"),
		chromedp.WaitVisible("#number"),
		chromedp.SendKeys("#number", number),
		chromedp.SendKeys("#email", email),
		chromedp.Click(`[data-testid="find-submit"]`),
		chromedp.WaitVisible("#booking-title"),
	)
}

// TestBrowserEditPayDifference: find the booking, add a ticket, pay the difference on the
// provider's page, see the updated booking.
func TestBrowserEditPayDifference(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{})
	browserFind(p, h.TS.URL, "100002", "paid2@example.com")
	p.Screenshot("edit-1-booking")
	p.Do(
		chromedp.Click(`[data-testid="action-edit"] button`),
		chromedp.WaitVisible("#edit-title"),
		chromedp.Click(`[data-testid="add-form"] [data-testid="add-one"]`),
		chromedp.WaitVisible(`[data-testid="line-added"]`),
	)
	p.Screenshot("edit-2-added")
	if got := p.Text(`[data-testid="edit-money"]`); !strings.Contains(got, "To pay") {
		t.Fatalf("money after adding: %q", got)
	}
	p.Do(
		chromedp.Click(`[data-testid="complete-form"] button`),
		chromedp.WaitVisible(`button[value="pay"]`),
	)
	p.Screenshot("edit-3-provider")
	p.Do(
		chromedp.Click(`button[value="pay"]`),
		chromedp.WaitVisible(`[data-testid="changes"]`),
	)
	p.Screenshot("edit-4-paid")
	if got := p.Text(`[data-testid="changes"]`); !strings.Contains(got, "Paid") || !strings.Contains(got, "Added") {
		t.Fatalf("changes shown: %q", got)
	}
	u, _ := url.Parse(h.TS.URL)
	pu, _ := url.Parse(h.UpstreamURL)
	assertHosts(t, p, u.Host, pu.Host)
	p.AssertNoConsoleErrors()
}

// TestBrowserEditRefund: remove a ticket and get the difference back.
func TestBrowserEditRefund(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
	browserFind(p, h.TS.URL, "100003", "paid3@example.com")
	p.Do(
		chromedp.Click(`[data-testid="action-edit"] button`),
		chromedp.WaitVisible("#edit-title"),
		chromedp.Click(`[data-testid="stepper"] [data-testid="remove-one"]`),
		chromedp.WaitVisible(`[data-testid="line-removed"]`),
	)
	p.Screenshot("refund-1-removed")
	if got := p.Text(`[data-testid="edit-money"]`); !strings.Contains(got, "To refund") {
		t.Fatalf("money after removing: %q", got)
	}
	p.Do(
		chromedp.Click(`[data-testid="complete-form"] button`),
		chromedp.WaitVisible(`[data-testid="changes"]`),
	)
	p.Screenshot("refund-2-done")
	if got := p.Text(`[data-testid="changes"]`); !strings.Contains(got, "Refunded") {
		t.Fatalf("changes shown: %q", got)
	}
	p.AssertNoConsoleErrors()
}

// TestBrowserEditWithoutJavaScript: the edit page works with scripts disabled: add, remove,
// more time, the expiry time visible, complete.
func TestBrowserEditWithoutJavaScript(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{NoJavaScript: true})
	browserFind(p, h.TS.URL, "100004", "paid4@example.com")
	p.Do(
		chromedp.Click(`[data-testid="action-edit"] button`),
		chromedp.WaitVisible("#edit-title"),
	)
	if got := p.Text(`[data-testid="countdown"] time`); got == "" {
		t.Fatal("no expiry time without JavaScript")
	}
	p.Do(
		chromedp.Click(`[data-testid="add-form"] [data-testid="add-one"]`),
		chromedp.WaitVisible(`[data-testid="line-added"]`),
	)
	// A plain form post: wait for the navigation it causes.
	if _, err := chromedp.RunResponse(p.Ctx, chromedp.Click(`[data-testid="extend"]`)); err != nil {
		t.Fatal(err)
	}
	if got := p.Text(`[data-testid="notice-info"]`); !strings.Contains(got, "more time") {
		t.Fatalf("extend without JavaScript: %q", got)
	}
	p.Do(
		chromedp.Click(`[data-testid="stepper"] [data-testid="remove-one"]`),
		chromedp.WaitNotPresent(`[data-testid="line-added"]`),
		chromedp.Click(`[data-testid="complete-form"] button`),
		chromedp.WaitVisible(`[data-testid="changes"]`),
	)
	p.Screenshot("edit-nojs-done")
}

func assertHosts(t *testing.T, p *browsertest.Page, hosts ...string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, h := range hosts {
		allowed[h] = true
	}
	for _, r := range p.Requests() {
		u, err := url.Parse(r)
		if err != nil || u.Scheme == "data" {
			continue
		}
		if !allowed[u.Host] {
			t.Errorf("request to an unexpected host: %s", r)
		}
	}
}
