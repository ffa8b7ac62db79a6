package browser_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// TestBrowserPagesAccessibility runs axe-core (WCAG 2.2 A/AA) on the main pages of the booking
// and purchase flows; serious and critical violations fail the test.
func TestBrowserPagesAccessibility(t *testing.T) {
	t.Parallel()
	src := axeSource(t)
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{})
	check := func(name string) {
		t.Helper()
		for _, v := range runAxe(t, p, src) {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: %s (%s): %s at %s", name, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "; "))
			}
		}
	}
	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible("#home-title"))
	check("home")
	p.Do(chromedp.Navigate(h.TS.URL+"/booking"), chromedp.WaitVisible("#number"))
	check("find booking")
	browserFind(p, h.TS.URL, "100001", "paid1@example.com")
	check("booking")
	p.Do(chromedp.Click(`[data-testid="action-edit"] button`), chromedp.WaitVisible("#edit-title"),
		chromedp.Click(`[data-testid="add-form"] [data-testid="add-one"]`), chromedp.WaitVisible(`[data-testid="line-added"]`))
	check("edit")
	p.Do(chromedp.Navigate(h.TS.URL+"/booking/edit/cancel"), chromedp.WaitVisible(`[data-testid="cancel-confirm"]`))
	check("cancel confirmation")
	p.Do(chromedp.Navigate(h.TS.URL+"/whats-on"), chromedp.WaitVisible("h1"))
	check("what's on")
	p.Do(chromedp.Navigate(h.TS.URL+"/no/such/page"), chromedp.WaitVisible("#error-title"))
	check("not found")
}
