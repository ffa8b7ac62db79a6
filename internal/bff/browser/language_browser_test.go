package browser_test

import (
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
)

// TestBrowserLanguageSwitchWithoutJavaScript: a browser without JavaScript that asks for
// German gets German pages; the header's "English" link switches the site to English, and the
// choice sticks for the rest of the visit although the browser still asks for German.
func TestBrowserLanguageSwitchWithoutJavaScript(t *testing.T) {
	t.Parallel()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 390, Height: 844, Mobile: true, NoJavaScript: true})
	if _, err := chromedp.Call(p.Ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": "de-DE,de;q=0.9"}}); err != nil {
		t.Fatal(err)
	}
	lang := func() string {
		t.Helper()
		l, err := chromedp.Run(p.Ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	p.Do(chromedp.Navigate(h.TS.URL+"/booking"), chromedp.WaitVisible(`[data-testid="lang-switch"]`))
	if got := lang(); got != "de" || p.Text("h1") != "Ihre Buchung finden" {
		t.Fatalf("a German browser gets lang=%q, heading %q", got, p.Text("h1"))
	}
	p.Screenshot("language-de-phone")
	p.Do(chromedp.Click(`[data-testid="lang-switch"] a[hreflang="en"]`), chromedp.WaitVisible(`[data-testid="lang-switch"] a[hreflang="en"][aria-current]`))
	if got := lang(); got != "en" || p.Text("h1") != "Find your booking" {
		t.Fatalf("after choosing English: lang=%q, heading %q", got, p.Text("h1"))
	}
	for _, path := range []string{"/", "/whats-on"} {
		p.Do(chromedp.Navigate(h.TS.URL+path), chromedp.WaitVisible("h1"))
		if got := lang(); got != "en" {
			t.Fatalf("%s after choosing English is in %q", path, got)
		}
	}
	p.AssertNoConsoleErrors()
}
