package browser_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestBrowserCounterSeatMapByKeys: at the counter (1280×800) a clerk moves a customer's seat
// with the keyboard alone: Tab reaches the map in a few stops (not seat by seat), Space
// releases the seat, the arrow keys move to a free one, Space takes it and c saves the seats.
// The booking is 100002 (F14, F15); the seat moved is F14.
func TestBrowserCounterSeatMapByKeys(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	p := browsertest.NewPage(t, browsertest.Options{Width: 1280, Height: 800, Timeout: 90 * time.Second})
	browserEnrol(t, p, h, device.Counter)
	base := h.TS.URL
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	seat := func() string {
		return eval(`(function () { var a = document.activeElement; return a && a.matches('.seatmap .seat-row input[type=checkbox]') ? a.value + (a.checked ? ' ticked' : ' free') : ''; })()`)
	}
	p.Do(chromedp.Navigate(base+"/staff/sign-in"), chromedp.WaitVisible(`#username`),
		chromedp.SendKeys(`#username`, "carl"), chromedp.SendKeys(`#password`, "clerk horse battery"),
		chromedp.Submit(`#password`), chromedp.WaitVisible(`[data-testid="staff-badge"]`))
	p.Do(chromedp.Navigate(base+"/booking"), chromedp.WaitVisible(`#number`),
		chromedp.SendKeys(`#number`, "100002"+kb.Enter), chromedp.WaitVisible(`[data-testid="counter-booking"]`))
	p.Do(pressKey("e"), chromedp.WaitVisible(`#edit-title`))
	eval(`document.activeElement && document.activeElement.blur(), ""`)
	p.Do(pressKey("s"), chromedp.WaitVisible(`[data-testid="seat-form"]`))
	if strip := p.Text(`[data-testid="customer-strip"]`); !strings.Contains(strip, "Booking 100002") {
		t.Errorf("the seat page's customer strip: %q", strip)
	}

	tabs := 0
	for seat() == "" && tabs < 30 {
		p.Do(pressKey(kb.Tab))
		tabs++
	}
	first := seat()
	if !strings.HasSuffix(first, " ticked") || tabs > 15 {
		t.Fatalf("after %d Tabs the focus is on %q, want one of the customer's seats within a few stops", tabs, first)
	}
	// The map is one stop for Tab, not one per seat.
	if n := eval(`String(document.querySelectorAll('.seatmap .seat-row input[type=checkbox]:not([tabindex="-1"]):not(:disabled)').length)`); n != "1" {
		t.Fatalf("%s seats are Tab stops, want 1", n)
	}
	p.Do(pressKey(" "))
	if s := seat(); !strings.HasSuffix(s, " free") {
		t.Fatalf("Space did not release the seat: %q", s)
	}
	// To the right, past the customer's other seat F15: a free seat to the left (F13) would
	// leave F14 alone between the two, which the seating rules refuse.
	var target string
	for range 6 {
		p.Do(pressKey(kb.ArrowRight))
		if s := seat(); strings.HasSuffix(s, " free") && s != strings.Replace(first, "ticked", "free", 1) {
			target = s
			break
		}
	}
	if target == "" {
		p.Do(pressKey(kb.ArrowDown))
		target = seat()
	}
	if !strings.HasSuffix(target, " free") {
		t.Fatalf("the arrow keys found no free seat: %q", target)
	}
	p.Do(pressKey(" "))
	if s := seat(); !strings.HasSuffix(s, " ticked") {
		t.Fatalf("Space did not take the seat: %q", s)
	}
	p.Do(pressKey("c"), chromedp.WaitVisible(`#edit-title`))
	if got := eval(`location.pathname`); got != "/booking/edit" {
		t.Fatalf("c on the seat map went to %s", got)
	}
	if n := eval(`String(document.querySelectorAll('[data-testid="line-moved"], [data-testid="seat-moved"]').length)`); n == "0" {
		t.Errorf("the change does not show a moved seat: %s", p.Text(`main`))
	}
	p.AssertNoConsoleErrors()
}
