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

// TestBrowserKioskBuysOnTheReader: on a kiosk (1080×1920, touch, taps only: no key is
// pressed), a guest buys two tickets without a name or an e-mail address, pays on the kiosk's
// reader (the page never leaves the site), and the page moves on by itself to the
// confirmation, which prints the tickets with Done as its main action.
func TestBrowserKioskBuysOnTheReader(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, Touch: true})
	browserEnrol(t, p, h, device.Kiosk) // a new simulated reader: the form's default in test mode
	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-touch-to-start"]`),
		chromedp.Click(`[data-testid="kiosk-touch-to-start"]`), chromedp.WaitVisible(`[data-testid="kiosk-buy"]`),
		chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`),
		chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`),
		chromedp.Click(`[data-testid="tickets-form"] [data-step="1"]`), chromedp.Click(`[data-testid="tickets-form"] [data-step="1"]`),
		chromedp.Click(`[data-testid="tickets-form"] .button-primary`), chromedp.WaitVisible(`[data-testid="seatmap"]`))
	pickKioskArea(t, p)
	p.Do(chromedp.Click(`[data-testid="seat-form"] .button-primary`), chromedp.WaitVisible(`[data-testid="pay"]`),
		chromedp.Click(`[data-testid="pay"]`), chromedp.WaitVisible(`[data-testid="reader-waiting"]`))
	p.Screenshot("kiosk-reader-waiting")
	reader, action := h.ReaderAsking(t)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	p.Do(chromedp.WaitVisible(`[data-testid="kiosk-done"]`))
	p.Screenshot("kiosk-reader-confirmation")
	if got := p.Text(`[data-testid="payments"]`); !strings.Contains(got, "€"+bfftest.CentsText(action.Amount)) {
		t.Errorf("the confirmation's payments: %q", got)
	}
	if n, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-autoprint], [data-testid="ticket-card"]').length`)); err != nil || n != 3 {
		t.Errorf("the confirmation prints %d things (want the print trigger and two tickets): %v", n, err)
	}
	p.AssertOnlyHost(strings.TrimPrefix(h.TS.URL, "http://"))
	p.AssertNoConsoleErrors()
}

// TestBrowserCounterTakesTheCardOnTheReader: at a counter (1280×800, keys), the change's
// payment button says "Take payment by card"; Enter sends the amount to the reader, and the
// page moves on by itself to the booking once the card is approved, no reload pressed.
func TestBrowserCounterTakesTheCardOnTheReader(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	p := browsertest.NewPage(t, browsertest.Options{Width: 1280, Height: 800, Timeout: 90 * time.Second})
	browserEnrol(t, p, h, device.Counter)
	blur := func() {
		_, _ = chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur(), true`))
	}
	p.Do(chromedp.Navigate(h.TS.URL+"/staff/sign-in"), chromedp.WaitVisible(`#username`),
		chromedp.SendKeys(`#username`, "carl"), chromedp.SendKeys(`#password`, "clerk horse battery"),
		chromedp.Submit(`#password`), chromedp.WaitVisible(`[data-testid="staff-badge"]`),
		chromedp.Navigate(h.TS.URL+"/booking"), chromedp.WaitVisible(`#number`),
		chromedp.SendKeys(`#number`, "100002"+kb.Enter), chromedp.WaitVisible(`[data-testid="counter-booking"]`))
	blur()
	p.Do(pressKey("e"), chromedp.WaitVisible(`#edit-title`))
	blur()
	p.Do(pressKey("1"), chromedp.WaitVisible(`[data-testid="line-added"]`))
	blur()
	p.Do(pressKey(kb.Enter), chromedp.WaitVisible(`#counter-pay-title`))
	if got := p.Text(`[data-testid="counter-pay-submit"]`); !strings.Contains(got, "Take payment by card") {
		t.Errorf("the payment button says %q", got)
	}
	blur()
	p.Do(pressKey("c"))
	if got := p.Text(`[data-testid="counter-pay-submit"]`); strings.Contains(got, "by card") {
		t.Errorf("with cash chosen the button says %q", got)
	}
	blur()
	p.Do(pressKey("k"))
	blur()
	p.Do(pressKey(kb.Enter), chromedp.WaitVisible(`[data-testid="reader-waiting"]`))
	if strip := p.Text(`[data-testid="customer-strip"]`); !strings.Contains(strip, "To pay €13.25") {
		t.Errorf("the reader page's customer strip: %q", strip)
	}
	p.Screenshot("counter-reader-waiting")
	reader, action := h.ReaderAsking(t)
	if action.Amount != 1325 {
		t.Fatalf("the reader asks for %d", action.Amount)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	p.Do(chromedp.WaitVisible(`[data-testid="changes"]`))
	p.Screenshot("counter-reader-paid")
	if got := p.Text(`[data-testid="changes"]`); !strings.Contains(got, "Paid €13.25") {
		t.Errorf("the booking after the card: %q", got)
	}
	p.AssertNoConsoleErrors()
}
