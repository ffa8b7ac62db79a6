package browser_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// actionShots is where TestBrowserPrimaryActionInReach saves what each page shows as it opens
// (the viewport only: what is in reach without scrolling).
const actionShots = "/tmp/actions-shots"

// maxPhoneHeader is how tall the site header may be on a phone.
const maxPhoneHeader = 96

// actionBox is where a page's primary action is as the page opens.
type actionBox struct {
	Found                           bool
	Top, Bottom, Left, Right, Width float64
	ScrollY, ViewW, ViewH           float64
	Header                          float64
}

// measureAction reads the bounding box of sel, the scroll position, the viewport and the
// header's height, all in one evaluation.
func measureAction(t *testing.T, p *browsertest.Page, sel string) actionBox {
	t.Helper()
	box, err := chromedp.Run(p.Ctx, chromedp.Evaluate[actionBox](fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		const hd = document.querySelector('.site-header');
		const out = {Found: !!el, ScrollY: window.scrollY, ViewW: window.innerWidth, ViewH: window.innerHeight,
			Header: hd ? hd.getBoundingClientRect().height : 0};
		if (el) {
			const r = el.getBoundingClientRect();
			Object.assign(out, {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right, Width: r.width});
		}
		return out;
	})()`, sel)))
	if err != nil {
		t.Fatalf("measure %s: %v", sel, err)
	}
	return box
}

// TestBrowserPrimaryActionInReach: on every step of the three jobs, at a phone's
// size with touch and at a desktop's, the page's primary action is wholly inside the viewport
// as the page opens, before anything scrolls; on the phone the header is at most 96 px tall.
// Each page's first screen is saved to /tmp/actions-shots/<page>-<size>.png.
func TestBrowserPrimaryActionInReach(t *testing.T) {
	t.Parallel()
	if err := os.MkdirAll(actionShots, 0o755); err != nil {
		t.Fatal(err)
	}
	sizes := []struct {
		name          string
		width, height int64
		touch         bool
	}{
		{"phone", 390, 844, true},
		{"desktop", 1280, 800, false},
	}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			t.Parallel()
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			addBrowserBookingBinder(h)
			b := browsertest.NewBrowser(t)
			base := h.TS.URL
			var p *browsertest.Page
			open := func() {
				p = b.NewPage(t, browsertest.Options{Width: size.width, Height: size.height, Mobile: size.touch})
			}
			// check asserts that the primary action sel of the page just opened is in view.
			check := func(page, sel string) {
				t.Helper()
				box := measureAction(t, p, sel)
				shot, err := chromedp.Run(p.Ctx, chromedp.CaptureScreenshot())
				if err == nil {
					_ = os.WriteFile(filepath.Join(actionShots, page+"-"+size.name+".png"), shot, 0o644)
				}
				where := page + " at " + size.name
				switch {
				case !box.Found:
					t.Errorf("%s: no primary action %s", where, sel)
				case box.ScrollY != 0:
					t.Errorf("%s: the page opened scrolled to %v", where, box.ScrollY)
				case box.Width == 0 || box.Top < 0 || box.Left < 0 || box.Bottom > box.ViewH || box.Right > box.ViewW:
					t.Errorf("%s: primary action %s at top %.0f bottom %.0f (left %.0f right %.0f), viewport %.0f×%.0f",
						where, sel, box.Top, box.Bottom, box.Left, box.Right, box.ViewW, box.ViewH)
				}
				if size.touch && box.Header > maxPhoneHeader {
					t.Errorf("%s: the header is %.0f px tall, want at most %d", where, box.Header, maxPhoneHeader)
				}
			}

			// The booking, its change page and the change's seat step.
			open()
			browserFind(p, base, "100002", "paid2@example.com")
			check("booking", `[data-testid="action-edit"] button.button-primary`)
			p.Do(chromedp.Click(`[data-testid="action-edit"] button`), chromedp.WaitVisible("#edit-title"))
			check("edit", `[data-testid="complete-form"] button.button-primary`)
			p.Do(chromedp.Navigate(base+"/booking/edit/seats"), chromedp.WaitVisible(`[data-testid="seatmap"]`))
			check("edit-seats", `[data-testid="seat-form"] button.button-primary`)

			// The purchase: tickets, seats, details, summary (with Pay).
			open()
			p.Do(chromedp.Navigate(base+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`))
			check("buy-tickets", `[data-testid="tickets-form"] button.button-primary`)
			p.Do(chromedp.SetValue(`#qty-0001`, "2"), chromedp.Click(`[data-testid="tickets-form"] button[type=submit]`),
				chromedp.WaitVisible(`[data-testid="seatmap"]`))
			check("buy-seats", `[data-testid="seat-form"] button.button-primary`)
			p.Do(chromedp.Click(`[data-testid="seat-form"] button.button-primary`), chromedp.WaitVisible(`#name`))
			check("buy-details", `[data-testid="details-form"] button.button-primary`)
			// A tap on a field's visible half focuses it without scrolling: the page then
			// brings the whole field out from under the sticky action bar. A night showing's
			// German heading runs to four lines; the heading is made that tall here.
			for _, lang := range []string{"de", "en"} {
				p.Do(chromedp.Navigate(base+"/checkout/details?lang="+lang), chromedp.WaitVisible(`#email`))
				for _, field := range []string{"#name", "#email"} {
					var clear bool
					browserEval(t, p, `new Promise(done => {
						document.querySelector('main h1').style.marginBottom = '6rem';
						window.scrollTo(0, 0);
						const f = document.querySelector('`+field+`');
						f.focus({preventScroll: true});
						requestAnimationFrame(() => requestAnimationFrame(() =>
							done(f.getBoundingClientRect().bottom <= document.querySelector('.action-bar').getBoundingClientRect().top)));
					})`, &clear)
					if !clear {
						t.Errorf("buy-details (%s) at %s: the focused %s is under the sticky action bar", lang, size.name, field)
					}
				}
			}
			p.Do(chromedp.SendKeys(`#name`, "Ada Lovelace"), chromedp.SendKeys(`#email`, "ada@example.com"),
				chromedp.Click(`[data-testid="details-form"] button.button-primary`), chromedp.WaitVisible(`[data-testid="pay"]`))
			check("buy-summary", `[data-testid="pay"]`)

			// The swap: its seat map, then the review of the move.
			open()
			p.Do(chromedp.Navigate(base+"/test/bind-booking?cinema=0001&number=100001"), chromedp.WaitVisible(`[data-testid="seatmap"]`))
			check("swap-seats", `[data-testid="swap-form"] button[type="submit"]`)
			if !evalBool(t, p, `(() => {
				const ticket = document.querySelector('input[name="ticket"][value="1"]');
				const seat = document.querySelector('input[name="seat"][value="1-5-2"]');
				if (!ticket || !seat) return false;
				ticket.click();
				seat.click();
				document.querySelector('[data-testid="swap-form"]').requestSubmit();
				return true;
			})()`) {
				t.Fatal("swap: no ticket 1 or seat 1-5-2 to choose")
			}
			p.Do(chromedp.WaitVisible(`[data-testid="confirm-form"] button`)) // the form itself is display: contents
			check("swap-review", `[data-testid="confirm-form"] button.button-primary`)
			p.AssertNoConsoleErrors()
		})
	}
}
