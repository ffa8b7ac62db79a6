package bfftest

import (
	"net/http"
	"regexp"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// GermanMoney is an amount the way German writes it: "13,25 €" (a no-break space before the
// sign); the German page tests of every area hold their amounts to it.
var GermanMoney = regexp.MustCompile(`^-?\d{1,3}(\.\d{3})*,\d{2}\x{00a0}€$`)

// AcceptLanguage sends every request of a client with an Accept-Language header (none when
// *lang is empty): a browser set to that language.
type AcceptLanguage struct {
	Lang *string
	Next http.RoundTripper
}

func (a AcceptLanguage) RoundTrip(r *http.Request) (*http.Response, error) {
	if *a.Lang != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Accept-Language", *a.Lang)
	}
	return a.Next.RoundTrip(r)
}

// Speaking makes the harness's browser ask for lang ("de", "en;q=0.9"; "" for no header)
// from now on; the returned function changes it.
func (h *Harness) Speaking(lang string) func(string) {
	l := lang
	h.Client.Transport = AcceptLanguage{Lang: &l, Next: http.DefaultTransport}
	return func(next string) { l = next }
}

// FollowOnSite follows redirects from resp (at most 5) and fails the test at one that leaves
// the site.
func (h *Harness) FollowOnSite(t *testing.T, resp *http.Response) {
	t.Helper()
	for range 5 {
		if resp.StatusCode < 300 || resp.StatusCode > 399 {
			return
		}
		loc := resp.Header.Get("Location")
		if !webtest.OnSite(loc) {
			t.Fatalf("%d to %q: off the site", resp.StatusCode, loc)
		}
		resp, _ = h.Get(loc)
	}
}

// Localizer is the catalogs' localizer of a language, for tests that call helpers directly.
func Localizer(t testing.TB, tag language.Tag) *i18n.Localizer {
	t.Helper()
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return c.For(tag)
}

// EnglishLocalizer is localizer(t, language.English).
func EnglishLocalizer(t testing.TB) *i18n.Localizer { return Localizer(t, language.English) }
