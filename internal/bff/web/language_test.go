package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/device"
)

func TestLanguageFromTheBrowserAndTheSwitch(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	de := http.Header{"Accept-Language": {"de-DE,de;q=0.9,en;q=0.5"}}

	resp, body := h.Do("GET", "/", nil, de)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / in German: %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	if lang, _ := doc.Find("html").Attr("lang"); lang != "de" {
		t.Errorf(`<html lang=%q>, want "de"`, lang)
	}
	if got := doc.Find("h1").Text(); got != "Ihre Tickets, Ihre Plätze" {
		t.Errorf("German heading %q", got)
	}
	if cl := resp.Header.Get("Content-Language"); cl != "de" {
		t.Errorf("Content-Language %q", cl)
	}
	en := doc.Find(`[data-testid="lang-switch"] a[hreflang="en"]`)
	href, ok := en.Attr("href")
	if !ok || en.Text() != "English" {
		t.Fatalf("no link to English in the switch: %q", en.Text())
	}
	if cur, _ := doc.Find(`[data-testid="lang-switch"] a[aria-current]`).Attr("hreflang"); cur != "de" {
		t.Errorf("the switch marks %q as current, want de", cur)
	}

	// The plain link, as a browser without JavaScript follows it.
	resp, _ = h.Do("GET", href, nil, de)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("?lang=en: %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, path := range []string{"/", "/booking"} {
		_, body = h.Do("GET", path, nil, de) // the browser still asks for German
		doc = h.Doc(body)
		if lang, _ := doc.Find("html").Attr("lang"); lang != "en" {
			t.Errorf("%s after choosing English: <html lang=%q>", path, lang)
		}
	}
	if got := doc.Find(`nav[aria-label] a[href="/booking"]`).Text(); got != "My booking" {
		t.Errorf("nav after choosing English: %q", got)
	}

	// An unknown choice changes nothing and is not an error.
	resp, body = h.Do("GET", "/?lang=xx", nil, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `lang="en"`) {
		t.Errorf("?lang=xx: %d", resp.StatusCode)
	}
}

// TestCounterDefaultLanguage: a counter enrolled with German shows the site in German to a
// browser that asks for English, until the staff member chooses English in the header.
func TestCounterDefaultLanguage(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolIn(device.Counter, "de")
	lang := func() string {
		_, body := h.Do("GET", "/booking", nil, bfftest.AcceptEnglish)
		return h.Doc(body).Find("html").AttrOr("lang", "")
	}
	if got := lang(); got != "de" {
		t.Fatalf("a German counter answers in %q", got)
	}
	if resp, _ := h.Do("GET", "/booking?lang=en", nil, bfftest.AcceptEnglish); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("?lang=en: %d", resp.StatusCode)
	}
	if got := lang(); got != "en" {
		t.Errorf("after choosing English the counter answers in %q", got)
	}
}

// TestSeatCountNoticeInBothLanguages: the purchase's wrong-seat-count notice counts seats and
// tickets with each language's plurals.
func TestSeatCountNoticeInBothLanguages(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	en, de := h.Srv.Kernel.Langs.ForCode("en"), h.Srv.Kernel.Langs.ForCode("de")
	for _, tc := range []struct {
		got, want string
	}{
		{words.SeatCountNotice(en, 3, 2).Heading, "You chose 3 seats for 2 tickets"},
		{words.SeatCountNotice(en, 3, 2).Body, "Untick 1 seat: each ticket gets exactly one seat."},
		{words.SeatCountNotice(de, 1, 2).Heading, "Sie haben 1 Platz für 2 Tickets gewählt"},
		{words.SeatCountNotice(de, 1, 3).Body, "Wählen Sie noch 2 Plätze: Jedes Ticket braucht einen Platz."},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
