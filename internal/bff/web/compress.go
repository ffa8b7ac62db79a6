package web

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"

	"github.com/cinemabff/cinemabff/internal/etag"
)

// compressMinSize: a smaller body fits in one packet anyway; compressing it only costs CPU.
const compressMinSize = 1024

// gzipLevel is gzip's fastest level. On our pages it costs about half the CPU of the default
// level (5) for some 10-17 % more bytes (the 412-seat map: 87 KB of HTML, 7.7 KB at the default,
// 9.0 KB at 1; the booking page: 16 KB, 3.9 KB and 4.4 KB), and either fits in the first round
// trip of a new connection (ten packets), so a visitor waits no longer for it.
const gzipLevel = gzip.BestSpeed

// Compressed wraps the whole site (pages, htmx fragments, CSS, JS, SVG) in gzip, or zstd for a
// browser that prefers it. It sits outside Echo so every answer, error pages included, is
// written before the compressor closes. What is not text is passed through as it is (see
// compressible), as is an answer that already has a Content-Encoding (/metrics compresses
// itself), a range, a HEAD request, a body under compressMinSize and a 304. A compressed answer's
// ETag gets "-gzip" or "-zstd" appended, so the two representations have different strong
// ETags; the suffix is taken off a tag sent back in If-None-Match before the handler sees it
// (etag.StripEncodingSuffixes), so the handler compares it with its own tag. Vary:
// Accept-Encoding is always set.
func Compressed(h http.Handler) (http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(compressMinSize),
		gzhttp.CompressionLevel(gzipLevel),
		gzhttp.ContentTypeFilter(compressible),
		gzhttp.SuffixETag("-gzip"), // "-zstd" for zstd
	)
	if err != nil {
		return nil, fmt.Errorf("compression: %w", err)
	}
	return etag.StripEncodingSuffixes(wrap(h)), nil
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip (not with a q of 0).
// A HEAD request gets no body to compress.
func acceptsGzip(r *http.Request) bool {
	if r.Method == http.MethodHead {
		return false
	}
	for _, field := range r.Header.Values("Accept-Encoding") {
		for _, coding := range strings.Split(field, ",") {
			name, params, _ := strings.Cut(coding, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "x-gzip" {
				continue
			}
			q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			if !found {
				return true
			}
			v, err := strconv.ParseFloat(q, 64)
			return err == nil && v > 0
		}
	}
	return false
}

// compressible reports whether a response of this Content-Type is worth compressing: text,
// scripts, JSON, XML and SVG. Images, fonts, archives and streams (text/event-stream: every
// event must go out at once) are not.
func compressible(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	switch {
	case mt == "text/event-stream":
		return false
	case strings.HasPrefix(mt, "text/"):
		return true
	case mt == "image/svg+xml", mt == "application/javascript", mt == "application/json", mt == "application/xml",
		mt == "application/manifest+json", strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	return false
}
