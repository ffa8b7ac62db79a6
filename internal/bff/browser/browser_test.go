package browser_test

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// TestBrowserHome opens the home page in Chromium: no console errors (CSP violations show up
// there), no request to any other host, and a screenshot for a person to look at.
func TestBrowserHome(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	for _, tc := range []struct {
		name string
		opts browsertest.Options
	}{
		{"desktop", browsertest.Options{}},
		{"phone", browsertest.Options{Width: 390, Height: 844, Mobile: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := browsertest.NewPage(t, tc.opts)
			p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible("#home-title"))
			if got := p.Text("#home-title"); got != "Your tickets, your seats" {
				t.Fatalf("heading %q", got)
			}
			// htmx loaded under the CSP (its global exists).
			ok, err := chromedp.Run(p.Ctx, chromedp.Evaluate[bool](`typeof htmx === "object"`))
			if err != nil || !ok {
				t.Fatalf("htmx not loaded: %v", err)
			}
			p.Screenshot("home-" + tc.name)
			u, _ := url.Parse(h.TS.URL)
			p.AssertOnlyHost(u.Host)
			p.AssertNoConsoleErrors()
		})
	}
}
