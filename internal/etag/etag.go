// Package etag makes strong entity tags from content and answers If-None-Match, so a browser
// that has the current version of an asset or fragment gets a 304 instead of the body.
package etag

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Of is the strong ETag of b: a quoted prefix of its SHA-256 (128 bits).
func Of(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// encodingSuffixes are appended inside the quotes by the compression middleware
// (gzhttp.SuffixETag), so a compressed representation has its own tag. The content behind
// them is the same, so they match the uncompressed tag here.
var encodingSuffixes = []string{"-gzip", "-zstd"}

// Matches reports whether an If-None-Match header value names tag, with the weak comparison
// RFC 9110 section 13.1.2 prescribes for If-None-Match; "*" matches anything.
func Matches(ifNoneMatch, tag string) bool {
	if ifNoneMatch == "" || tag == "" {
		return false
	}
	tag = strings.TrimPrefix(tag, "W/")
	for c := range strings.SplitSeq(ifNoneMatch, ",") {
		c = strings.TrimSpace(c)
		if c == "*" {
			return true
		}
		c = strings.TrimPrefix(c, "W/")
		if c == tag {
			return true
		}
		for _, s := range encodingSuffixes {
			if strings.HasSuffix(c, s+`"`) && strings.TrimSuffix(c, s+`"`)+`"` == tag {
				return true
			}
		}
	}
	return false
}
