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
