package browser_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// kioskTouchToStart begins a visit on the kiosk's attract screen and waits for the start screen.
func kioskTouchToStart(p *browsertest.Page, base string) {
	p.Do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`),
		chromedp.Click(`[data-testid="kiosk-touch-to-start"]`), chromedp.WaitVisible(`[data-testid="kiosk-start"]`))
}

// scanFieldFocused waits until the collection's scan field has the focus. The scanner is a
// keyboard that types into whatever has it, and the field gets it from the page's autofocus,
// which a busy browser gives a moment after the field shows: a code typed before that goes
// nowhere.
func scanFieldFocused(t *testing.T, p *browsertest.Page) {
	t.Helper()
	if _, err := chromedp.Run(p.Ctx, chromedp.Poll[bool](`document.activeElement !== null && document.activeElement.id === "collect-code"`)); err != nil {
		t.Fatalf("the scan field never got the focus: %v", err)
	}
}

// TestBrowserKioskIdleReset: a kiosk left alone warns ("touch to continue"), then ends the visit
// and returns to the start; it stays a kiosk.
func TestBrowserKioskIdleReset(t *testing.T) {
	t.Parallel() // mostly waiting out the idle timer and its 20 s warning: the wait overlaps others
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, KioskIdle: 4 * time.Second})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	browserFind(p, h.TS.URL, "100001", "paid1@example.com")
	p.Do(chromedp.WaitVisible("#idle-warning"))
	p.Screenshot("kiosk-idle-warning")
	p.Do(chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	if cls, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.body.className`)); err != nil || !strings.Contains(cls, "mode-kiosk") {
		t.Fatalf("not a kiosk after the reset: %q %v", cls, err)
	}
	p.AssertNoConsoleErrors()
	// The visit ended: the booking is no longer bound (that page answers 404 now).
	p.Do(chromedp.Navigate(h.TS.URL + "/booking/current"))
	if got := p.Text("h1"); !strings.Contains(got, "Find your booking first") {
		t.Fatalf("booking still bound after the idle reset: %q", got)
	}
}

// TestBrowserKioskLanguageWithoutJavaScript: on a kiosk without JavaScript a guest presses
// "Deutsch" on the start screen and the kiosk speaks German for the visit; Start over brings
// back the kiosk's own language (here the site's, English) for the next guest.
func TestBrowserKioskLanguageWithoutJavaScript(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, NoJavaScript: true})
	browserEnrol(t, p, h, device.Kiosk)
	kioskTouchToStart(p, h.TS.URL)
	if got := p.Text("#home-title"); got != "Welcome! What would you like to do?" {
		t.Fatalf("start screen %q", got)
	}
	p.Do(chromedp.Click(`[data-testid="kiosk-languages"] a[hreflang="de"]`), chromedp.WaitVisible(`[data-testid="kiosk-languages"] a[hreflang="de"][aria-current="true"]`))
	if got := p.Text("#home-title"); got != "Willkommen! Was möchten Sie tun?" {
		t.Fatalf("after choosing Deutsch the start screen says %q", got)
	}
	p.Screenshot("kiosk-start-de")
	p.Do(chromedp.Click(`[data-testid="kiosk-collect"]`), chromedp.WaitVisible("#collect-code"))
	if got := p.Text("h1"); got != "Holen Sie Ihre Tickets ab" {
		t.Fatalf("the visit's next page says %q", got)
	}
	p.Do(chromedp.Click(`[data-testid="start-over"] button`), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	kioskTouchToStart(p, h.TS.URL)
	if got := p.Text("#home-title"); got != "Welcome! What would you like to do?" {
		t.Fatalf("after Start over the start screen says %q", got)
	}
	p.AssertNoConsoleErrors()
}

// TestBrowserKioskPicksTheAreaFirst: on the kiosk the 412-seat auditorium at fit has seats
// smaller than a finger, so a tap first picks the part of the auditorium (the hint says so and
// the seats do not take the tap), which then opens with seats of at least 48 px that do; Fit
// goes back to the overview.
func TestBrowserKioskPicksTheAreaFirst(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.SetValue(`#qty-0001`, "1"),
		chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`), chromedp.WaitVisible(`[data-testid="seatmap"] [data-seatmap-zoom]`))
	type state struct {
		Picking  bool    `json:"picking"`
		HintShow bool    `json:"hint"`
		Seat     float64 `json:"seat"`
		Chosen   int     `json:"chosen"`
		X, Y     float64
	}
	read := func() state {
		t.Helper()
		s, err := chromedp.Run(p.Ctx, chromedp.Evaluate[state](`(() => {
			const m = document.querySelector('[data-testid="seatmap"]');
			const sc = m.querySelector('.seatmap-scroll').getBoundingClientRect();
			return {picking: m.hasAttribute('data-pick-area'), hint: !m.querySelector('[data-area-hint]').hidden,
				seat: m.querySelector('.seatmap-scroll .seat').getBoundingClientRect().width,
				chosen: m.querySelectorAll('input[name="seat"]:checked').length,
				X: sc.left + sc.width / 2, Y: sc.top + sc.height / 2};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := read()
	if s.Seat >= 48 {
		t.Fatalf("seats are %.0f px at fit on the kiosk: the plan is not large enough to test this", s.Seat)
	}
	if !s.Picking || !s.HintShow {
		t.Fatalf("the overview does not ask for the area first: %+v", s)
	}
	p.Screenshot("kiosk-seatmap-pick-area")
	p.Do(chromedp.MouseClickXY(s.X, s.Y))
	after := read()
	if after.Picking || after.HintShow || after.Seat < 48 || after.Chosen != s.Chosen {
		t.Fatalf("after picking the area: %+v (want seats ≥ 48 px and the tap choosing nothing; before %+v)", after, s)
	}
	p.Screenshot("kiosk-seatmap-area")
	// Now a tap on a seat in view takes it (with the party complete, the seat chosen longest
	// ago moves there).
	free, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[2]float64](`(() => {
		const sc = document.querySelector('[data-testid="seatmap"] .seatmap-scroll').getBoundingClientRect();
		for (const i of document.querySelectorAll('[data-testid="seatmap"] input[name="seat"]:not(:disabled):not(:checked)')) {
			const r = i.closest('.seat').getBoundingClientRect();
			const x = r.left + r.width / 2, y = r.top + r.height / 2;
			const hit = document.elementFromPoint(x, y);
			if (r.left >= sc.left && r.right <= sc.right && r.top >= sc.top && r.bottom <= sc.bottom && hit && i.closest('.seat').contains(hit)) { i.setAttribute('data-test-tapped', ''); return [x, y]; }
		}
		return [0, 0];
	})()`))
	if err != nil || free[0] == 0 {
		t.Fatalf("no free seat in view after zooming: %v", err)
	}
	p.Do(chromedp.MouseClickXY(free[0], free[1]))
	taken, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`document.querySelector('[data-test-tapped]').checked`))
	if err != nil || !taken {
		t.Fatalf("a tap on a free seat at 48 px did not take it (%v)", err)
	}
	p.Do(chromedp.Click(`[data-testid="seatmap"] [data-zoom="fit"]`))
	if got := read(); !got.Picking || got.Seat >= 48 {
		t.Fatalf("Fit did not go back to the overview: %+v", got)
	}
	p.AssertNoConsoleErrors()
}
