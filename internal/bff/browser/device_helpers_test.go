package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// browserEnrol makes the browser of p a device of mode through the pages, without JavaScript
// needed: the supervisor signs in on /device, enrols the terminal, and signs out (a kiosk
// signs its supervisor out itself).
func browserEnrol(t *testing.T, p *browsertest.Page, h *bfftest.Harness, mode device.Mode) {
	t.Helper()
	h.AddSupervisor(bfftest.TestSupervisor, bfftest.TestSupervisorName, bfftest.TestSupervisorPassword)
	p.Do(
		chromedp.Navigate(h.TS.URL+"/device"),
		chromedp.WaitVisible("#device-username"),
		chromedp.SendKeys("#device-username", bfftest.TestSupervisor),
		chromedp.SendKeys("#device-password", bfftest.TestSupervisorPassword),
		chromedp.Click(`[data-testid="device-signin"] button[type="submit"]`),
		chromedp.WaitVisible(`[data-testid="staff-badge"]`),
		chromedp.Navigate(h.TS.URL+"/device"),
		chromedp.WaitVisible("#mode-"+string(mode)),
		chromedp.Click("#mode-"+string(mode)),
		chromedp.SendKeys("#device-name", "Browser "+string(mode)),
		chromedp.Click(`[data-testid="device-form"] button[type="submit"]`),
	)
	if mode == device.Kiosk {
		p.Do(chromedp.WaitVisible(`[data-testid="device-kiosk-start"]`))
	} else {
		p.Do(
			chromedp.WaitVisible(`[data-testid="notice-success"]`),
			chromedp.Click(`[data-testid="staff-badge"] button[type="submit"]`),
			chromedp.WaitNotPresent(`[data-testid="staff-badge"]`),
		)
	}
	p.Do(
		chromedp.Navigate(h.TS.URL+"/device"),
		chromedp.WaitVisible(`[data-testid="device-mode"]`),
	)
	badges, err := chromedp.Run(p.Ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="staff-badge"]').length`))
	if err != nil || badges != 0 {
		t.Fatalf("a supervisor is still signed in on the %s (%d, %v)", mode, badges, err)
	}
	if got := strings.TrimSpace(p.Text(`[data-testid="device-mode"]`)); got != bfftest.ModeLabels[mode] {
		t.Fatalf("browser enrolled as %s is %q", mode, got)
	}
}
