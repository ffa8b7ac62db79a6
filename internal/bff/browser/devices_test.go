package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestBrowserEnrolWithoutJavaScript: a supervisor enrols a browser without JavaScript as a
// counter through the pages (sign in on /device, choose, name, save, sign out), and revokes it
// on /staff/devices; the screenshots show the pages.
func TestBrowserEnrolWithoutJavaScript(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{NoJavaScript: true})
	p.Do(chromedp.Navigate(h.TS.URL+"/device"), chromedp.WaitVisible(`[data-testid="device-signin"]`))
	p.Screenshot("device-locked")
	browserEnrol(t, p, h, device.Counter)
	p.Do(chromedp.WaitVisible(`body.mode-counter`))

	// The supervisor signs in again (the sign-in comes back here) to see the list.
	p.Do(
		chromedp.SendKeys("#device-username", bfftest.TestSupervisor),
		chromedp.SendKeys("#device-password", bfftest.TestSupervisorPassword),
		chromedp.Click(`[data-testid="device-signin"] button[type="submit"]`),
		chromedp.WaitVisible(`[data-testid="device-form"]`),
	)
	p.Screenshot("device-supervisor")
	p.Do(chromedp.Click(`[data-testid="devices-link"]`), chromedp.WaitVisible(`[data-testid="devices-list"]`))
	p.Screenshot("staff-devices")
	p.Do(chromedp.Click(`[data-testid="revoke-form"] button[type="submit"]`), chromedp.WaitVisible(`[data-testid="notice-success"]`))
	if got := p.Text(`[data-testid="enrolment-state"]`); !strings.Contains(got, "Revoked") {
		t.Fatalf("state after revoking: %q", got)
	}
	p.Screenshot("staff-devices-revoked")
	p.Do(chromedp.WaitVisible(`body.mode-customer`))
}
