// Package selflink builds every address that points back into the site from something a
// request brought (its own path, next=, back=, a Referer, HX-Current-URL), and refuses any that
// a browser could take for another host.
package selflink

import (
	"net/url"
	"strings"
	"unicode"
)

// Every address that points back into the site and is made from something the request
// brought (its own path, next=, back=, a Referer, HX-Current-URL) is built here, and only here.
// It works on the escaped form of the path, as the browser sent it: the decoded path of
// /%2Fevil.example is //evil.example, which a browser takes for another host.

// Home is where a refused address leads instead: the home page.
const Home = "/"

// MaxLen bounds an address taken from a request (a long one is refused, not cut).
const MaxLen = 2048

// Local returns ref (an escaped path with an optional query, e.g. "/films/a%20b?x=1") as
// an address on this site, or false. It refuses anything that names a scheme, a host or a
// user, that does not start with exactly one "/" followed by a character that is neither "/"
// nor "\" (also once decoded: "/%2F" and "/%5C" are refused), and anything with control
// characters. A path's escapes are kept as they are; a fragment is dropped.
func Local(ref string) (string, bool) {
	if ref == "" || len(ref) > MaxLen || !oneLeadingSlash(ref) {
		return "", false
	}
	u, err := url.Parse(ref) // refuses raw control characters
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	if !oneLeadingSlash(u.Path) || strings.IndexFunc(u.Path, unicode.IsControl) >= 0 {
		return "", false
	}
	u.RawQuery = escapeQuery(u.RawQuery)
	out := u.RequestURI() // the escaped path (RawPath when it encodes Path) and the query
	// Escaping can make it longer than an address taken from a request may be: refuse it, or
	// the address made here would be refused when it comes back.
	if !oneLeadingSlash(out) || len(out) > MaxLen {
		return "", false
	}
	return out, true
}

// OrHome is Local(ref), or the home page when ref is refused.
func OrHome(ref string) string {
	if out, ok := Local(ref); ok {
		return out
	}
	return Home
}

// FromRequest is the address of u (a request's own URL, or one a header names) on this site:
// its escaped path and query, never its decoded path. ok is false when it is refused.
func FromRequest(u *url.URL) (string, bool) {
	ref := u.EscapedPath()
	if u.RawQuery != "" {
		ref += "?" + u.RawQuery
	}
	return Local(ref)
}

// escapeQuery percent-encodes every byte of a raw query that RFC 3986 does not allow there
// (a "\", a space, a quote, anything beyond ASCII), and keeps the rest, escapes included, as
// sent: the query of an address made here reads the same in every browser, and escaping it
// again changes nothing.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; queryByte(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// queryByte reports whether c may stand unescaped in a query: unreserved, sub-delims, ":", "@",
// "/", "?" and "%" (which starts an escape the sender already made).
func queryByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/?%", c) >= 0
}

// oneLeadingSlash reports whether p starts with "/" and, if anything follows, not with a second
// "/" or a "\" (which browsers read as "/").
func oneLeadingSlash(p string) bool {
	return strings.HasPrefix(p, "/") && (len(p) == 1 || (p[1] != '/' && p[1] != '\\'))
}
