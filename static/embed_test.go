package static

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/etag"
)

// TestAssetETag: every asset has a strong ETag of its content, and a browser that sends it
// back gets a 304 without the body.
func TestAssetETag(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(files, "css/app.css")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	want := `"` + hex.EncodeToString(sum[:16]) + `"`
	url := a.Path("css/app.css")
	cases := []struct {
		name        string
		ifNoneMatch string
		status      int
	}{
		{"first request", "", http.StatusOK},
		{"current tag", want, http.StatusNotModified},
		{"current tag, weak", "W/" + want, http.StatusNotModified},
		{"current tag of the gzipped representation", strings.TrimSuffix(want, `"`) + `-gzip"`, http.StatusNotModified},
		{"old tag", `"0123456789abcdef0123456789abcdef"`, http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", url, nil)
			if tc.ifNoneMatch != "" {
				r.Header.Set("If-None-Match", tc.ifNoneMatch)
			}
			w := httptest.NewRecorder()
			// As the site serves it: the tag of the gzipped copy is taken back to the plain one
			// before the asset handler sees it (Assets no longer knows about encoding suffixes).
			etag.StripEncodingSuffixes(a).ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("ETag"); got != want {
				t.Fatalf("ETag %s, want %s", got, want)
			}
			if cc := w.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
				t.Errorf("Cache-Control %q", cc)
			}
			if tc.status == http.StatusNotModified && w.Body.Len() != 0 {
				t.Errorf("304 with a body of %d bytes", w.Body.Len())
			}
			if tc.status == http.StatusOK && w.Body.String() != string(b) {
				t.Errorf("body is not the asset")
			}
		})
	}
}
