package browser_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// counterShots is where the counter's screenshots at 1280×800 go.
const counterShots = "/tmp/counter-shots"

// counterKey is one advertised key on a counter page and what pressing it must do.
type counterKey struct {
	page, key string
	// before runs first (put the page in the state the key acts on); check proves the effect.
	before func(t *testing.T, p *browsertest.Page)
	check  func(t *testing.T, p *browsertest.Page)
}

// TestBrowserCounterKeys: on an enrolled counter at 1280×800 with a clerk signed in, booking
// 100002 shows the customer's name and e-mail and its actions without scrolling, and every key
// a counter page advertises does what it says, from the look-up to the payment and Next customer.
func TestBrowserCounterKeys(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	p := browsertest.NewPage(t, browsertest.Options{Width: 1280, Height: 800, Timeout: 90 * time.Second})
	browserEnrol(t, p, h, device.Counter)
	base := h.TS.URL
	if err := os.MkdirAll(counterShots, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := func(name string) {
		png, err := chromedp.Run(p.Ctx, chromedp.CaptureScreenshot()) // the viewport: what is in view
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(counterShots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	// path is "" while the page is between two documents (a key's navigation under way): the
	// callers poll it.
	path := func() string {
		v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`location.pathname`))
		if err != nil {
			return ""
		}
		return v
	}
	active := func() string {
		return eval(`document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ""`)
	}
	blur := func(t *testing.T, p *browsertest.Page) {
		eval(`document.activeElement && document.activeElement.blur(), ""`)
	}
	waitFor := func(sel string) chromedp.Action[chromedp.Void] { return chromedp.WaitVisible(sel) }
	wantPath := func(want string) func(t *testing.T, p *browsertest.Page) {
		return func(t *testing.T, p *browsertest.Page) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for path() != want && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if got := path(); got != want {
				t.Fatalf("at %s, want %s", got, want)
			}
			p.Do(chromedp.WaitReady("body"))
		}
	}
	toBooking := func(t *testing.T, p *browsertest.Page) {
		p.Do(chromedp.Navigate(base+"/booking/current"), waitFor(`[data-testid="counter-booking"]`))
		blur(t, p)
	}

	p.Do(chromedp.Navigate(base+"/staff/sign-in"), waitFor(`#username`),
		chromedp.SendKeys(`#username`, "carl"), chromedp.SendKeys(`#password`, "clerk horse battery"),
		chromedp.Submit(`#password`), waitFor(`[data-testid="staff-badge"]`))
	p.Do(chromedp.Navigate(base+"/"), waitFor(`#home-title`))
	shot("home")

	// The booking at 1280×800: name, e-mail and the change actions in view without scrolling.
	p.Do(chromedp.Navigate(base+"/booking"), waitFor(`#number`))
	shot("find")
	p.Do(chromedp.SendKeys(`#number`, "100002"+kb.Enter), waitFor(`[data-testid="counter-booking"]`))
	shot("booking")
	inView := eval(`(function () {
		var out = [];
		['#booking-title', '[data-testid="customer-name"]', '[data-testid="customer-email"]', '[data-testid="paid-state"]',
		 '[data-testid="action-edit"] .button', '[data-testid="action-swap"] .button', '[data-testid="action-print"] .button'].forEach(function (s) {
			var el = document.querySelector(s);
			if (!el) { out.push(s + ' missing'); return; }
			var r = el.getBoundingClientRect();
			if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth || r.height === 0) out.push(s + ' out of view ' + JSON.stringify(r));
		});
		if (scrollY !== 0) out.push('scrolled ' + scrollY);
		if (document.querySelector('[data-testid="ticket-card"]')) out.push('ticket cards on the counter booking page');
		return out.join('; ');
	})()`)
	if inView != "" {
		t.Errorf("booking 100002 at 1280×800: %s", inView)
	}
	if got := p.Text(`[data-testid="customer-name"]`); got != "Alan Turing" {
		t.Errorf("customer name %q", got)
	}
	if got := p.Text(`[data-testid="customer-email"]`); !strings.Contains(got, "@") {
		t.Errorf("customer e-mail %q", got)
	}
	// The keys are drawn as keys: small, not fields.
	if wide := eval(`Array.prototype.filter.call(document.querySelectorAll('.kbd'), function (k) {
		var r = k.getBoundingClientRect(); return r.width > 80 || r.height > 32; }).map(function (k) { return k.textContent + ' ' + Math.round(k.getBoundingClientRect().width); }).join(', ')`); wide != "" {
		t.Errorf("keys drawn too large: %s", wide)
	}

	toHome := func(t *testing.T, p *browsertest.Page) {
		p.Do(chromedp.Navigate(base+"/"), waitFor(`#home-title`))
		blur(t, p)
	}
	var cancels int64 // CancelOrder calls before y on the cancel question
	keys := []counterKey{
		{page: "home", key: "w", before: toHome, check: wantPath("/whats-on")},
		{page: "home", key: "b", before: toHome, check: wantPath("/booking")},
		{page: "find", key: "/", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(chromedp.Navigate(base+"/booking"), waitFor(`#number`))
			blur(t, p)
		}, check: func(t *testing.T, p *browsertest.Page) {
			if a := active(); a != "number" {
				t.Errorf("/ focused %q, not the number field", a)
			}
		}},
		{page: "booking", key: "p", before: toBooking, check: wantPath("/booking/tickets")},
		{page: "print", key: kb.Escape, check: wantPath("/booking/current")},
		{page: "booking", key: kb.Escape, before: toBooking, check: wantPath("/booking")},
		{page: "booking", key: "s", before: toBooking, check: wantPath("/bookings/0001/100002/seats")},
		{page: "swap", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="seatmap"]`))
			shot("swap")
			blur(t, p)
		}, check: wantPath("/booking/current")},
		{page: "booking", key: "t", before: toBooking, check: wantPath("/booking/showtimes")},
		{page: "showtimes", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="showtime"]`))
			shot("showtimes")
			blur(t, p)
		}, check: wantPath("/booking/current")},
		{page: "booking", key: "t", before: toBooking, check: wantPath("/booking/showtimes")},
		{page: "showtimes", key: "1", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="showtime"]`))
			blur(t, p)
		}, check: func(t *testing.T, p *browsertest.Page) {
			wantPath("/booking/edit/seats")(t, p)
			p.Do(waitFor(`[data-testid="seats-show"]`))
		}},
		{page: "edit-seats", key: kb.Escape, before: blur, check: wantPath("/booking/edit")},
		{page: "edit", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="move-shows"]`))
			blur(t, p)
		}, check: wantPath("/booking/edit/cancel")},
		{page: "cancel", key: "y", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="cancel-back"]`))
			blur(t, p)
		}, check: wantPath("/booking/current")},
		{page: "booking", key: kb.Enter, before: toBooking, check: wantPath("/booking/edit")}, // Enter: the primary action, Change
		{page: "edit", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`#edit-title`))
			blur(t, p)
		}, check: wantPath("/booking/edit/cancel")},
		{page: "cancel", key: "y", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="cancel-back"]`))
			blur(t, p)
		}, check: wantPath("/booking/current")},
		{page: "booking", key: "e", before: toBooking, check: wantPath("/booking/edit")},
		{page: "edit", key: "1", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`#edit-title`))
			shot("edit")
			// The keys 1–6 sit inside their + buttons, clear of the border.
			if out := eval(`Array.prototype.map.call(document.querySelectorAll('.stepper-button .kbd'), function (k) {
				var b = k.closest('button').getBoundingClientRect(), r = k.getBoundingClientRect();
				return r.left - b.left < 3 || b.right - r.right < 3 || r.top < b.top || r.bottom > b.bottom ? k.textContent + ' ' + JSON.stringify(r) + ' in ' + JSON.stringify(b) : '';
			}).filter(String).join('; ')`); out != "" {
				t.Errorf("key badges overflow their + buttons: %s", out)
			}
			blur(t, p)
		}, check: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="line-added"]`))
		}},
		// More time posts its form and comes back to the same address: the check waits for the
		// new page (the old one is marked), or the next key lands on the page being left.
		{page: "edit", key: "m", before: func(t *testing.T, p *browsertest.Page) {
			blur(t, p)
			eval(`window.beforeMoreTime = true, ""`)
		}, check: func(t *testing.T, p *browsertest.Page) {
			p.Do(browsertest.Until(`!window.beforeMoreTime && location.pathname === "/booking/edit" && !!document.getElementById("edit-title")`))
			p.Do(chromedp.WaitReady("body"))
		}},
		{page: "edit", key: "s", before: blur, check: wantPath("/booking/edit/seats")},
		{page: "edit-seats", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="seat-form"]`))
			blur(t, p)
		}, check: wantPath("/booking/edit")},
		{page: "edit", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(chromedp.Navigate(base+"/booking/edit"), waitFor(`#edit-title`))
			blur(t, p)
		}, check: wantPath("/booking/edit/cancel")},
		{page: "cancel", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="cancel-back"]`))
			shot("cancel")
		}, check: wantPath("/booking/edit")},
		{page: "edit", key: kb.Enter, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`#edit-title`))
			blur(t, p)
		}, check: wantPath("/booking/edit/counter-payment")},
		{page: "counter-payment", key: "c", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`#counter-pay-title`))
			shot("payment")
			blur(t, p)
		}, check: func(t *testing.T, p *browsertest.Page) {
			if a, cash := active(), eval(`String(document.getElementById('method-cash').checked)`); a != "given" || cash != "true" {
				t.Errorf("c: cash chosen %s, focus on %q", cash, a)
			}
			if n := eval(`String(document.querySelectorAll('#reference, #method-terminal').length)`); n != "0" {
				t.Errorf("a clerk is offered a typed terminal reference")
			}
		}},
		{page: "counter-payment", key: "k", before: blur, check: func(t *testing.T, p *browsertest.Page) {
			if reader := eval(`String(document.getElementById('method-reader').checked)`); reader != "true" {
				t.Errorf("k: the card reader is not chosen")
			}
		}},
		{page: "counter-payment", key: "c", before: blur, check: func(t *testing.T, p *browsertest.Page) {
			p.Do(chromedp.SendKeys(`#given`, "50"), waitFor(`[data-testid="change-due"]`))
			shot("payment-cash")
			if got := p.Text(`[data-testid="change-due"]`); got != "€36.75" {
				t.Errorf("change due for 50 on %s: %q", p.Text(`[data-testid="counter-amount"]`), got)
			}
		}},
		{page: "counter-payment", key: kb.Escape, before: blur, check: wantPath("/booking/edit")},
		{page: "counter-payment", key: kb.Enter, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(chromedp.Navigate(base+"/booking/edit/counter-payment"), waitFor(`#counter-pay-title`),
				pressKey("c"), chromedp.SendKeys(`#given`, "20"))
			blur(t, p)
		}, check: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="changes"]`))
			shot("booking-after-cash")
			if got := p.Text(`[data-testid="changes"]`); !strings.Contains(got, "by cash") {
				t.Errorf("after the cash payment: %q", got)
			}
		}},
		{page: "booking", key: "e", before: blur, check: wantPath("/booking/edit")},
		{page: "edit", key: kb.Escape, before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`#edit-title`))
			blur(t, p)
		}, check: wantPath("/booking/edit/cancel")},
		{page: "cancel", key: "y", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="cancel-back"]`))
			cancels = h.SB.Calls("CancelOrder")
			blur(t, p)
		}, check: func(t *testing.T, p *browsertest.Page) {
			wantPath("/booking/current")(t, p)
			p.Do(waitFor(`[data-testid="counter-booking"]`))
			if h.SB.Calls("CancelOrder") == cancels {
				t.Errorf("y on the cancel question did not cancel the change upstream")
			}
		}},
		{page: "booking", key: "n", before: blur, check: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="notice-success"]`))
			shot("next-customer")
			if n := eval(`String(document.querySelectorAll('[data-testid="find-error"], .notice-error').length)`); n != "0" {
				t.Errorf("Next customer shows %s errors", n)
			}
		}},
		// The look-up opens with its field focused (for the scanner): while it holds only digits,
		// n still means Next customer, and a code's first letter types.
		{page: "find, field focused", key: "n", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(chromedp.Navigate(base+"/booking"), waitFor(`#number`))
			if a := active(); a != "number" {
				t.Fatalf("the look-up opens with the focus on %q, want the number field", a)
			}
		}, check: func(t *testing.T, p *browsertest.Page) {
			p.Do(waitFor(`[data-testid="notice-success"]`))
			if v := eval(`document.getElementById('number').value`); v != "" {
				t.Errorf("n typed into the number field: %q", v)
			}
		}},
		{page: "find, field focused", key: "t", before: func(t *testing.T, p *browsertest.Page) {
			p.Do(chromedp.Navigate(base+"/booking"), waitFor(`#number`))
		}, check: func(t *testing.T, p *browsertest.Page) {
			if v := eval(`document.getElementById('number').value`); v != "t" {
				t.Errorf("the first letter of a scanned code did not type: %q", v)
			}
		}},
	}
	for _, k := range keys {
		name := k.page + " " + strings.NewReplacer(kb.Escape, "Esc", kb.Enter, "Enter").Replace(k.key)
		if k.before != nil {
			k.before(t, p)
		}
		p.Do(pressKey(k.key))
		k.check(t, p)
		if t.Failed() {
			t.Fatalf("stopped after %s (at %s)", name, path())
		}
	}
	// No AssertNoConsoleErrors: Chromium logs the 422 of the refused payment form as an error.
}

// pressKey presses one key as a keyboard does: a keyDown that carries the key's text (so a
// keydown handler that calls preventDefault stops the text, as in a real browser) and a keyUp.
// chromedp.KeyEvent sends the text as a separate char event that lands in whatever field the
// handler focused.
func pressKey(key string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		k, ok := kb.Keys[[]rune(key)[0]]
		if !ok {
			return chromedp.Void{}, fmt.Errorf("no key %q", key)
		}
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: k.Key, Code: k.Code, Text: k.Text,
			UnmodifiedText: k.Unmodified, WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native}
		if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, down); err != nil {
			return chromedp.Void{}, fmt.Errorf("key down %q: %w", key, err)
		}
		up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: k.Key, Code: k.Code,
			WindowsVirtualKeyCode: k.Windows, NativeVirtualKeyCode: k.Native}
		if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, up); err != nil {
			return chromedp.Void{}, fmt.Errorf("key up %q: %w", key, err)
		}
		return chromedp.Void{}, nil
	}
}

// TestBrowserCounterSaleKeys: on the counter's ticket step of a sale, Esc goes back to the
// programme and Enter (no field focused) goes on to the seats with the tickets typed.
func TestBrowserCounterSaleKeys(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	p := browsertest.NewPage(t, browsertest.Options{Width: 1280, Height: 800})
	browserEnrol(t, p, h, device.Counter)
	base := h.TS.URL
	p.Do(chromedp.Navigate(base+"/staff/sign-in"), chromedp.WaitVisible(`#username`),
		chromedp.SendKeys(`#username`, "carl"), chromedp.SendKeys(`#password`, "clerk horse battery"),
		chromedp.Submit(`#password`), chromedp.WaitVisible(`[data-testid="staff-badge"]`))
	path := func() string { // "" between two documents: the callers poll it
		v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`location.pathname`))
		if err != nil {
			return ""
		}
		return v
	}
	unfocus := func() {
		if _, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur(), true)`)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ key, want string }{{kb.Escape, "/whats-on"}, {kb.Enter, "/checkout/seats"}} {
		p.Do(chromedp.Navigate(base+"/whats-on/0001/1113"), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
			chromedp.SetValue(`[data-testid="tickets-form"] input[type="number"]`, "2"))
		unfocus()
		p.Do(pressKey(tc.key), chromedp.WaitReady("body"))
		deadline := time.Now().Add(10 * time.Second)
		for path() != tc.want && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := path(); got != tc.want {
			t.Errorf("%q on the ticket step went to %s, want %s", tc.key, got, tc.want)
		}
	}
}
