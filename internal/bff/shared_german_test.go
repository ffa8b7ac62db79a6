package bff_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// speak makes h's client a browser that asks for lang (mail_lang_test.go's speaking).
func speak(h *bfftest.Harness, lang string) { h.Speaking(lang) }

// mustHave fails unless every want is in got.
func mustHave(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q: %q", what, w, got)
		}
	}
}

// TestErrorPagesInGerman: a page that is not there, a refused form and an unexpected error
// are explained in the browser's language, the way back included.
func TestErrorPagesInGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	h.Srv.Echo.GET("/test/boom", func(c echo.Context) error { return errBoom })
	speak(h, "de-DE,de;q=0.9")

	resp, body := h.Get("/no/such/page")
	doc := h.Doc(body)
	if resp.StatusCode != http.StatusNotFound || doc.Find("html").AttrOr("lang", "") != "de" {
		t.Fatalf("404: status %d, lang %q", resp.StatusCode, doc.Find("html").AttrOr("lang", ""))
	}
	if got := doc.Find("#error-title").Text(); got != "Seite nicht gefunden" {
		t.Errorf("404 heading %q", got)
	}
	mustHave(t, "404 page", doc.Find(`[data-testid="error-page"]`).Text(), "Unter dieser Adresse gibt es keine Seite", "Zurück zur Startseite")

	// A form without its token: the CSRF refusal.
	resp, body = h.Do("POST", "/booking", url.Values{"number": {"1"}}, nil)
	doc = h.Doc(body)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("CSRF: status %d", resp.StatusCode)
	}
	if got := doc.Find("#error-title").Text(); got != "Dieses Formular ist abgelaufen" {
		t.Errorf("CSRF heading %q", got)
	}
	mustHave(t, "CSRF page", doc.Find(`[data-testid="error-page"]`).Text(), "Zu Ihrer Sicherheit", "laden Sie die Seite neu", "Zurück zur Startseite")

	resp, body = h.Get("/test/boom")
	doc = h.Doc(body)
	ref := doc.Find(`[data-testid="error-reference"]`).Text()
	if resp.StatusCode != http.StatusInternalServerError || ref == "" {
		t.Fatalf("500: status %d, reference %q", resp.StatusCode, ref)
	}
	mustHave(t, "500 page", doc.Find(`[data-testid="error-page"]`).Text(), "Bei uns ist etwas schiefgegangen",
		"nennen Sie bitte die Referenz "+ref+".")
}

// TestUpstreamErrorsInGerman: the errors made without the request at hand (fromUpstream,
// slowUpstream) are written in the language of the page that shows them.
func TestUpstreamErrorsInGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	view := func(err error, lang string) layouts.ErrorView {
		req := httptest.NewRequest(http.MethodGet, "/booking", nil)
		req = req.WithContext(i18n.NewContext(req.Context(), h.Srv.Kernel.Langs.ForCode(lang)))
		return h.Srv.Kernel.ErrorView(err, h.Srv.Echo.NewContext(req, httptest.NewRecorder()))
	}
	for _, tc := range []struct {
		err              error
		heading, message string
	}{
		{h.Srv.Visits.FromUpstream(upstream.ErrOrderExpired, "/", "Zurück"), "Die Zeit ist abgelaufen", "wurden freigegeben"},
		{h.Srv.Visits.FromUpstream(upstream.ErrSeatsUnavailable, "/", "Zurück"), "Diese Plätze wurden gerade vergeben", "Bitte wählen Sie andere."},
		{h.Srv.Visits.FromUpstream(upstream.ErrUnavailable, "/", "Zurück"), "Das Kassensystem des Kinos ist gerade nicht erreichbar", "Es wurde nichts geändert."},
		{web.SlowUpstream(context.DeadlineExceeded, "/", "Zurück"), "Das Kassensystem des Kinos antwortet gerade langsam", "nicht rechtzeitig geantwortet"},
		{&web.Error{Code: web.ETooMany}, "Zu viele Anfragen", "Bitte warten Sie einen Moment"},
	} {
		de, en := view(tc.err, "de"), view(tc.err, "en")
		if de.Heading != tc.heading || !strings.Contains(de.Message, tc.message) {
			t.Errorf("%v in German: %q / %q", tc.err, de.Heading, de.Message)
		}
		if en.Heading == de.Heading || en.Message == de.Message || strings.Contains(en.Heading, ".") {
			t.Errorf("%v in English: %q / %q", tc.err, en.Heading, en.Message)
		}
	}
}

// TestSwapInGerman: a browser that asks for German changes seats in German, from the map
// (its legend, the seats' names, the live count's templates) through a refused choice to the
// result with its ticket cards, dates and money written the German way.
func TestSwapInGerman(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	speak(h, "de")
	resp, body := h.Get(bfftest.SwapPath(100001, ""))
	doc := h.Doc(body)
	if resp.StatusCode != http.StatusOK || doc.Find("html").AttrOr("lang", "") != "de" {
		t.Fatalf("swap page: status %d, lang %q", resp.StatusCode, doc.Find("html").AttrOr("lang", ""))
	}
	if got := doc.Find("#swap-title").Text(); got != "Plätze ändern" {
		t.Errorf("heading %q", got)
	}
	if got := doc.Find("title").Text(); !strings.HasPrefix(got, "Plätze ändern") {
		t.Errorf("title %q", got)
	}
	mustHave(t, "swap form", doc.Find(`[data-testid="swap-form"]`).Text(),
		"Diese Tickets bekommen neue Plätze", "Änderung prüfen", "Zurück zu Ihrer Buchung")
	// The showtime in the cinema's time zone, the German way ("Samstag, 28. November 2026, 20:30 Uhr").
	if got := doc.Find(`[data-testid="swap-booking"]`).Text(); !regexp.MustCompile(`Buchung 100001 · .* · (Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. [A-ZÄa-zä]+ \d{4}, \d\d:\d\d Uhr`).MatchString(got) {
		t.Errorf("booking line %q", got)
	}

	m := doc.Find(`[data-testid="seatmap"]`)
	// The seats moving away have their own look and line of the key; the seats chosen are the
	// new ones.
	legend := map[string]string{"free": "Frei", "current": "Ihre jetzigen Plätze", "selected": "Ihre neuen Plätze (angekreuzt)", "taken": "Belegt", "yours": ""}
	for key, want := range legend {
		if got := strings.TrimSpace(m.Find(`[data-testid="legend-` + key + `"]`).Text()); got != want {
			t.Errorf("legend %s: %q, want %q", key, got, want)
		}
	}
	if got := m.Find(`ul.seatmap-legend`).AttrOr("aria-label", ""); got != "Legende" {
		t.Errorf("legend name %q", got)
	}
	if m.Find(`[role="img"][aria-label="Reihe F, Platz 11, Standard, Ihr jetziger Platz"]`).Length() != 1 {
		t.Error("own seat F11 not named in German")
	}
	if m.Find(`input[aria-label="Reihe F, Platz 3, Standard, frei"]`).Length() != 1 {
		t.Error("free seat F3 not named in German")
	}
	if got := m.Find(`[data-testid="seat-row-1-E"] .seat-row-sum`).Text(); !regexp.MustCompile(`^Reihe E, \d+ von \d+ frei$`).MatchString(got) {
		t.Errorf("row summary %q", got)
	}
	mustHave(t, "seat map", m.Text(), "Leinwand", "Sitzplan überspringen", "Plätze als Liste zeigen", "Einpassen", "Tippen Sie einen freien Platz an", "Mit der Tastatur: Tab")
	for attr, want := range map[string]string{
		"data-seat-count-template":     "{n} von {max} neuen Plätzen gewählt",
		"data-seat-count-template-one": "{n} von {max} neuen Platz gewählt",
		"data-seat-count-none-one":     "{n} neuer Platz gewählt.",
		"data-seat-limit-over":         "{n} Plätze gewählt, nur {max} nötig. Bitte {extra} abwählen.",
		"data-seat-moved":              "gewählt statt {from}",
		"data-seat-tap":                "Reihe {row} · Platz {seat}",
		"data-seat-tap-chosen":         "gewählt",
	} {
		if got := m.AttrOr(attr, ""); !strings.HasPrefix(got, want) {
			t.Errorf("%s %q, want %q…", attr, got, want)
		}
	}
	if got := m.Find(`.seatmap-scroll`).AttrOr("aria-label", ""); got != "Sitzplan, Leinwand oben" {
		t.Errorf("map name %q", got)
	}

	// A choice the BFF refuses: explained in German, the form shown again.
	resp, doc = h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 5, 15)})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("taken seat: status %d", resp.StatusCode)
	}
	notice := doc.Find(`[data-testid="notice-error"]`)
	if got := notice.Find(".notice-heading").Text(); got != "Problem: Dieser Platz ist belegt" {
		t.Errorf("notice heading %q", got)
	}
	mustHave(t, "notice", notice.Text(), "Reihe F, Platz 14 ist nicht frei.")
	resp, doc = h.ReviewSwap(100001, []string{"1", "2"}, []string{bfftest.Seat(1, 5, 2)})
	mustHave(t, "count notice", doc.Find(`[data-testid="notice-error"]`).Text(),
		"Wählen Sie 2 neue Plätze", "Sie ändern die Plätze von 2 Tickets und haben 1 neuen Platz gewählt.")
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("count: status %d", resp.StatusCode)
	}

	// F11 to F3, confirmed, and the result.
	res := bfftest.SwapThrough(t, h, 100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)})
	if got := bfftest.Moves(res)["move-1"]; got != [2]string{"Reihe F, Platz 11", "Reihe F, Platz 3"} {
		t.Errorf("moves %v", got)
	}
	if got := res.Find("#swap-title").Text(); got != "Ihre Plätze wurden geändert" {
		t.Errorf("result heading %q", got)
	}
	mustHave(t, "result", res.Find("main").Text(), "Plätze geändert", "Der Preis ist gleich geblieben.", "Bisheriger Platz", "Neuer Platz", "Ihre Tickets")
	card := res.Find(`[data-testid="ticket-card"]`).First()
	if card.Length() == 0 {
		t.Fatal("no ticket cards on the result")
	}
	mustHave(t, "ticket card", card.Text(), "Reihe", "Platz", "Buchung 100001", " Uhr")
	if got := card.Find(".amount").Text(); !regexp.MustCompile(`^\d+,\d\d\x{00a0}€$`).MatchString(got) {
		t.Errorf("price %q, want German money", got)
	}
	if got := card.AttrOr("aria-label", ""); !strings.HasPrefix(got, "Ticket Reihe ") {
		t.Errorf("ticket name %q", got)
	}
	// The ticket the swap replaced, named by its change record, in German too.
	mustHave(t, "replaced ticket", res.Find(`[data-testid="replaced-ticket"]`).First().Text(), "(Reihe F, Platz 11)", "Nicht mehr gültig")
}

// TestCountdownWordsInGerman: the words static/js/app.js speaks come from the page.
func TestCountdownWordsInGerman(t *testing.T) {
	ctx := i18n.NewContext(context.Background(), bfftest.Localizer(t, language.German))
	w := components.CountdownWords(ctx)
	for attr, want := range map[string]string{
		"data-countdown-left": "noch {n} Minuten", "data-countdown-left-one": "noch {n} Minute",
		"data-countdown-less": "Noch weniger als {n} Minuten", "data-countdown-time-up": "Die Zeit ist um",
	} {
		if got := w[attr]; got != want {
			t.Errorf("%s %q, want %q", attr, got, want)
		}
	}
}
