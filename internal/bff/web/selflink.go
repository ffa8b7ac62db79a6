package web

import (
	"net/url"
	"strings"
	"unicode"
)

// Every address that points back into the site and is made from something the request
// brought (its own path, next=, back=, a Referer, HX-Current-URL) is built here, and only here.
// It works on the escaped form of the path, as the browser sent it: the decoded path of
// /%2Fevil.example is //evil.example, which a browser takes for another host.

// HomePath is where a refused address leads instead: the home page.
const HomePath = "/"

// MaxSelfLink bounds an address taken from a request (a long one is refused, not cut).
const MaxSelfLink = 2048

// LocalLink returns ref (an escaped path with an optional query, e.g. "/films/a%20b?x=1") as
// an address on this site, or false. It refuses anything that names a scheme, a host or a
// user, that does not start with exactly one "/" followed by a character that is neither "/"
// nor "\" (also once decoded: "/%2F" and "/%5C" are refused), and anything with control
// characters. A path's escapes are kept as they are; a fragment is dropped.
func LocalLink(ref string) (string, bool) {
	if ref == "" || len(ref) > MaxSelfLink || !oneLeadingSlash(ref) {
		return "", false
	}
	u, err := url.Parse(ref) // refuses raw control characters
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	if !oneLeadingSlash(u.Path) || strings.IndexFunc(u.Path, unicode.IsControl) >= 0 {
		return "", false
	}
	out := u.RequestURI() // the escaped path (RawPath when it encodes Path) and the query
	// Escaping can make it longer than an address taken from a request may be: refuse it, or
	// the address made here would be refused when it comes back.
	if !oneLeadingSlash(out) || len(out) > MaxSelfLink {
		return "", false
	}
	return out, true
}

// SelfLink is LocalLink(ref), or the home page when ref is refused.
func SelfLink(ref string) string {
	if out, ok := LocalLink(ref); ok {
		return out
	}
	return HomePath
}

// RequestLink is the address of u (a request's own URL, or one a header names) on this site:
// its escaped path and query, never its decoded path. ok is false when it is refused.
func RequestLink(u *url.URL) (string, bool) {
	ref := u.EscapedPath()
	if u.RawQuery != "" {
		ref += "?" + u.RawQuery
	}
	return LocalLink(ref)
}

// oneLeadingSlash reports whether p starts with "/" and, if anything follows, not with a second
// "/" or a "\" (which browsers read as "/").
func oneLeadingSlash(p string) bool {
	return strings.HasPrefix(p, "/") && (len(p) == 1 || (p[1] != '/' && p[1] != '\\'))
}
