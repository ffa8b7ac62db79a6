package browser_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// kioskShotsDir is where the kiosk layout test also leaves its viewport screenshots, to look at.
const kioskShotsDir = "/tmp/kiosk-shots"

// kioskLayout is what one kiosk screen measures in the browser (measureKioskLayout).
type kioskLayout struct {
	ViewportW    float64  `json:"vw"`
	ViewportH    float64  `json:"vh"`
	ContentW     float64  `json:"contentW"`
	BodyFont     float64  `json:"bodyFont"`
	SmallText    []string `json:"smallText"`    // visible text under 24 px
	SmallTargets []string `json:"smallTargets"` // visible buttons, links and fields under 64×64
	SmallSeats   []string `json:"smallSeats"`   // seats in view under 48×48
	Seats        int      `json:"seats"`        // seats measured
	Primary      []float64
	Scrolled     float64 `json:"scrolled"`
	Covered      string  `json:"covered"` // what is on top of the primary action's centre, when not itself
}

// measureKioskLayoutJS measures the page at the top (not scrolled): the width of the screen's
// content (content, a selector), the computed body text size and every visible text smaller than
// 24 px, every visible button, link and field smaller than 64×64 px, every seat in view smaller
// than 48×48 px, and the box of the primary action.
const measureKioskLayoutJS = `((content, primary) => {
	window.scrollTo(0, 0);
	const visible = el => {
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) return false;
		if (r.bottom <= 0 || r.right <= 0 || r.top >= document.documentElement.scrollHeight) return false;
		const s = getComputedStyle(el);
		if (s.visibility === 'hidden' || s.display === 'none' || el.closest('[hidden], .visually-hidden, [aria-hidden="true"]')) return false;
		return !el.closest('.skip-link:not(:focus)');
	};
	const name = el => (el.getAttribute('data-testid') || el.id || el.tagName.toLowerCase() + '.' + el.className) +
		' "' + (el.textContent || el.value || '').trim().replace(/\s+/g, ' ').slice(0, 30) + '"';
	const box = el => { const r = el.getBoundingClientRect(); return Math.round(r.width) + '×' + Math.round(r.height); };
	const out = {vw: innerWidth, vh: innerHeight, smallText: [], smallTargets: [], smallSeats: [], seats: 0, scrolled: scrollY};
	const c = document.querySelector(content);
	out.contentW = c ? c.getBoundingClientRect().width : 0;
	out.bodyFont = parseFloat(getComputedStyle(document.body).fontSize);
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const el = n.parentElement;
		if (!n.textContent.trim() || !el || el.closest('script, style, noscript, title, .seat') || !visible(el)) continue;
		const size = parseFloat(getComputedStyle(el).fontSize);
		if (size < 24) out.smallText.push(name(el) + ' ' + size + 'px');
	}
	for (const el of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')) {
		if (el.closest('.seat, .seatmap-scroll') || !visible(el)) continue;
		const r = el.getBoundingClientRect();
		if (r.width < 64 || r.height < 64) out.smallTargets.push(name(el) + ' ' + box(el));
	}
	const scroller = document.querySelector('.seatmap-scroll');
	const view = scroller ? scroller.getBoundingClientRect() : null;
	for (const el of document.querySelectorAll('.seatmap-scroll .seat')) {
		const r = el.getBoundingClientRect();
		if (!view || r.right <= view.left || r.left >= view.right || r.bottom <= view.top || r.top >= view.bottom) continue;
		out.seats++;
		if (r.width < 48 || r.height < 48) out.smallSeats.push((el.getAttribute('aria-label') || el.textContent.trim()) + ' ' + box(el));
	}
	const p = document.querySelector(primary);
	if (p) {
		const r = p.getBoundingClientRect();
		out.Primary = [r.left, r.top, r.right, r.bottom];
		const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
		out.covered = !!hit && !p.contains(hit) ? name(hit) : '';
	}
	return out;
})`

// lowerReach are the screens whose primary action must be in the lower two thirds of the
// screen, within reach from a wheelchair; the attract screen is one button, what's
// on lists showings, and the collect screens are the collect flow's.
var lowerReach = map[string]bool{"start": true, "tickets": true, "tickets-chosen": true, "seats": true,
	"seats-large-contrast": true, "details-large-contrast": true}

// checkKioskLayout measures one kiosk screen (see measureKioskLayoutJS) and reports what
// breaks the kiosk's rules, and saves a screenshot of the screen as a guest sees it.
func checkKioskLayout(t *testing.T, p *browsertest.Page, screen, content, primary string) kioskLayout {
	t.Helper()
	sel, _ := json.Marshal([]string{content, primary}) // strings: cannot fail
	args := "(..." + string(sel) + ")"
	m, err := chromedp.Run(p.Ctx, chromedp.Evaluate[kioskLayout](measureKioskLayoutJS+args))
	if err != nil {
		t.Fatalf("%s: measure: %v", screen, err)
	}
	saveKioskShot(t, p, screen)
	if m.ContentW < 0.9*m.ViewportW {
		t.Errorf("%s: content %q is %.0f px wide, want at least 90 %% of %.0f", screen, content, m.ContentW, m.ViewportW)
	}
	if m.BodyFont < 24 {
		t.Errorf("%s: body text %.1f px, want at least 24", screen, m.BodyFont)
	}
	if len(m.SmallText) > 0 {
		t.Errorf("%s: text under 24 px: %s", screen, strings.Join(m.SmallText, "; "))
	}
	if len(m.SmallTargets) > 0 {
		t.Errorf("%s: touch targets under 64×64 px: %s", screen, strings.Join(m.SmallTargets, "; "))
	}
	if len(m.SmallSeats) > 0 {
		t.Errorf("%s: %d of %d seats in view under 48×48 px: %s", screen, len(m.SmallSeats), m.Seats, strings.Join(m.SmallSeats, "; "))
	}
	switch pr := m.Primary; {
	case len(pr) != 4:
		t.Errorf("%s: no primary action %q", screen, primary)
	case pr[0] < 0 || pr[1] < 0 || pr[2] > m.ViewportW || pr[3] > m.ViewportH:
		t.Errorf("%s: primary action %q at %v, not inside the %.0f×%.0f screen without scrolling", screen, primary, pr, m.ViewportW, m.ViewportH)
	case m.Covered != "":
		t.Errorf("%s: primary action %q is covered by %s", screen, primary, m.Covered)
	case lowerReach[screen] && pr[1] < m.ViewportH/3:
		t.Errorf("%s: primary action %q starts at %.0f px, above the lower two thirds of the screen (from %.0f px)", screen, primary, pr[1], m.ViewportH/3)
	}
	return m
}

// saveKioskShot saves what the screen shows (the viewport, not the whole page) to kioskShotsDir,
// and the full page to the artifacts.
func saveKioskShot(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	p.Screenshot("kiosk-layout-" + name)
	png, err := chromedp.Run(p.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(kioskShotsDir, 0o755); err != nil {
		t.Logf("screenshot dir: %v", err)
		return
	}
	if err := os.WriteFile(filepath.Join(kioskShotsDir, name+".png"), png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// TestBrowserKioskLayout: on an enrolled kiosk at 1080×1920 with touch, the attract screen, the
// start screen, the ticket choice and the seat map use at least 90 % of the width, their text is
// at least 24 px, no visible button, link or field is smaller than 64×64 px (seats 48×48), and
// each screen's primary action is on screen without scrolling; ticket counts change with + and
// −; the same holds with larger text and high contrast switched on.
func TestBrowserKioskLayout(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, Touch: true})
	browserEnrol(t, p, h, device.Kiosk)

	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	checkKioskLayout(t, p, "attract", `[data-testid="kiosk-attract"]`, `[data-testid="kiosk-touch-to-start"]`)
	p.Do(chromedp.Click(`[data-testid="kiosk-touch-to-start"]`), chromedp.WaitVisible(`[data-testid="kiosk-start"]`))
	checkKioskLayout(t, p, "start", `[data-testid="kiosk-start"]`, `[data-testid="kiosk-buy"]`)

	p.Do(chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`))
	checkKioskLayout(t, p, "whats-on", `main > section`, `[data-testid="session-link"]`)
	p.Do(chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	checkKioskLayout(t, p, "tickets", `[data-testid="tickets-form"]`, `[data-testid="tickets-form"] .button-primary`)

	// + and − change the first ticket type's count (the number field stays, for no JavaScript).
	qty := func() string {
		t.Helper()
		v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="tickets-form"] input[type=number]').value`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	plus := `[data-testid="tickets-form"] [data-step="1"]`
	minus := `[data-testid="tickets-form"] [data-step="-1"]`
	before := qty()
	p.Do(chromedp.Click(plus), chromedp.Click(plus), chromedp.Click(plus))
	three := qty()
	p.Do(chromedp.Click(minus))
	if before != "0" || three != "3" || qty() != "2" {
		t.Fatalf("count %s, after + + + %s, after − %s: want 0, 3, 2", before, three, qty())
	}
	checkKioskLayout(t, p, "tickets-chosen", `[data-testid="tickets-form"]`, `[data-testid="tickets-form"] .button-primary`)

	p.Do(chromedp.Click(`[data-testid="tickets-form"] .button-primary`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	pickKioskArea(t, p)
	checkKioskLayout(t, p, "seats", `[data-testid="seat-form"]`, `[data-testid="seat-form"] .button-primary`)

	// Larger text and high contrast: switched on here, kept on the next screen, and the rules
	// still hold.
	p.Do(chromedp.Click(`[data-testid="display-large"]`), chromedp.WaitVisible(`body.kiosk-large-text [data-testid="seatmap"]`),
		chromedp.Click(`[data-testid="display-contrast"]`), chromedp.WaitVisible(`body.kiosk-high-contrast.kiosk-large-text [data-testid="seatmap"]`))
	pickKioskArea(t, p)
	checkKioskLayout(t, p, "seats-large-contrast", `[data-testid="seat-form"]`, `[data-testid="seat-form"] .button-primary`)
	// A kiosk asks for no name or e-mail: the seats lead to the summary, paid on the reader; an
	// e-mail address is optional, typed on the on-screen keyboard.
	p.Do(chromedp.Click(`[data-testid="seat-form"] .button-primary`), chromedp.WaitVisible(`body.kiosk-high-contrast.kiosk-large-text [data-testid="pay"]`))
	checkKioskLayout(t, p, "summary-large-contrast", `[data-testid="summary"]`, `[data-testid="pay"]`)
	p.Do(chromedp.Click(`[data-testid="details-link"]`), chromedp.WaitVisible(`body.kiosk-high-contrast.kiosk-large-text [data-testid="email-keypad"]`))
	checkKioskLayout(t, p, "email-large-contrast", `[data-testid="details-form"]`, `[data-testid="details-save"]`)
	p.AssertOnlyHost(strings.TrimPrefix(h.TS.URL, "http://"))
	p.AssertNoConsoleErrors()
}

// TestBrowserKioskCollectLayout: the collect and collected screens of an enrolled kiosk at
// 1080×1920 with touch keep the same rules (width, text, targets, primary action in view).
func TestBrowserKioskCollectLayout(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	code := bfftest.SignedTicketCode(t, h)
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, Touch: true})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(countPrints())
	kioskTouchToStart(p, h.TS.URL)
	p.Do(chromedp.Click(`[data-testid="kiosk-collect"]`), chromedp.WaitVisible("#collect-code"))
	checkKioskLayout(t, p, "collect", `main > section`, `main form .button-primary`)
	scanFieldFocused(t, p)
	p.Do(chromedp.KeyEvent(code+"\r"), chromedp.WaitVisible(`[data-testid="collected"]`), chromedp.WaitVisible(`[data-testid="ticket-card"]`))
	checkKioskLayout(t, p, "collected", `[data-testid="collected"]`, `[data-testid="collected"] .button-primary`)
	p.AssertNoConsoleErrors()
}

// pickKioskArea taps the middle of a large seat plan's overview when the kiosk asks for the
// area first, so the seats in view are the ones a guest taps.
func pickKioskArea(t *testing.T, p *browsertest.Page) {
	t.Helper()
	at, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]float64](`(() => {
		const m = document.querySelector('[data-testid="seatmap"]');
		if (!m || !m.hasAttribute('data-pick-area')) return [];
		const sc = m.querySelector('.seatmap-scroll');
		sc.scrollIntoView({block: 'center'});
		const r = sc.getBoundingClientRect();
		const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight - 200); // clear of the action bar
		return [r.left + r.width / 2, (top + bottom) / 2];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(at) == 2 {
		p.Do(chromedp.MouseClickXY(at[0], at[1]))
	}
}
