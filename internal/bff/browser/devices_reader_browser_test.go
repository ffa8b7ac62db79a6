package browser_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestBrowserTerminalsShowTheirReaders: a kiosk takes a counter's card reader; the browser,
// enrolled as a third terminal by a supervisor on the set-up page, sees which terminal uses
// each reader there, and /staff/devices shows each terminal's reader with its state and the
// counter's reader as moved to the kiosk. The screenshots show both pages.
func TestBrowserTerminalsShowTheirReaders(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Counter)
	readerID := h.Prov.Readers()[0].ID
	kiosk := h.FreshBrowser()
	kiosk.SignInSupervisor()
	resp, body := kiosk.Post("/device", "/device", url.Values{"mode": {"kiosk"}, "name": {"Kiosk 2"}, "reader": {readerID}, "cinema": {"0001"}})
	bfftest.ExpectRedirect(t, resp, body, "/device?saved=kiosk") // a kiosk: the supervisor is signed out

	p := browsertest.NewPage(t, browsertest.Options{})
	p.Do(
		chromedp.Navigate(h.TS.URL+"/device"),
		chromedp.WaitVisible("#device-username"),
		chromedp.SendKeys("#device-username", bfftest.TestSupervisor),
		chromedp.SendKeys("#device-password", bfftest.TestSupervisorPassword),
		chromedp.Click(`[data-testid="device-signin"] button[type="submit"]`),
		chromedp.WaitVisible(`[data-testid="device-readers"]`),
	)
	if got := p.Text(`[data-testid="device-reader-used"]`); !strings.Contains(got, "“Kiosk 2”") {
		t.Fatalf("the set-up page says of the reader: %q", got)
	}
	p.Screenshot("device-reader-in-use")
	p.Do(chromedp.Navigate(h.TS.URL+"/staff/devices"), chromedp.WaitVisible(`[data-testid="devices-list"]`))
	list := p.Text(`[data-testid="devices-list"]`)
	if !strings.Contains(list, "Online, ready") || !strings.Contains(list, "was moved to “Kiosk 2”") {
		t.Fatalf("the terminals page: %q", list)
	}
	p.Screenshot("staff-devices-readers")
}
