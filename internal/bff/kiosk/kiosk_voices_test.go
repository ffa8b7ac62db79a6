package kiosk_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestKioskReportsItsVoices: the attract screen names where to report and which languages to
// ask about; a kiosk's report of a language without a voice is one warning in the service's
// log naming the kiosk and the language, said again only when the answer changes; the report
// leaves the kiosk at rest (no visit begins); what is not a kiosk's report is refused.
func TestKioskReportsItsVoices(t *testing.T) {
	logs := &bfftest.Log{}
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{Logger: logs.Logger()})
	attract := h.Page("/", http.StatusOK).Find(`[data-testid="kiosk-attract"]`)
	if got := attract.AttrOr("data-speech-report", ""); got != "/kiosk/voices" {
		t.Fatalf("the attract screen reports voices to %q", got)
	}
	if got := attract.AttrOr("data-speech-languages", ""); got != "en de" {
		t.Fatalf("the attract screen asks about languages %q, want %q", got, "en de")
	}
	const warning = "kiosk: no voice for these languages"
	for _, report := range []url.Values{
		{"has": {"en"}, "missing": {"de"}},
		{"has": {"en"}, "missing": {"de"}}, // the next attract screen: the same answer
	} {
		resp, body := h.Post("/kiosk/voices", "/", report)
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("report %v: %d %s", report, resp.StatusCode, body)
		}
	}
	lines := logs.Lines(warning)
	if len(lines) != 1 || !strings.Contains(lines[0], "missing=[de]") || !strings.Contains(lines[0], "level=WARN") {
		t.Fatalf("log lines %q, want one warning naming German", lines)
	}
	if _, ok := h.Page("/", http.StatusOK).Find(`[data-testid="kiosk-attract"]`).Attr("data-speech-report"); !ok {
		t.Error("after the report the kiosk's home page is no longer the attract screen: the report began a visit")
	}
	// A voice installed: the next answer is logged once, as the good news.
	if resp, body := h.Post("/kiosk/voices", "/", url.Values{"has": {"en", "de"}}); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("report with both voices: %d %s", resp.StatusCode, body)
	}
	if n := logs.Count("kiosk: a voice for every language"); n != 1 {
		t.Errorf("%d lines say every language has a voice, want 1; log:\n%s", n, logs.String())
	}

	for _, tc := range []struct {
		name string
		form url.Values
	}{
		{"no language", url.Values{}},
		{"a language the site does not have", url.Values{"missing": {"fr"}}},
	} {
		if resp, body := h.Post("/kiosk/voices", "/", tc.form); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", tc.name, resp.StatusCode, body)
		}
	}
	if resp, body := h.Do("POST", "/kiosk/voices", url.Values{"missing": {"de"}}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a report without the CSRF token: %d %s, want 403", resp.StatusCode, body)
	}

	customer := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Logger: logs.Logger()})
	if resp, body := customer.Post("/kiosk/voices", "/booking", url.Values{"missing": {"de"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a customer's browser reports voices: %d %s, want 403", resp.StatusCode, body)
	}
	if n := len(logs.Lines(warning)); n != 1 {
		t.Errorf("%d warnings after the refused reports, want still 1", n)
	}
}
