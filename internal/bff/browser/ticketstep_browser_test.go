package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// TestBrowserTicketStepTotalAndProblemClears: on a phone, the purchase's ticket step shows a
// running total that follows the + buttons, with the booking fees included and named once an
// order at the cinema has shown them (the total the seat step shows), and the "choose at least
// one ticket" problem goes away as soon as a ticket is chosen.
func TestBrowserTicketStepTotalAndProblemClears(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	resp, body := h.FreshBrowser().ChooseQty(bfftest.TwoAdults()) // another visitor's order shows the fee
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true})
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	if got := strings.TrimSpace(p.Text(`[data-testid="ticket-total"]`)); got != "No tickets chosen yet" {
		t.Errorf("total before any ticket %q", got)
	}
	p.Do(chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-clear-when-chosen]`))
	problem := strings.TrimSpace(p.Text(`[data-clear-when-chosen]`))
	if problem == "" {
		t.Fatal("no problem shown for a purchase of no tickets")
	}
	p.Do(chromedp.Click(`[data-testid="qty-plus-0001"]`), chromedp.Click(`[data-testid="qty-plus-0001"]`))
	if got, want := strings.TrimSpace(p.Text(`[data-testid="ticket-total"]`)), "2 tickets · €26.50 incl. €1.50 booking fees"; got != want {
		t.Errorf("total after two Adults %q, want %q", got, want)
	}
	var shown bool
	browserEval(t, p, `(() => { const n = document.querySelector('[data-clear-when-chosen]'); return !!n && !n.hidden && n.getClientRects().length > 0; })()`, &shown)
	if shown {
		t.Errorf("the problem %q still shows after two tickets were chosen", problem)
	}
}
