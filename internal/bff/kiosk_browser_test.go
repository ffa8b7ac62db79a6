package bff

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestBrowserKioskIdleReset: a kiosk left alone warns ("touch to continue"), then ends the visit
// and returns to the start; it stays a kiosk.
func TestBrowserKioskIdleReset(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true, kioskIdle: 4 * time.Second})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	browserFind(p, h.ts.URL, "100001", "paid1@example.com")
	p.Do(chromedp.WaitVisible("#idle-warning"))
	p.Screenshot("kiosk-idle-warning")
	p.Do(chromedp.WaitVisible("#home-title"))
	if cls, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.body.className`)); err != nil || !strings.Contains(cls, "mode-kiosk") {
		t.Fatalf("not a kiosk after the reset: %q %v", cls, err)
	}
	p.AssertNoConsoleErrors()
	// The visit ended: the booking is no longer bound (that page answers 404 now).
	p.Do(chromedp.Navigate(h.ts.URL + "/booking/current"))
	if got := p.Text("h1"); !strings.Contains(got, "Find your booking first") {
		t.Fatalf("booking still bound after the idle reset: %q", got)
	}
}

// TestBrowserKioskLanguageWithoutJavaScript: on a kiosk without JavaScript a guest presses
// "Deutsch" on the start screen and the kiosk speaks German for the visit; Start over brings
// back the kiosk's own language (here the site's, English) for the next guest.
func TestBrowserKioskLanguageWithoutJavaScript(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920, NoJavaScript: true})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(chromedp.Navigate(h.ts.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-languages"]`))
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
	p.Do(chromedp.Click(`[data-testid="start-over"] button`), chromedp.WaitVisible(`[data-testid="kiosk-start"]`))
	if got := p.Text("#home-title"); got != "Welcome! What would you like to do?" {
		t.Fatalf("after Start over the start screen says %q", got)
	}
	p.AssertNoConsoleErrors()
}
