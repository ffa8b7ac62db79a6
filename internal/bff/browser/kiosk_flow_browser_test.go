package browser_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// countPrints replaces window.print in every document of the page with a counter
// (window.__prints), so a test sees the kiosk print by itself without a print dialog.
func countPrints() chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__prints = 0; window.print = function () { window.__prints++; };`})
		return chromedp.Void{}, err
	}
}

// TestBrowserKioskCollectByScan: on the kiosk's start screen a guest chooses Collect tickets; the
// scan field has the focus, the scanner types the ticket's code and Enter, and the print view
// shows the tickets with their QR codes and prints them by itself, once, without an e-mail asked
// for. Done is the main action (Print again the secondary one) and starts over; nothing is sent
// upstream for the collection (no route configured).
func TestBrowserKioskCollectByScan(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	b, err := h.Srv.Visits.ReadBooking(context.Background(), "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	code := bfftest.SignedTicketCode(t, h)
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	src := axeSource(t)
	accessible := func(name string) { // axe-core, WCAG 2.2 A/AA: serious and critical fail
		t.Helper()
		for _, v := range runAxe(t, p, src) {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: %s (%s): %s at %s", name, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
			}
		}
	}
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(chromedp.EmulateViewport(1080, 1920, chromedp.EmulateTouch)) // a portrait touch screen
	p.Do(countPrints())
	kioskTouchToStart(p, h.TS.URL)
	p.Screenshot("kiosk-start")
	accessible("kiosk start")
	size, err := chromedp.Run(p.Ctx, chromedp.Evaluate[float64](`Math.min(...[...document.querySelectorAll('.kiosk-choice, .kiosk-language')].map(a => Math.min(a.getBoundingClientRect().width, a.getBoundingClientRect().height)))`))
	if err != nil || size < 44 {
		t.Errorf("smallest start screen target %.0f px (%v), want at least 44", size, err)
	}
	p.Do(chromedp.Click(`[data-testid="kiosk-collect"]`), chromedp.WaitVisible("#collect-code"))
	p.Screenshot("kiosk-collect-scan")
	accessible("collect tickets")
	if focus, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.activeElement && document.activeElement.id`)); err != nil || focus != "collect-code" {
		t.Fatalf("focus on %q (%v), want the scan field", focus, err)
	}
	// The scanner is a keyboard: it types the code into the focused field and presses Enter.
	p.Do(chromedp.KeyEvent(code+"\r"), chromedp.WaitVisible(`[data-testid="collected"]`), chromedp.WaitVisible(`[data-testid="ticket-card"]`))
	qrs, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="ticket-card"] [data-testid="ticket-qr"] svg').length`))
	if err != nil || qrs != len(b.Tickets) {
		t.Fatalf("%d tickets with QR codes (%v), want %d", qrs, err, len(b.Tickets))
	}
	time.Sleep(600 * time.Millisecond) // the kiosk prints 300 ms after the page is shown
	if prints, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`window.__prints`)); err != nil || prints != 1 {
		t.Errorf("printed %d times by itself (%v), want once", prints, err)
	}
	p.Screenshot("kiosk-collect-print")
	accessible("collected tickets")
	// Done is the main action and in view; printing again is the secondary one.
	if main := strings.TrimSpace(p.Text(`[data-testid="collected"] .button-primary`)); main != "Done" {
		t.Errorf("main action %q, want Done", main)
	}
	if again := strings.TrimSpace(p.Text(`[data-testid="print"]`)); again != "Print again" {
		t.Errorf("print button %q, want Print again", again)
	}
	inView, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`(function () { var r = document.querySelector('[data-testid="collect-done"]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight && r.height >= 44; })()`))
	if err != nil || !inView {
		t.Errorf("Done is not in view without scrolling (%v)", err)
	}
	if n := h.SB.Calls("MarkBookingCollected"); n != 0 {
		t.Errorf("MarkBookingCollected called %d times without a configured route", n)
	}
	p.Do(chromedp.Click(`[data-testid="collect-done"]`), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	p.AssertOnlyHost(strings.TrimPrefix(h.TS.URL, "http://"))
	p.AssertNoConsoleErrors()
}

// TestBrowserKioskCollectByKeypads: on a 1080×1920 touch kiosk, the booking number and e-mail
// are typed on the on-screen keypads, with JavaScript (keys type in place, no page load) and
// without it (each key is a submit button), and Collect tickets shows 100002's tickets.
func TestBrowserKioskCollectByKeypads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		noJS   bool
		prefix string
	}{
		{"javascript", false, "kiosk-keypad-js"},
		{"no-javascript", true, "kiosk-keypad-nojs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, NoJavaScript: tc.noJS})
			browserEnrol(t, p, h, device.Kiosk)
			p.Do(chromedp.EmulateViewport(1080, 1920, chromedp.EmulateTouch))
			p.Do(chromedp.Navigate(h.TS.URL+"/kiosk/collect"), chromedp.WaitVisible(`[data-testid="collect-number-keypad"]`))
			small, err := chromedp.Run(p.Ctx, chromedp.Evaluate[float64](`Math.min(...[...document.querySelectorAll('.kiosk-key')].map(b => Math.min(b.getBoundingClientRect().width, b.getBoundingClientRect().height)))`))
			if err != nil || small < 64 {
				t.Errorf("smallest key %.0f px (%v), want at least 64", small, err)
			}
			if _, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`window.__samePage = true`)); err != nil && !tc.noJS {
				t.Fatal(err)
			}
			// press touches each key and waits until the field shows what it typed (without
			// JavaScript the key loads the form again: the old page's nodes go away).
			typed := map[string]string{"number": "", "email": ""}
			press := func(keys ...string) {
				t.Helper()
				for _, k := range keys {
					field, what, _ := strings.Cut(k, ":")
					if what == "back" {
						typed[field] = typed[field][:len(typed[field])-1]
					} else {
						typed[field] += what
					}
					p.Do(chromedp.Click(`button[data-key="` + k + `"]`))
					deadline := time.Now().Add(5 * time.Second)
					for {
						got, err := chromedp.Run(p.Ctx, chromedp.Value("#collect-"+field))
						if err == nil && got == typed[field] {
							break
						}
						if time.Now().After(deadline) {
							t.Fatalf("after key %s the %s field shows %q (%v), want %q", k, field, got, err, typed[field])
						}
						time.Sleep(50 * time.Millisecond)
					}
				}
			}
			press("number:1", "number:0", "number:0", "number:0", "number:0", "number:2", "number:9", "number:back")
			press(bfftest.KeysOf("email", "paid2@example.com")...)
			number, _ := chromedp.Run(p.Ctx, chromedp.Value("#collect-number"))
			email, _ := chromedp.Run(p.Ctx, chromedp.Value("#collect-email"))
			if number != "100002" || email != "paid2@example.com" {
				t.Fatalf("typed %q and %q on the keypads", number, email)
			}
			if !tc.noJS {
				if same, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`window.__samePage === true`)); !same {
					t.Error("with JavaScript a key press loaded a page")
				}
			}
			p.Screenshot(tc.prefix + "-typed")
			p.Do(chromedp.Click(`[data-testid="collect-submit"]`), chromedp.WaitVisible(`[data-testid="collected"]`), chromedp.WaitVisible(`[data-testid="ticket-card"]`))
			if main := strings.TrimSpace(p.Text(`[data-testid="collected"] .button-primary`)); main != "Done" {
				t.Errorf("main action %q, want Done", main)
			}
			p.Screenshot(tc.prefix + "-collected")
			if n := h.SB.Calls("MarkBookingCollected"); n != 0 {
				t.Errorf("MarkBookingCollected called %d times without a configured route", n)
			}
		})
	}
}

// TestBrowserKioskIdleCountdownContinue: left alone, the kiosk warns with a countdown of 20
// seconds that runs down; Continue keeps the page as it was, with what was typed.
func TestBrowserKioskIdleCountdownContinue(t *testing.T) {
	t.Parallel() // mostly waiting out the idle timer and its 20 s warning: the wait overlaps others
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, KioskIdle: 2 * time.Second})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(chromedp.Navigate(h.TS.URL+"/kiosk/collect"), chromedp.WaitVisible("#collect-number"),
		chromedp.SendKeys("#collect-number", "1000"), chromedp.WaitVisible("#idle-warning"))
	first, err := strconv.Atoi(strings.TrimSpace(p.Text("#idle-seconds")))
	if err != nil || first > 20 || first < 18 {
		t.Fatalf("countdown starts at %d (%v), want 20", first, err)
	}
	if focus, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.activeElement.id`)); focus != "idle-continue" {
		t.Errorf("focus on %q, want Continue", focus)
	}
	time.Sleep(1500 * time.Millisecond)
	later, _ := strconv.Atoi(strings.TrimSpace(p.Text("#idle-seconds")))
	if later >= first {
		t.Errorf("countdown stands at %d after 1.5 s (from %d)", later, first)
	}
	p.Screenshot("kiosk-idle-countdown")
	p.Do(chromedp.Click("#idle-continue"), chromedp.WaitNotVisible("#idle-warning"))
	url, _ := chromedp.Run(p.Ctx, chromedp.Location())
	typed, _ := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.getElementById('collect-number').value`))
	if !strings.HasSuffix(url, "/kiosk/collect") || typed != "1000" {
		t.Errorf("after Continue: %s with %q typed", url, typed)
	}
	p.AssertNoConsoleErrors()
}

// TestBrowserKioskIdleWithoutJavaScript: a kiosk browser without JavaScript is sent to the
// "Are you still there?" page after the idle time, and when its countdown runs out the visit
// ends and the start screen comes back.
func TestBrowserKioskIdleWithoutJavaScript(t *testing.T) {
	t.Parallel() // mostly waiting out the idle timer and its 20 s warning: the wait overlaps others
	// Without JavaScript nothing a guest types counts as a touch: the find form's own refresh
	// comes after the idle time however busy the typing. 10 s leave room for typing the number
	// and e-mail on a busy machine (with 2 s, the refresh came mid-typing under load).
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, KioskIdle: 10 * time.Second})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, NoJavaScript: true})
	browserEnrol(t, p, h, device.Kiosk)
	browserFind(p, h.TS.URL, "100001", "paid1@example.com")
	p.Do(chromedp.WaitVisible(`[data-testid="kiosk-idle"]`))
	p.Screenshot("kiosk-idle-nojs")
	if href, _ := chromedp.Run(p.Ctx, chromedp.AttributeValue(`[data-testid="idle-continue"]`, "href")); href.Value != "/booking/current" {
		t.Errorf("Continue leads to %q", href.Value)
	}
	p.Do(chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	p.Do(chromedp.Navigate(h.TS.URL + "/booking/current"))
	if got := p.Text("h1"); !strings.Contains(got, "Find your booking first") {
		t.Fatalf("booking still bound after the idle reset: %q", got)
	}
}
