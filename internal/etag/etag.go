// Package etag makes strong entity tags from content, and lets a browser send back the tag
// of a compressed copy: http.ServeContent then answers If-None-Match with a 304 as for the
// uncompressed tag.
package etag

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// Of is the strong ETag of b: a quoted prefix of its SHA-256 (128 bits).
func Of(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// encodingSuffixes are appended inside the quotes by the compression middleware
// (gzhttp.SuffixETag), so a compressed representation has its own tag. The content behind
// them is the same, so they are taken off again in If-None-Match.
var encodingSuffixes = []string{`-gzip"`, `-zstd"`}

// StripEncodingSuffixes hands h the request with the encoding suffixes taken off the tags in
// its If-None-Match, so the handler compares them with the tag of the uncompressed content.
func StripEncodingSuffixes(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inm := r.Header.Get("If-None-Match"); hasEncodingSuffix(inm) {
			r2 := *r
			r2.Header = r.Header.Clone()
			r2.Header.Set("If-None-Match", stripSuffixes(inm))
			r = &r2
		}
		h.ServeHTTP(w, r)
	})
}

func hasEncodingSuffix(ifNoneMatch string) bool {
	for _, s := range encodingSuffixes {
		if strings.Contains(ifNoneMatch, s) {
			return true
		}
	}
	return false
}

func stripSuffixes(ifNoneMatch string) string {
	tags := strings.Split(ifNoneMatch, ",")
	for i, t := range tags {
		t = strings.TrimSpace(t)
		for _, s := range encodingSuffixes {
			if strings.HasSuffix(t, s) {
				t = strings.TrimSuffix(t, s) + `"`
				break
			}
		}
		tags[i] = t
	}
	return strings.Join(tags, ", ")
}
