package browser_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// saleKeys is one clerk at a counter (1280×800) driven by key presses only.
type saleKeys struct {
	t    *testing.T
	p    *browsertest.Page
	lang string // the pages' language, for the screenshots' folder
}

func (s saleKeys) eval(expr string) string {
	s.t.Helper()
	v, err := chromedp.Run(s.p.Ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		s.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// press presses each key in turn, as a keyboard does.
func (s saleKeys) press(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.p.Do(pressKey(k))
	}
}

// typeText presses the key of each character of text.
func (s saleKeys) typeText(text string) {
	s.t.Helper()
	for _, r := range text {
		s.p.Do(pressKey(string(r)))
	}
}

// loaded reports whether the page is loaded at a path that is as wanted. A page between two
// documents (a key's navigation under way) answers with an error: not yet.
func (s saleKeys) loaded(want func(path string) bool) bool {
	v, err := chromedp.Run(s.p.Ctx, chromedp.Evaluate[[2]string](`[location.pathname, document.readyState]`))
	return err == nil && want(v[0]) && v[1] == "complete"
}

// at waits until the page is at path (and loaded).
func (s saleKeys) at(path string) {
	s.t.Helper()
	s.atWhere(path, func(p string) bool { return p == path })
}

// atPrefix waits until the page's path starts with prefix.
func (s saleKeys) atPrefix(prefix string) {
	s.t.Helper()
	s.atWhere(prefix+"…", func(p string) bool { return strings.HasPrefix(p, prefix) })
}

// atWhere waits up to 15 s until the page is loaded at a path that is as wanted (said in want).
func (s saleKeys) atWhere(want string, ok func(path string) bool) {
	s.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if s.loaded(ok) {
			return
		}
	}
	s.t.Fatalf("at %s, want %s", s.eval(`location.pathname`), want)
}

// focused is the focused element as a selector-like string: #id, or the tag.
func (s saleKeys) focused() string {
	return s.eval(`(function () { var a = document.activeElement; if (!a || a === document.body) return 'body';
		return a.id ? '#' + a.id : a.tagName.toLowerCase() + (a.name ? '[name=' + a.name + ']' : ''); })()`)
}

// wantFocus fails unless the element matching sel has the focus.
func (s saleKeys) wantFocus(step, sel string) {
	s.t.Helper()
	if s.eval(`String(!!document.activeElement && document.activeElement.matches(`+jsString(sel)+`))`) != "true" {
		s.t.Fatalf("%s: the focus is on %s, want %s", step, s.focused(), sel)
	}
}

// wantInView fails unless every selector's element is wholly inside the viewport and topmost
// at its centre (nothing sticky covers it).
func (s saleKeys) wantInView(step string, sels ...string) {
	s.t.Helper()
	for _, sel := range sels {
		got := s.eval(`(function () {
			var el = document.querySelector(` + jsString(sel) + `);
			if (!el) return 'missing';
			el = el.closest('label') || el; // a seat's box is drawn by its label
			var r = el.getBoundingClientRect();
			if (r.height === 0 || r.width === 0) return 'not shown';
			if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return 'out of view ' + JSON.stringify(r);
			var top = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 20));
			if (top && top !== el && !el.contains(top)) return 'covered by ' + top.tagName + '.' + top.className;
			return '';
		})()`)
		if got != "" {
			s.t.Errorf("%s: %s is %s", step, sel, got)
		}
	}
}

// shot saves what is in view (the viewport, not the full page).
func (s saleKeys) shot(name string) {
	s.t.Helper()
	png, err := chromedp.Run(s.p.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join(browsertest.ArtifactsDir(s.t), "counter-cash-sale", s.lang)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// TestBrowserCounterCashSaleByKeys: a clerk at a counter (1280×800) sells two adult tickets
// for cash with the keyboard alone, no click and no Tab beyond one per field: each step has
// the focus where the next key belongs (the first quantity, the seat map, the name field, the
// amount given), the seat map and each step's primary action are in view and
// not under the sticky bar; after Next customer, / and the number find the booking just sold;
// / finds a booking from a sale's page too; Next customer during an open sale asks first, and
// Esc keeps the sale while y releases it and says so.
func TestBrowserCounterCashSaleByKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, released string }{
		{"en", "Released: 2 tickets for"},
		{"de", "Freigegeben: 2 Tickets für"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			counterCashSaleByKeys(t, tc.lang, tc.released)
		})
	}
}

// counterCashSaleByKeys is the sale of TestBrowserCounterCashSaleByKeys on pages in lang;
// released is how Next customer's notice starts after letting go of an open sale.
func counterCashSaleByKeys(t *testing.T, lang, released string) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	p := browsertest.NewPage(t, browsertest.Options{Width: 1280, Height: 800, Timeout: 120 * time.Second})
	browserEnrol(t, p, h, device.Counter)
	s := saleKeys{t: t, p: p, lang: lang}
	p.Do(chromedp.Navigate(h.TS.URL+"/staff/sign-in?lang="+lang), chromedp.WaitVisible(`#username`))
	s.wantFocus("sign-in", "#username")
	s.typeText("carl")
	s.press(kb.Tab)
	s.typeText("clerk horse battery")
	s.press(kb.Enter)
	p.Do(chromedp.WaitVisible(`[data-testid="staff-badge"]`))

	// The programme: w from wherever the sign-in lands, then the first showing's number key.
	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`#home-title`))
	s.press("w")
	s.at("/whats-on")
	s.press("1")
	s.atPrefix("/whats-on/")

	// Tickets: the first quantity has the focus; 2 and Enter go on to the seats.
	p.Do(chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	s.wantFocus("ticket step", `[data-testid="tickets-form"] input[type=number]`)
	s.shot("1-tickets")
	s.typeText("2")
	s.wantInView("ticket step", `[data-testid="tickets-form"] button[data-shortcut="Enter"]`)
	s.press(kb.Enter)
	s.at("/checkout/seats")

	// Seats: the two suggested seats are ticked and the map has the focus (on a chosen seat:
	// the arrow keys and Space work at once, c still continues); the map and Continue are in
	// view, not under the sticky bar.
	p.Do(chromedp.WaitVisible(`[data-testid="seatmap"]`))
	s.shot("2-seats")
	s.wantFocus("seat step", `.seatmap .seat-row input[type=checkbox]:checked`)
	s.wantInView("seat step", `.seatmap .seat-row input[type=checkbox]:checked`, `[data-testid="seat-form"] button[data-shortcut="c"]`)
	s.press("c")
	s.at("/checkout/details")

	// Details: the name field has the focus; one Tab to the e-mail; Enter goes on.
	p.Do(chromedp.WaitVisible(`[data-testid="details-form"]`))
	s.wantFocus("details step", "#name")
	s.shot("3-details")
	s.typeText("Walk In")
	s.press(kb.Tab)
	s.wantFocus("details step, one Tab", "#email")
	s.typeText("walkin@example.com")
	s.wantInView("details step", `[data-testid="details-form"] button[data-shortcut="Enter"]`)
	s.press(kb.Enter)
	s.at("/checkout")

	// Review: Enter pays.
	p.Do(chromedp.WaitVisible(`[data-testid="pay"]`))
	s.shot("4-review")
	s.wantInView("review", `[data-testid="pay"]`)
	s.press(kb.Enter)
	s.at("/checkout/counter-payment")

	// Payment: c chooses cash and focuses the amount given; 30 and Enter take it.
	p.Do(chromedp.WaitVisible(`#counter-pay-title`))
	s.press("c")
	s.wantFocus("payment, c", "#given")
	s.typeText("30")
	p.Do(chromedp.WaitVisible(`[data-testid="change-due"]`))
	s.wantInView("payment", `[data-testid="change-due"]`, `[data-testid="counter-pay-submit"]`)
	s.shot("5-payment")
	s.press(kb.Enter)
	s.atPrefix("/checkout/payments/")
	p.Do(chromedp.WaitVisible(`[data-testid="booking-number"]`))
	s.shot("6-confirmed")
	number := strings.TrimSpace(p.Text(`[data-testid="booking-number"]`))
	if number == "" || strings.Trim(number, "0123456789") != "" {
		t.Fatalf("the sale's booking number is %q", number)
	}

	// Next customer, then / and the number: the booking just sold.
	s.press("n")
	s.at("/booking")
	p.Do(chromedp.WaitVisible(`[data-testid="notice-success"]`))
	s.press("/")
	s.wantFocus("look-up, /", "#number")
	if v := s.eval(`document.getElementById('number').value`); v != "" {
		t.Fatalf("/ typed into the look-up field: %q", v)
	}
	// In a field of numbers / is the key too: digits typed so far stay as they are.
	s.typeText("12")
	s.press("/")
	if v := s.eval(`document.getElementById('number').value`); v != "12" {
		t.Fatalf("/ after 12 in the look-up field left %q, want 12", v)
	}
	s.eval(`document.getElementById('number').value = ''`)
	s.typeText(number)
	s.press(kb.Enter)
	p.Do(chromedp.WaitVisible(`[data-testid="counter-booking"]`))
	s.shot("7-found")

	// A second sale, left open on its seat step: / finds a booking from there too.
	s.startSale()
	s.press("/")
	s.at("/booking")
	s.typeText(number)
	s.press(kb.Enter)
	p.Do(chromedp.WaitVisible(`[data-testid="counter-booking"]`))

	// Next customer during the open sale asks first; Esc keeps the sale.
	cancels := h.SB.Calls("CancelOrder")
	s.press("n")
	s.at("/staff/next-customer")
	p.Do(chromedp.WaitVisible(`[data-testid="next-confirm"]`))
	s.shot("8-next-question")
	s.wantInView("next-customer question", `[data-testid="next-confirm"]`, `[data-testid="next-keep"]`)
	s.press(kb.Escape)
	s.atPrefix("/")
	if h.SB.Calls("CancelOrder") != cancels {
		t.Fatalf("Esc on the question released the sale")
	}
	// y releases it and says what it released.
	s.press("n")
	s.at("/staff/next-customer")
	s.press("y")
	s.at("/booking")
	p.Do(chromedp.WaitVisible(`[data-testid="notice-success"]`))
	if h.SB.Calls("CancelOrder") == cancels {
		t.Errorf("y on the question did not release the sale's order")
	}
	s.shot("9-next-released")
	if got := p.Text(`[data-testid="notice-success"]`); !strings.Contains(got, released) {
		t.Errorf("Next customer does not say what it released: %q", got)
	}
}

// startSale starts a sale of two by keys and stops on its seat step.
func (s saleKeys) startSale() {
	s.t.Helper()
	s.p.Do(chromedp.Navigate(s.eval(`location.origin`)+"/"), chromedp.WaitVisible(`#home-title`))
	s.press("w")
	s.at("/whats-on")
	s.press("1")
	s.atPrefix("/whats-on/")
	s.p.Do(chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	s.typeText("2")
	s.press(kb.Enter)
	s.at("/checkout/seats")
}
