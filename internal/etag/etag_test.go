package etag

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	a, b := Of([]byte("one")), Of([]byte("two"))
	if a == b {
		t.Fatal("different content, same tag")
	}
	if a != Of([]byte("one")) {
		t.Fatal("same content, different tag")
	}
	if !strings.HasPrefix(a, `"`) || !strings.HasSuffix(a, `"`) || strings.HasPrefix(a, "W/") || len(a) != 34 {
		t.Fatalf("not a strong quoted tag: %s", a)
	}
}

func TestMatches(t *testing.T) {
	const tag = `"abc123"`
	cases := []struct {
		header string
		want   bool
	}{
		{``, false},
		{`"abc123"`, true},
		{`W/"abc123"`, true},
		{`"abc123-gzip"`, true},
		{`W/"abc123-zstd"`, true},
		{`"other", "abc123"`, true},
		{`"other","abc123-gzip"`, true},
		{`*`, true},
		{`"abc12"`, false},
		{`"abc1234"`, false},
		{`"abc123-br"`, false},
		{`"other"`, false},
		{`abc123`, false},
	}
	// Matches is gone: the comparison is http.ServeContent's, behind StripEncodingSuffixes.
	h := StripEncodingSuffixes(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", tag)
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader("content"))
	}))
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.header != "" {
			r.Header.Set("If-None-Match", tc.header)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if got := w.Code == http.StatusNotModified; got != tc.want {
			t.Errorf("If-None-Match %q, ETag %s: status %d, want a match: %v", tc.header, tag, w.Code, tc.want)
		}
	}
}
