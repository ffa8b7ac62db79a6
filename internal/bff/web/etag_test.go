package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestETagFragments: an htmx GET fragment carries an ETag of its content and no-cache (not
// no-store), and the same fragment asked again with If-None-Match is a 304 without a body; the
// full page stays no-store without an ETag.
func TestETagFragments(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1}) // the payment stays pending
	h.Find(bfftest.BkPaid1)
	hx := func(extra ...string) http.Header {
		hd := http.Header{"Hx-Request": {"true"}}
		for i := 0; i+1 < len(extra); i += 2 {
			hd.Set(extra[i], extra[i+1])
		}
		return hd
	}
	resp, body := h.Do("GET", "/booking/current", nil, hx("Accept-Encoding", "identity"))
	tag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || tag == "" || body == "" {
		t.Fatalf("fragment: status %d, ETag %q, %d bytes", resp.StatusCode, tag, len(body))
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-cache, private" {
		t.Fatalf("fragment Cache-Control %q", cc)
	}
	gzTag := strings.TrimSuffix(tag, `"`) + `-gzip"`
	cases := []struct {
		name   string
		header http.Header
		status int
		etag   bool
	}{
		{"fragment, same tag", hx("If-None-Match", tag), http.StatusNotModified, true},
		{"fragment, tag of the gzipped copy", hx("If-None-Match", gzTag, "Accept-Encoding", "gzip"), http.StatusNotModified, true},
		{"fragment, old tag", hx("If-None-Match", `"0123456789abcdef0123456789abcdef"`), http.StatusOK, true},
		{"full page, same tag", http.Header{"If-None-Match": {tag}}, http.StatusOK, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := h.Do("GET", "/booking/current", nil, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (ETag now %s, sent %v)", resp.StatusCode, tc.status, resp.Header.Get("ETag"), tc.header)
			}
			if tc.status == http.StatusNotModified && body != "" {
				t.Fatalf("304 with a body: %.100q", body)
			}
			if got := resp.Header.Get("ETag") != ""; got != tc.etag {
				t.Fatalf("ETag %q, want one: %v", resp.Header.Get("ETag"), tc.etag)
			}
			if !tc.etag && resp.Header.Get("Cache-Control") != "no-store" {
				t.Fatalf("full page Cache-Control %q", resp.Header.Get("Cache-Control"))
			}
		})
	}

	// The payment return page's poller is such a fragment.
	h.BuyUpToSummary("1113", bfftest.Url1Adult())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	h.Get(ret)
	resp, body = h.Do("GET", ret, nil, hx())
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="poller"`) {
		t.Fatalf("poll: status %d: %s", resp.StatusCode, body)
	}
	if resp.Header.Get("ETag") == "" || resp.Header.Get("Cache-Control") != "no-cache, private" {
		t.Fatalf("poll: ETag %q, Cache-Control %q", resp.Header.Get("ETag"), resp.Header.Get("Cache-Control"))
	}
}

// TestETagStaticThroughTheSite: an asset's ETag survives compression as its own tag, and
// either tag sent back gives a 304.
func TestETagStaticThroughTheSite(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	css := h.Srv.Kernel.Assets.Path("css/app.css")
	resp, _ := h.Do("GET", css, nil, http.Header{"Accept-Encoding": {"identity"}})
	plain := resp.Header.Get("ETag")
	resp, _ = h.Do("GET", css, nil, http.Header{"Accept-Encoding": {"gzip"}})
	zipped := resp.Header.Get("ETag")
	if plain == "" || zipped != strings.TrimSuffix(plain, `"`)+`-gzip"` {
		t.Fatalf("ETag %q plain, %q gzipped", plain, zipped)
	}
	for _, tag := range []string{plain, zipped} {
		resp, body := h.Do("GET", css, nil, http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {tag}})
		if resp.StatusCode != http.StatusNotModified || body != "" {
			t.Fatalf("If-None-Match %s: status %d, %d bytes", tag, resp.StatusCode, len(body))
		}
	}
}
