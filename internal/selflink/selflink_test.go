package selflink

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestSelfLink: addresses on the site pass with their escapes as they are; anything a browser
// could take for another host, or that is not a path, is refused.
func TestSelfLink(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" : refused (selfLink gives the home page)
	}{
		{"/", "/"},
		{"/device", "/device"},
		{"/staff/devices?x=1", "/staff/devices?x=1"},
		{"/films/a%20b", "/films/a%20b"},
		{"/films/a%2Fb?lang=de", "/films/a%2Fb?lang=de"},
		{"/films/a b", "/films/a%20b"},
		{"/kiosk/idle?back=%2Fhello", "/kiosk/idle?back=%2Fhello"},
		{"/booking#tickets", "/booking"},
		{"/caf%C3%A9", "/caf%C3%A9"},
		{"/?\\", "/?%5C"},
		{"/films?q=a b\"<x>", "/films?q=a%20b%22%3Cx%3E"},
		{"/films?q=café&x=%41", "/films?q=caf%C3%A9&x=%41"},
		{"", ""},
		{"device", ""},
		{"%2Fevil.example", ""},
		{"//evil.example/device", ""},
		{"///evil.example", ""},
		{"/\\evil.example", ""},
		{"\\\\evil.example", ""},
		{"/%2Fevil.example", ""},
		{"/%2F%2Fevil.example", ""},
		{"/%5Cevil.example", ""},
		{"/%5cevil.example", ""},
		{"/%09/evil.example", ""},
		{"/\t/evil.example", ""},
		{"/ok%0D%0ASet-Cookie:%20x=1", ""},
		{"/device\r\nSet-Cookie: x=1", ""},
		{"https://evil.example/", ""},
		{"http:/evil.example", ""},
		{"javascript:alert(1)", ""},
		{"/%", ""},
		{"/" + strings.Repeat("a", 3000), ""},
	} {
		got, ok := Local(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Local(%q) = %q %v, want %q", tc.in, got, ok, tc.want)
		}
		want := tc.want
		if want == "" {
			want = "/"
		}
		if got := OrHome(tc.in); got != want {
			t.Errorf("OrHome(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

// FuzzSelfLink: whatever comes in, what comes out is an address on this site that a browser
// resolves to this host, and building it again changes nothing.
func FuzzSelfLink(f *testing.F) {
	for _, s := range []string{"/", "/films/a%20b?x=1", "/%2Fevil.example", "/%5C", "//x", "/\\x", "/a\tb", "/%0a", "/?\\"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://cinema.example/somewhere/page")
	f.Fuzz(func(t *testing.T, in string) {
		out := OrHome(in)
		if !webtest.OnSite(out) || strings.ContainsAny(out, "\\\t\r\n") {
			t.Fatalf("OrHome(%q) = %q: not on the site", in, out)
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("OrHome(%q) = %q: %v", in, out, err)
		}
		if r := base.ResolveReference(u); r.Host != base.Host || r.Scheme != base.Scheme {
			t.Fatalf("OrHome(%q) = %q resolves to %s", in, out, r)
		}
		if again := OrHome(out); again != out {
			t.Fatalf("OrHome(%q) = %q, then %q", in, out, again)
		}
	})
}
