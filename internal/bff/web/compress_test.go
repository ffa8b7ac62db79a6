package web_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// gunzip decompresses a gzip body or fails the test.
func gunzip(t *testing.T, body string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	return string(b)
}

// TestGzipSeatMapPage: the seat map of the 412-seat auditorium comes back gzip-compressed, in
// at most 15 KB, to a browser that accepts it.
func TestGzipSeatMapPage(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	resp, body := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", bfftest.Url1Adult()) // 1113: screen 1, the 412-seat one
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")

	_, plain := h.Do("GET", "/checkout/seats", nil, http.Header{"Accept-Encoding": {"identity"}})
	resp, body = h.Do("GET", "/checkout/seats", nil, http.Header{"Accept-Encoding": {"gzip, deflate, br"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", ce)
	}
	if !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept-Encoding") {
		t.Errorf("Vary %q lacks Accept-Encoding", resp.Header.Values("Vary"))
	}
	html := gunzip(t, body)
	seats := h.Doc(html).Find(`[data-testid="seatmap"] input[name="seat"]`).Length()
	if seats < 400 {
		t.Fatalf("the page shows %d seat inputs: not the big auditorium's seat map", seats)
	}
	t.Logf("seat map page, %d seat inputs: %d bytes, %d gzipped (goal ≤ 15360)", seats, len(plain), len(body))
	if len(body) > 15<<10 {
		t.Errorf("gzipped seat map page is %d bytes", len(body))
	}
	// The rows are joined in compressed (gzjoin): the page a browser unpacks shows the same
	// seats as the page sent as it is, and no marker of a joined part is left in either.
	if got, want := seatInputs(h, html), seatInputs(h, plain); got != want {
		t.Errorf("the gzipped page's seats differ from the plain page's:\n got %.300s\nwant %.300s", got, want)
	}
	for name, page := range map[string]string{"gzipped": html, "plain": plain} {
		if strings.ContainsRune(page, 0) {
			t.Errorf("the %s page holds a NUL byte (a part's marker)", name)
		}
	}
	for _, refused := range []string{"gzip;q=0", "identity"} {
		resp, body := h.Do("GET", "/checkout/seats", nil, http.Header{"Accept-Encoding": {refused}})
		if ce := resp.Header.Get("Content-Encoding"); ce != "" || strings.ContainsRune(body, 0) || seatInputs(h, body) != seatInputs(h, plain) {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q and a page unlike the plain one", refused, ce)
		}
	}
}

// TestGzippedPageGoesOutWhole: a page is compressed whole and sent with its length, in one
// write, not streamed in pieces by the compressing wrapper.
func TestGzippedPageGoesOutWhole(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	for _, path := range []string{"/booking", "/whats-on"} {
		resp, body := h.Do("GET", path, nil, http.Header{"Accept-Encoding": {"gzip"}})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: status %d, Content-Encoding %q", path, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		if resp.ContentLength != int64(len(body)) {
			t.Errorf("%s: Content-Length %d for %d bytes of gzip", path, resp.ContentLength, len(body))
		}
		if page := gunzip(t, body); !strings.Contains(page, "</html>") {
			t.Errorf("%s: the gzipped page is not whole: %.200q", path, page[max(0, len(page)-200):])
		}
	}
}

// seatInputs lists the seat map's inputs of a page: value, name and whether chosen.
func seatInputs(h *bfftest.Harness, page string) string {
	var b strings.Builder
	h.Doc(page).Find(`[data-testid="seatmap"] input[name="seat"]`).Each(func(_ int, s *goquery.Selection) {
		_, checked := s.Attr("checked")
		fmt.Fprintf(&b, "%s %s %v|", s.AttrOr("value", ""), s.AttrOr("aria-label", ""), checked)
	})
	return b.String()
}

// TestGzipWhatAndWhen: what is compressed and what is left alone.
func TestGzipWhatAndWhen(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 4096)...)
	h.Srv.Echo.GET("/test/png", func(c echo.Context) error { return c.Blob(http.StatusOK, "image/png", png) })
	css := h.Srv.Kernel.Assets.Path("css/app.css")
	js := h.Srv.Kernel.Assets.Path("vendor/htmx-2.0.11.min.js")
	gz := http.Header{"Accept-Encoding": {"gzip"}}
	cases := []struct {
		name     string
		method   string
		path     string
		header   http.Header
		wantGzip bool
	}{
		{"html page", "GET", "/booking", gz, true},
		{"html page, no Accept-Encoding", "GET", "/booking", http.Header{"Accept-Encoding": {"identity"}}, false},
		{"gzip refused by q=0", "GET", "/booking", http.Header{"Accept-Encoding": {"gzip;q=0"}}, false},
		{"htmx fragment", "GET", "/booking", http.Header{"Accept-Encoding": {"gzip"}, "Hx-Request": {"true"}}, true},
		{"css", "GET", css, gz, true},
		{"js", "GET", js, gz, true},
		{"HEAD of css", "HEAD", css, gz, false},
		{"png: already compressed", "GET", "/test/png", gz, false},
		{"tiny body", "GET", "/livez", gz, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := h.Do(tc.method, tc.path, nil, tc.header)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tc.wantGzip {
				t.Fatalf("gzip = %v (Content-Encoding %q), want %v", got, resp.Header.Get("Content-Encoding"), tc.wantGzip)
			}
			if tc.wantGzip {
				body = gunzip(t, body)
			}
			if tc.method == "GET" && len(body) == 0 {
				t.Fatal("empty body")
			}
		})
	}
}

// TestGzipMetricsNotDoubleCompressed: /metrics compresses itself; the site must not compress
// it again.
func TestGzipMetricsNotDoubleCompressed(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{MetricsToken: "scrape-token"})
	h.Get("/booking")
	resp, body := h.Do("GET", "/metrics", nil, http.Header{"Accept-Encoding": {"gzip"}, "Authorization": {"Bearer scrape-token"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		body = gunzip(t, body)
	}
	if !strings.Contains(body, "# HELP") {
		t.Fatalf("metrics not readable after one decompression: %.200q", body)
	}
}
