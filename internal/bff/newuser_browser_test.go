package bff

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// Issue 14, items 4 and 5: the seat map's counter and limit in the browser.

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

// Item 4: the swap page counts new seats against the tickets ticked to move, and follows the
// ticks.
func TestBrowserSwapCounterFollowsTickedTickets(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	addBrowserBookingBinder(h)
	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(
		chromedp.Navigate(h.ts.URL+"/test/bind-booking?cinema=0001&number=100001"),
		chromedp.WaitVisible(`[data-testid="seatmap"]`),
	)
	count := func() string { return p.Text(`[data-seat-count]`) }
	if got := count(); got != "0 new seats chosen. First tick the tickets that move." {
		t.Errorf("no ticket ticked: count %q", got)
	}
	p.Do(chromedp.Click(`#ticket-1-box`))
	if got := count(); got != "0 of 1 new seat chosen" {
		t.Errorf("one ticket ticked: count %q", got)
	}
	p.Do(chromedp.Click(seatLabel("1-5-2")))
	if got := count(); got != "1 of 1 new seat chosen" {
		t.Errorf("one ticket, one seat: count %q", got)
	}
	if n := evalInt(t, p, freeEnabled); n != 0 {
		t.Errorf("%d more seats can be ticked for one ticket", n)
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
		t.Errorf("tickets unticked again: count %q", got)
	}
	p.Screenshot("swap-counter")
	p.AssertNoConsoleErrors()
}

// Item 5: on the purchase's seat map no more seats than tickets can be ticked, and a tap on
// another seat says what was chosen (no warning: nothing is wrong; issue 28).
func TestBrowserBuySeatMapStopsAtTheTickets(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(chromedp.Navigate(h.ts.URL+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "2"),
		chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	hintShown := `!document.querySelector('[data-testid="seat-limit"]').hidden`
	// The two seats held for the order are ticked: no third one can be.
	if n := evalInt(t, p, freeEnabled); n != 0 {
		t.Fatalf("%d more seats can be ticked with both tickets seated", n)
	}
	// As many seats as tickets is not a warning (issue 28): the hint above the map stays
	// hidden, and a tap on another free seat says how to choose it.
	if evalBool(t, p, hintShown) {
		t.Errorf("a warning at the limit: %q", p.Text(`[data-testid="seat-limit"]`))
	}
	p.Do(chromedp.Click(seatLabel("1-1-2")), chromedp.WaitVisible(`[data-testid="seat-tapped"]`))
	if got := p.Text(`[data-testid="seat-tapped"]`); !strings.HasSuffix(got, ". You have chosen 2 seats. Untick one to choose another.") ||
		!strings.HasPrefix(got, "Row B · Seat ") {
		t.Errorf("tap on a free seat at the limit: %q", got)
	}
	p.Screenshot("buy-limit-full")
	// Untick one: the others can be chosen again and the hint goes. G14 of the order's G13–G14:
	// without it G13 still sits beside the booked G12, while without G13 G14 would leave G13
	// alone there, which the seating rules refuse.
	p.Do(chromedp.Click(seatLabel("1-6-15")))
	if got := p.Text(`[data-seat-count]`); got != "1 of 2 seats chosen" {
		t.Errorf("count %q", got)
	}
	if evalBool(t, p, hintShown) || evalInt(t, p, freeEnabled) == 0 {
		t.Error("after unticking one: hint still shown or no seat can be ticked")
	}
	p.Do(chromedp.Click(seatLabel("1-1-2")))
	if got := p.Text(`[data-seat-count]`); got != "2 of 2 seats chosen" || evalInt(t, p, freeEnabled) != 0 || evalBool(t, p, hintShown) {
		t.Errorf("after choosing another: count %q, hint shown %v", got, evalBool(t, p, hintShown))
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
