package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// The seat map's counter and limit in the browser.

// evalBool evaluates a script condition in the page.
func evalBool(t *testing.T, p *browsertest.Page, script string) bool {
	t.Helper()
	ok, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](script))
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return ok
}

// freeEnabled counts the map's free seats that can still be ticked.
const freeEnabled = `document.querySelectorAll('[data-testid="seatmap"] label.seat:not(.seat-yours) input:not(:disabled):not(:checked)').length`

func evalInt(t *testing.T, p *browsertest.Page, script string) int {
	t.Helper()
	n, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](script))
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return n
}

// The swap page counts new seats against the tickets ticked to move (all of them when the
// page opens), and follows the ticks; with as many new seats as tickets, a tap on another
// seat moves the one chosen last.
func TestBrowserSwapCounterFollowsTickedTickets(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	addBrowserBookingBinder(h)
	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(
		chromedp.Navigate(h.TS.URL+"/test/bind-booking?cinema=0001&number=100001"),
		chromedp.WaitVisible(`[data-testid="seatmap"]`),
	)
	count := func() string { return p.Text(`[data-seat-count]`) }
	if got := count(); got != "0 of 2 new seats chosen" {
		t.Errorf("every ticket moves when the page opens: count %q", got)
	}
	p.Do(chromedp.Click(`#ticket-2-box`)) // the second ticket keeps its seat
	if got := count(); got != "0 of 1 new seat chosen" {
		t.Errorf("one ticket ticked: count %q", got)
	}
	p.Do(chromedp.Click(seatLabel("1-5-2")))
	if got := count(); got != "1 of 1 new seat chosen" {
		t.Errorf("one ticket, one seat: count %q", got)
	}
	// Another seat moves the choice: still one.
	p.Do(chromedp.Click(seatLabel("1-5-4")))
	if got, moved := count(), evalBool(t, p, `document.querySelector('input[value="1-5-4"]').checked && !document.querySelector('input[value="1-5-2"]').checked`); got != "1 of 1 new seat chosen" || !moved {
		t.Errorf("a second seat for one ticket: count %q, moved %v", got, moved)
	}
	p.Do(chromedp.Click(`#ticket-2-box`))
	if got := count(); got != "1 of 2 new seats chosen" {
		t.Errorf("two tickets, one seat: count %q", got)
	}
	if n := evalInt(t, p, freeEnabled); n == 0 {
		t.Error("no seat can be ticked for the second ticket")
	}
	p.Do(chromedp.Click(`#ticket-1-box`), chromedp.Click(`#ticket-2-box`))
	if got := count(); got != "1 new seat chosen. First tick the tickets that move." {
		t.Errorf("tickets unticked: count %q", got)
	}
	p.Screenshot("swap-counter")
	p.AssertNoConsoleErrors()
}

// On the purchase's seat map a tap on another free seat with as many seats as tickets moves
// the seat chosen last there and says so (no warning, no refusal: nothing is wrong).
func TestBrowserBuySeatMapStopsAtTheTickets(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "2"),
		chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	hintShown := `!document.querySelector('[data-testid="seat-limit"]').hidden`
	checked := `[...document.querySelectorAll('[data-testid="seatmap"] .seat input:checked')].map(b => b.value).sort().join(' ')`
	before, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](checked))
	if err != nil || len(strings.Fields(before)) != 2 {
		t.Fatalf("the order's two seats are not ticked: %q %v", before, err)
	}
	if evalBool(t, p, hintShown) {
		t.Errorf("a warning at the limit: %q", p.Text(`[data-testid="seat-limit"]`))
	}
	p.Do(chromedp.Click(seatLabel("1-1-2")), chromedp.WaitVisible(`[data-testid="seat-tapped"]:not(:empty)`))
	if got := p.Text(`[data-testid="seat-tapped"]`); !strings.HasPrefix(got, "Row B · Seat ") || !strings.Contains(got, " · chosen instead of Row G · Seat ") {
		t.Errorf("tap on a free seat at the limit: %q", got)
	}
	after, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[string](checked))
	if n := len(strings.Fields(after)); n != 2 || !strings.Contains(after, "1-1-2") || after == before {
		t.Errorf("after a tap at the limit the seats are %q (before %q): want B's seat in place of the first", after, before)
	}
	if got := p.Text(`[data-seat-count]`); got != "2 of 2 seats chosen" || evalBool(t, p, hintShown) {
		t.Errorf("count %q, hint shown %v", got, evalBool(t, p, hintShown))
	}
	p.Screenshot("buy-limit-full")
	// Back to the order's own seats: untick B's and tick the one it replaced.
	p.Do(chromedp.Click(seatLabel("1-1-2")))
	if got := p.Text(`[data-seat-count]`); got != "1 of 2 seats chosen" {
		t.Errorf("count %q", got)
	}
	for _, v := range strings.Fields(before) {
		if !strings.Contains(after, v) {
			p.Do(chromedp.Click(seatLabel(v)))
		}
	}
	if got, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[string](checked)); got != before {
		t.Errorf("after choosing the seat again: %q, want %q", got, before)
	}
	p.Screenshot("buy-limit-chosen")
	p.Do(chromedp.Click(`[data-testid="seat-form"] button.button-primary`), chromedp.WaitVisible(`#name`))
	p.AssertNoConsoleErrors()
}

// seatLabel selects the seat map's label of the seat "area-row-col" (the seat is its input's
// value; seats carry no test id of their own).
func seatLabel(value string) chromedp.CSS {
	return chromedp.CSS(`label.seat:has(> input[value="` + value + `"])`)
}
