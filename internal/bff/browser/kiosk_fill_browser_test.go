package browser_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// kioskFill is what kioskFillJS measures on one kiosk screen.
type kioskFill struct {
	ContentW float64  `json:"contentW"`
	Narrow   []string `json:"narrow"`  // lines, prices and cards under 90 % of the content width
	Split    []string `json:"split"`   // words broken over two lines
	Steps    []string `json:"steps"`   // the step indicator's steps, "*" marking the current one
	Under    []string `json:"under"`   // text under the sticky bar with the page scrolled to its end
	Phrases  []string `json:"phrases"` // web-only phrases on the screen
}

// kioskFillJS measures a kiosk screen: the width of its ticket lists, money summaries, ticket
// fieldsets and ticket cards against main's content width; every word of main's visible text,
// through a Range over it, on one line (a word broken at a hyphen is two words); the steps of
// the step indicator; any text of main that lies under a sticky bar at the bottom with the page
// scrolled to its end, or after it and on the screen with the page at its top; and web-only
// phrases (args: the phrases).
const kioskFillJS = `((phrases) => {
  const main = document.querySelector('main');
  const cs = getComputedStyle(main);
  const contentW = main.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const shown = el => el.getClientRects().length > 0 && !el.closest('[hidden], .visually-hidden, [aria-hidden="true"], details:not([open]) > :not(summary)') && getComputedStyle(el).visibility !== 'hidden';
  const name = el => (el.getAttribute('data-testid') || el.className || el.tagName) + ' "' + el.textContent.trim().replace(/\s+/g, ' ').slice(0, 40) + '"';
  const out = {contentW, narrow: [], split: [], steps: [], under: [], phrases: []};
  for (const el of main.querySelectorAll('.ticket-list, .money-summary, [data-testid="tickets-form"] fieldset, [data-testid="ticket-card"]')) {
    if (!shown(el)) continue;
    const w = el.getBoundingClientRect().width;
    if (w < 0.9 * contentW) out.narrow.push(name(el) + ' ' + Math.round(w) + ' of ' + Math.round(contentW) + ' px');
  }
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('.seatmap-scroll, script, style, noscript') || !shown(el)) continue;
    const re = /[^\s\-\u2010\u2013\u2014\/]+/g;
    for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top)));
      if (tops.size > 1) out.split.push(m[0] + ' in ' + name(el));
    }
  }
  for (const li of document.querySelectorAll('[data-testid="steps"] li')) {
    if (getComputedStyle(li).display === 'none') continue;
    const words = [...li.childNodes].filter(c => !(c.classList && c.classList.contains('visually-hidden'))).map(c => c.textContent).join('');
    out.steps.push((li.hasAttribute('aria-current') ? '*' : '') + words.trim().replace(/\s+/g, ' '));
  }
  const bars = [...main.querySelectorAll('*')].filter(el => !el.closest('.seatmap-scroll') && getComputedStyle(el).position === 'sticky' && getComputedStyle(el).bottom !== 'auto' && shown(el));
  const texts = [...main.querySelectorAll('p, li, dt, dd, label, legend, h1, h2, h3, a, button')].filter(el => !el.closest('.seatmap-scroll') && shown(el));
  for (const bar of bars) {
    // Scrolled to the end, nothing lies under the bar; at the top, nothing after the bar shows
    // (cut off at the screen's foot).
    window.scrollTo(0, document.documentElement.scrollHeight);
    let b = bar.getBoundingClientRect();
    for (const el of texts) {
      if (bar.contains(el) || el.contains(bar)) continue;
      const q = el.getBoundingClientRect();
      if (q.bottom > b.top + 1 && q.top < b.bottom - 1 && q.right > b.left && q.left < b.right) out.under.push(name(el) + ' under ' + name(bar));
    }
    window.scrollTo(0, 0);
    b = bar.getBoundingClientRect();
    for (const el of texts) {
      if (bar.contains(el) || el.contains(bar) || !(bar.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      const q = el.getBoundingClientRect();
      if (q.top < innerHeight - 1 && q.bottom > b.top + 1) out.under.push(name(el) + ' after ' + name(bar) + ', cut off at the top of the page');
    }
  }
  window.scrollTo(0, 0);
  const text = document.body.innerText;
  out.phrases = phrases.filter(p => text.includes(p));
  return out;
})`

// webOnlyPhrases are the web's words a kiosk never shows (in both languages).
var webOnlyPhrases = []string{"Forget this booking on this device", "Buchung auf diesem Gerät vergessen"}

// checkKioskFill measures one kiosk screen (kioskFillJS) and reports what breaks the rules;
// wantSteps are the steps the indicator must list (nil: no indicator).
func checkKioskFill(t *testing.T, p *browsertest.Page, screen string, wantSteps []string) {
	t.Helper()
	args, _ := json.Marshal(webOnlyPhrases) // strings: cannot fail
	var m kioskFill
	browserEval(t, p, kioskFillJS+"("+string(args)+")", &m)
	saveKioskShot(t, p, "fill-"+screen)
	if len(m.Narrow) > 0 {
		t.Errorf("%s: narrower than 90 %% of the content: %s", screen, strings.Join(m.Narrow, "; "))
	}
	if len(m.Split) > 0 {
		t.Errorf("%s: words broken over two lines: %s", screen, strings.Join(m.Split, "; "))
	}
	if wantSteps != nil && strings.Join(m.Steps, " | ") != strings.Join(wantSteps, " | ") {
		t.Errorf("%s: the step indicator lists %q, want %q", screen, m.Steps, wantSteps)
	}
	if len(m.Under) > 0 {
		t.Errorf("%s: text under the sticky bar: %s", screen, strings.Join(m.Under, "; "))
	}
	if len(m.Phrases) > 0 {
		t.Errorf("%s: web-only phrases on a kiosk: %q", screen, m.Phrases)
	}
}

// TestBrowserKioskSaleFillsTheScreen: on an enrolled kiosk at 1080×1920 with touch, in German
// (its longer words are the ones that break or overflow; the English walk found nothing the
// German did not and cost a minute of the suite's two cores), the screens of a collection (the tickets), a change (the
// booking, a ticket added) and a sale (tickets with two Adults chosen, seats, the review) use
// the screen: ticket lists, money summaries, the
// tickets' fieldset and the ticket cards take at least 90 % of the content width; no word
// breaks over two lines; nothing is under the sticky action bar with the page scrolled to its
// end; the step indicator lists only the steps a kiosk shows (no "Your details"); no web-only
// phrase shows.
func TestBrowserKioskSaleFillsTheScreen(t *testing.T) {
	t.Parallel()
	for _, lang := range []struct {
		code                string
		tickets, seats, pay string
	}{
		{"de", "Tickets", "Plätze", "Bezahlen"},
	} {
		t.Run(lang.code, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			code := bfftest.SignedTicketCode(t, h)
			p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, Touch: true})
			browserEnrol(t, p, h, device.Kiosk)
			p.Do(countPrints())
			shot := func(s string) string { return lang.code + "-" + s }
			start := func() {
				t.Helper()
				p.Do(chromedp.Click(`[data-testid="kiosk-touch-to-start"]`), chromedp.WaitVisible(`[data-testid="kiosk-start"]`),
					chromedp.Click(`[data-testid="lang-switch"] a[hreflang="`+lang.code+`"]`),
					chromedp.WaitVisible(`html[lang="`+lang.code+`"] [data-testid="kiosk-start"]`))
			}

			p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
			start()
			p.Do(chromedp.Click(`[data-testid="kiosk-collect"]`), chromedp.WaitVisible("#collect-code"))
			scanFieldFocused(t, p)
			p.Do(chromedp.KeyEvent(code+"\r"), chromedp.WaitVisible(`[data-testid="ticket-card"]`))
			checkKioskFill(t, p, shot("collected"), nil)
			p.Do(chromedp.Click(`[data-testid="collect-done"]`), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))

			start()
			p.Do(chromedp.Click(`[data-testid="kiosk-change"]`), chromedp.WaitVisible("#number"),
				chromedp.SendKeys("#number", "100002"), chromedp.SendKeys("#email", "paid2@example.com"),
				chromedp.Click(`[data-testid="find-submit"]`), chromedp.WaitVisible("#booking-title"))
			checkKioskFill(t, p, shot("booking"), nil)
			p.Do(chromedp.Click(`[data-testid="action-edit"] button`), chromedp.WaitVisible("#edit-title"),
				chromedp.Click(`[data-testid="add-form"] [data-testid="add-one"]`), chromedp.WaitVisible(`[data-testid="line-added"]`))
			checkKioskFill(t, p, shot("change"), nil)
			p.Do(chromedp.Click(`[data-testid="start-over"] button`), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))

			start()
			p.Do(chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`),
				chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
				chromedp.Click(`[data-testid="qty-plus-0001"]`), chromedp.Click(`[data-testid="qty-plus-0001"]`))
			checkKioskFill(t, p, shot("tickets"), []string{"*" + lang.tickets, lang.seats, lang.pay})

			p.Do(chromedp.Click(`[data-testid="tickets-form"] .button-primary`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
			pickKioskArea(t, p)
			checkKioskFill(t, p, shot("seats"), []string{lang.tickets, "*" + lang.seats, lang.pay})

			p.Do(chromedp.Click(`[data-testid="seat-form"] .button-primary`), chromedp.WaitVisible(`[data-testid="pay"]`))
			checkKioskFill(t, p, shot("review"), []string{lang.tickets, lang.seats, "*" + lang.pay})
			p.AssertNoConsoleErrors()
		})
	}
}
