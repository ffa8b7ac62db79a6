// Package webtest holds what tests of the site and of its kernel check pages against, written
// apart from the code they check.
package webtest

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/i18n"
)

// OnSite reports whether a Location or href, as a browser resolves it against the site, stays
// on the site: a path that starts with exactly one "/" (also once decoded, since the page at a
// decoded "//host" builds its own links from it) and names no scheme or host.
func OnSite(ref string) bool {
	u, err := url.Parse(ref)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(ref, "/") {
		return false
	}
	for _, p := range []string{ref, u.Path} {
		if len(p) > 1 && (p[1] == '/' || p[1] == '\\') {
			return false
		}
	}
	return true
}

// English is the catalogs' English localizer, for tests that read the words a page says.
func English(t testing.TB) *i18n.Localizer {
	t.Helper()
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return c.For(language.English)
}

// Localizers are the catalogs' English and German localizers.
func Localizers(t testing.TB) (en, de *i18n.Localizer) {
	t.Helper()
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return c.For(language.English), c.For(language.German)
}
