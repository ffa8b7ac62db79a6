package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestSelfLinkLanguageSwitchStaysOnSite: the language switch redirects to the same page on the
// site, built from the escaped path: an encoded slash or backslash at the start never becomes
// "//host", and escaped characters of a real path are kept as they are.
func TestSelfLinkLanguageSwitchStaysOnSite(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	for _, tc := range []struct {
		path string
		want string // "" : any address on the site
	}{
		{"/%2Fevil.example?lang=de", ""},
		{"/%2F%2Fevil.example?lang=de", ""},
		{"/%5Cevil.example?lang=de", ""},
		{"/%2F%5Cevil.example?lang=de", ""},
		{"/%09/evil.example?lang=de", ""},
		{"/films/a%20b?lang=de", "/films/a%20b"},
		{"/films/a%2Fb?lang=de&x=1", "/films/a%2Fb?x=1"},
		{"/booking?lang=en", "/booking"},
	} {
		resp, _ := h.Get(tc.path)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !webtest.OnSite(loc) {
			t.Errorf("GET %s: %d to %q, want 303 on the site", tc.path, resp.StatusCode, loc)
			continue
		}
		if tc.want != "" && loc != tc.want {
			t.Errorf("GET %s: to %q, want %q", tc.path, loc, tc.want)
		}
	}
}

// TestSelfLinkLanguageLinksStayOnSite: the header's language links of the page at
// /%2Fevil.example (a 404) point into the site; those of a real page point to it.
func TestSelfLinkLanguageLinksStayOnSite(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	for _, tc := range []struct {
		path   string
		status int
		prefix string // every language link starts with it
	}{
		{"/%2Fevil.example", http.StatusNotFound, "/?"},
		{"/%2F%2Fevil.example", http.StatusNotFound, "/?"},
		{"/%5Cevil.example", http.StatusNotFound, "/?"},
		{"/staff/sign-in", http.StatusOK, "/staff/sign-in?"},
		{"/films/a%20b", http.StatusNotFound, "/films/a%20b?"},
	} {
		doc := h.Page(tc.path, tc.status)
		links := doc.Find(`a[href*="lang="]`)
		if links.Length() < 2 {
			t.Errorf("%s: %d language links", tc.path, links.Length())
		}
		links.Each(func(_ int, a *bfftest.GoquerySel) {
			href := a.AttrOr("href", "")
			if !webtest.OnSite(href) || !strings.HasPrefix(href, tc.prefix) {
				t.Errorf("%s: language link %q, want one on the site starting %q", tc.path, href, tc.prefix)
			}
		})
	}
}

// TestSelfLinkSignInNextStaysOnSite: a sign-in whose next= names an encoded "//host" lands on
// the site, and so does every redirect after it.
func TestSelfLinkSignInNextStaysOnSite(t *testing.T) {
	for i, next := range []string{"/%2Fevil.example", "/%2Fevil.example?lang=de", "/%5Cevil.example", "//evil.example", "/\\evil.example"} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
			h.AddClerk("anna", "Anna Box", bfftest.TestPassword)
			doc := h.Page("/staff/sign-in?next="+url.QueryEscape(next), http.StatusOK)
			doc.Find(`input[name="next"]`).Each(func(_ int, in *bfftest.GoquerySel) {
				if v := in.AttrOr("value", ""); v != "" && !webtest.OnSite(v) {
					t.Errorf("the sign-in form carries next=%q", v)
				}
			})
			resp, _ := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {bfftest.TestPassword}, "next": {next}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("sign in: %d", resp.StatusCode)
			}
			h.FollowOnSite(t, resp)
		})
	}
}

// TestSelfLinkKioskBackStaysOnSite: the idle page's back= never leads off the site.
func TestSelfLinkKioskBackStaysOnSite(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	for _, back := range []string{"/%2Fevil.example", "/%5Cevil.example", "//evil.example", "/%2Fevil.example?lang=de"} {
		resp, _ := h.Get("/kiosk/idle?back=" + url.QueryEscape(back))
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("back=%s: %d", back, resp.StatusCode)
		}
		h.FollowOnSite(t, resp)
	}
}

// TestSelfLinkTrailingSlashKeepsTheEscapedPath: the redirect that drops a trailing slash keeps
// the path as it was sent (escaped) and stays on the site.
func TestSelfLinkTrailingSlashKeepsTheEscapedPath(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	for path, want := range map[string]string{
		"/booking/":             "/booking",
		"/films/a%20b/?x=1":     "/films/a%20b?x=1",
		"/films/a%2Fb/":         "/films/a%2Fb",
		"/%2Fevil.example/":     "/",
		"/%5Cevil.example/":     "/",
		"/%2F%2Fevil.example//": "/",
	} {
		resp, _ := h.Get(path)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || loc != want {
			t.Errorf("GET %s: %d to %q, want 301 to %q", path, resp.StatusCode, loc, want)
		}
	}
}
