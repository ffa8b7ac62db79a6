package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestCSRFPlantedTokenIsRefused: a client with no visit of its own, sending no
// Fetch Metadata (an old browser, or any browser on plain http), with a csrf cookie planted
// (by a sibling subdomain or on the network) and the same value in the form or header, is
// refused: the double-submit cookie alone no longer passes.
func TestCSRFPlantedTokenIsRefused(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	bfftest.AddSessionProbe(h)
	u, _ := url.Parse(h.TS.URL)
	const planted = "abcdefghijklmnopqrstuvwxyzABCDEF"
	for _, tc := range []struct {
		name   string
		warm   bool // the client has looked at a page first (it has a device cookie, no visit)
		form   url.Values
		header http.Header
	}{
		{"form, nothing of its own", false, url.Values{"v": {"x"}, "_csrf": {planted}}, nil},
		{"header, nothing of its own", false, url.Values{"v": {"x"}}, http.Header{"X-Csrf-Token": {planted}}},
		{"form, after a page", true, url.Values{"v": {"x"}, "_csrf": {planted}}, nil},
		{"header, after a page", true, url.Values{"v": {"x"}}, http.Header{"X-Csrf-Token": {planted}, "Hx-Request": {"true"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := h.Browser()
			if tc.warm {
				b.Get("/device")
			}
			b.Client.Jar.SetCookies(u, []*http.Cookie{{Name: "csrf", Value: planted, Path: "/"}})
			resp, body := b.Do("POST", "/test/put", tc.form, tc.header)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("planted token: %d, want 403: %s", resp.StatusCode, body)
			}
		})
	}
}

// TestCSRFLegitimatePostsPass: forms of the visit's own pages pass, with and without Fetch
// Metadata, on a first visit, from several tabs, across the start of the server session, and
// the sign-in form both before and after a sign-in ended on its own.
func TestCSRFLegitimatePostsPass(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	bfftest.AddSessionProbe(h)
	put := func(b *bfftest.Harness, tok string, header http.Header) int {
		t.Helper()
		resp, _ := b.Do("POST", "/test/put", url.Values{"v": {"x"}, "_csrf": {tok}}, header)
		return resp.StatusCode
	}
	sameOrigin := http.Header{"Sec-Fetch-Site": {"same-origin"}}

	// A first visit: two tabs, each with its page's token; the first post starts the server
	// session and neither tab's token goes stale with it.
	b := h.Browser()
	tab1, tab2 := b.CSRFToken("/device"), b.CSRFToken("/staff/sign-in")
	if b.Cookie("session") != nil {
		t.Fatal("looking at pages started a server session")
	}
	for i, tok := range []string{tab2, tab1, tab2, tab1} {
		if code := put(b, tok, nil); code != http.StatusOK {
			t.Fatalf("post %d of the two tabs: %d", i, code)
		}
	}
	if b.Cookie("session") == nil {
		t.Fatal("no server session after a write")
	}
	if code := put(b, b.CSRFToken("/device"), sameOrigin); code != http.StatusOK {
		t.Fatalf("with Fetch Metadata and the token: %d", code)
	}
	if code := put(b, "", sameOrigin); code != http.StatusOK {
		t.Fatalf("with Fetch Metadata, without a token: %d", code)
	}
	if resp, _ := b.Do("POST", "/test/put", url.Values{"v": {"x"}}, http.Header{"X-Csrf-Token": {tab1}, "Hx-Request": {"true"}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("htmx header token: %d", resp.StatusCode)
	}

	// Another visit's token is not this visit's.
	other := h.Browser()
	other.Post("/test/put", "/device", url.Values{"v": {"y"}})
	if code := put(other, tab1, nil); code != http.StatusForbidden {
		t.Fatalf("another visit's token: %d, want 403", code)
	}
}

// TestCSRFAcrossSessionRenewal: renewing the session (sign-in, a booking bound to the visit)
// gives the visit a new CSRF secret, so a token someone knew before (a visit they planted)
// is no good after it; the request that renews is checked before it, and the pages after it
// carry the new token. The sign-in form works in every state of the visit.
func TestCSRFAcrossSessionRenewal(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	bfftest.AddSessionProbe(h)
	h.AddClerk("anna", "Anna Box", bfftest.TestPassword)
	h.AddClerk("ben", "Ben Till", bfftest.TestPassword)

	before := h.CSRFToken("/device")
	if resp, _ := h.Do("POST", "/test/renew", url.Values{"_csrf": {before}}, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("renew: %d", resp.StatusCode)
	}
	if resp, _ := h.Do("POST", "/test/put", url.Values{"v": {"x"}, "_csrf": {before}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a token from before the renewal: %d, want 403", resp.StatusCode)
	}
	if resp, _ := h.Post("/test/put", "/device", url.Values{"v": {"x"}}); resp.StatusCode != http.StatusOK {
		t.Fatalf("a token from after the renewal: %d", resp.StatusCode)
	}

	// The sign-in form of a visit with a session, then one rendered while signed in and
	// posted after the sign-in ended (the account was disabled meanwhile).
	h.SignIn("anna")
	form := h.CSRFToken("/staff/sign-in")
	if _, err := h.Srv.Staff.Disable(context.Background(), "anna"); err != nil {
		t.Fatal(err)
	}
	resp, body := h.Do("POST", "/staff/sign-in", url.Values{"username": {"ben"}, "password": {bfftest.TestPassword}, "_csrf": {form}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in after the last one ended: %d %s", resp.StatusCode, body)
	}
	if badge := bfftest.Text(h.Page("/device", http.StatusOK), "staff-badge"); !strings.Contains(badge, "Ben Till") {
		t.Fatalf("signed in as %q, want Ben Till", badge)
	}
}
