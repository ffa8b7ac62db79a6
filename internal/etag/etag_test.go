package etag

import (
	"strings"
	"testing"
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
	for _, tc := range cases {
		if got := Matches(tc.header, tag); got != tc.want {
			t.Errorf("Matches(%q, %s) = %v, want %v", tc.header, tag, got, tc.want)
		}
	}
}
