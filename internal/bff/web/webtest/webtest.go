// Package webtest holds what tests of the site and of its kernel check pages against, written
// apart from the code they check.
package webtest

import (
	"net/url"
	"strings"
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
