package booking_test

import (
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// germanShowtime is a show's time in German: "Freitag, 27. November 2026, 20:30 Uhr".
var germanShowtime = regexp.MustCompile(`(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}, \d{2}:\d{2} Uhr`)

// wantText fails unless the selection's text (white space folded) is want.
func wantText(t *testing.T, doc *goquery.Document, sel, want string) {
	t.Helper()
	if got := bfftest.Squash(doc.Find(sel).First().Text()); got != bfftest.Squash(want) {
		t.Errorf("%s: %q, want %q", sel, got, want)
	}
}

// TestGermanEditWithoutJavaScript is the "done when" for the edit job: a person whose
// browser asks for German, without JavaScript, finds the booking, adds a ticket, pays the
// difference on the provider's page and comes back to the confirmation, every page of ours in
// German with German money and dates.
func TestGermanEditWithoutJavaScript(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de-DE,de;q=0.9,en;q=0.5") // every request: ours, the provider's page and the way back

	// Find.
	doc := h.Page("/booking", http.StatusOK)
	bfftest.InGerman(t, doc, "find page")
	wantText(t, doc, "h1", "Ihre Buchung finden")
	wantText(t, doc, `label[for="number"]`, "Buchungsnummer")
	wantText(t, doc, `label[for="email"]`, "E-Mail-Adresse")
	wantText(t, doc, `[data-testid="find-submit"]`, "Buchung finden")
	if title := doc.Find("title").Text(); !strings.Contains(title, "Ihre Buchung finden") {
		t.Errorf("find page title %q", title)
	}
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {"someone@example.com"}})
	doc = h.Doc(body)
	bfftest.InGerman(t, doc, "find refused")
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("wrong e-mail: %d", resp.StatusCode)
	}
	wantText(t, doc, `[data-testid="find-error"] .notice-heading`, "Wir konnten keine Buchung mit diesen Angaben finden. Bitte prüfen Sie die Buchungsnummer und die E-Mail-Adresse.")

	// The booking.
	doc = h.Find(bfftest.BkPaid2)
	bfftest.InGerman(t, doc, "booking page")
	wantText(t, doc, "#booking-title", "Buchung 100002")
	if st := bfftest.Squash(doc.Find(`[data-testid="booking-summary"] p strong`).First().Text()); !germanShowtime.MatchString(st) {
		t.Errorf("show time %q is not German", st)
	}
	if total := bfftest.Text(doc, "total"); !bfftest.GermanMoney.MatchString(total) {
		t.Errorf("total %q is not German money", total)
	}
	bfftest.WantContains(t, doc, "main", "Buchungsgebühren", "Gesamt", "Bezahlt", "Was Sie tun können", "bezahlt mit MASTERCARD")
	bfftest.WantContains(t, doc, `[data-testid="action-edit"]`, "Diese Buchung ändern")
	bfftest.WantContains(t, doc, `[data-testid="change-window"]`, "Änderungen möglich bis", "Uhr", "vor der Vorstellung")

	// The edit page, after adding a ticket with the + of its type.
	doc = h.StartEdit(t)
	bfftest.InGerman(t, doc, "edit page")
	wantText(t, doc, "#edit-title", "Buchung 100002 ändern")
	form := doc.Find(`[data-testid="add-one"]`).First().Closest("form")
	typ := form.Find(`input[name="type"]`).AttrOr("value", "")
	if typ == "" {
		t.Fatalf("no + to add a ticket: %s", bfftest.Squash(doc.Find("main").Text()))
	}
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	bfftest.InGerman(t, doc, "edit page after adding")
	wantText(t, doc, "#tickets-title", "Ihre Tickets")
	bfftest.WantContains(t, doc, `[data-testid="notice-info"]`, "hinzugefügt")
	bfftest.WantContains(t, doc, `[data-testid="line-added"]`, "Hinzugefügt", "Reihe ", "Platz ")
	bfftest.WantContains(t, doc, `[data-testid="line-kept"]`, "Behalten")
	bfftest.WantContains(t, doc, `[data-testid="add-form"]`, "entfernen", "hinzufügen")
	bfftest.WantContains(t, doc, `[data-testid="countdown"]`, "Ihre Änderungen sind vorgemerkt", "bis", "Uhr", "Mehr Zeit")
	if got := doc.Find(`[data-testid="countdown"]`).AttrOr("data-countdown-left", ""); got != "noch {n} Minuten" {
		t.Errorf("countdown's words for the screen reader: %q", got)
	}
	bfftest.WantContains(t, doc, `[data-testid="edit-money"]`, "Buchung vor der Änderung", "Hinzugefügte oder entfernte Tickets", "Änderung der Buchungsgebühren", "Buchung nach der Änderung", "Zu zahlen")
	balance := bfftest.Text(doc, "balance")
	if !bfftest.GermanMoney.MatchString(balance) {
		t.Errorf("balance %q is not German money", balance)
	}
	wantText(t, doc, `[data-testid="pay-with"]`, "Die Differenz bezahlen Sie im nächsten Schritt mit Karte.")
	wantText(t, doc, `[data-testid="complete-form"] button`, balance+" bezahlen und bestätigen")
	wantText(t, doc, `[data-testid="cancel-link"]`, "Änderungen verwerfen")
	bfftest.WantContains(t, doc, `[data-testid="change-seats"]`, "Plätze ändern")

	// The payment step: Pay sends the browser to the provider, asked for its page in German.
	resp, body = h.Post("/booking/edit/complete", "/booking/edit", nil)
	hosted := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.UpstreamURL+"/pay/checkout/") {
		t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
	}
	if cs, ok := h.Prov.CheckoutSession(path.Base(hosted)); !ok || cs.Locale != "de" || len(cs.LineItems) != 1 || cs.LineItems[0].Name != "Änderung der Buchung 100002" {
		t.Errorf("provider's page: locale %q, items %+v", cs.Locale, cs.LineItems)
	}
	// Before paying, the status page says, in German, what we wait for.
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 {
		t.Fatalf("ledger entries %+v", es)
	}
	doc = h.Page("/booking/edit/status/"+es[0].ID, http.StatusOK)
	bfftest.InGerman(t, doc, "status page")
	wantText(t, doc, "#status-title", "Ihre Buchungsänderung")
	bfftest.WantContains(t, doc, `[data-testid="payment-status"]`, "Warten auf Ihre Zahlung", "Zahlung von "+balance, "Referenz:", "Zurück zur Zahlungsseite")

	// Pay, and back to the confirmation.
	_, doc = h.PayAtProvider(t, hosted, "pay")
	bfftest.InGerman(t, doc, "confirmation")
	wantText(t, doc, "#booking-title", "Buchung 100002")
	bfftest.WantContains(t, doc, `[data-testid="changes"]`, "Ihre Buchung wurde geändert", "Hinzugefügt: ", "(Reihe ", balance+" bezahlt mit VISA")
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 3 {
		t.Errorf("%d tickets after adding one to two", n)
	}
	if strings.Contains(bfftest.Squash(doc.Find(`[data-testid="changes"]`).Text()), "Added") {
		t.Errorf("English in the German confirmation: %q", bfftest.Text(doc, "changes"))
	}
	// The change's message names the seats in German too (its words come from the edit's lines).
	if m := h.OneMail("edit"); !strings.Contains(m.Text, "Reihe F, Platz 16") || strings.Contains(m.Text, "Row F, seat 16") {
		t.Errorf("the edit's e-mail does not name the new seat in German:\n%s", m.Text)
	}
}

// TestGermanEditWords: the edit's other pages and messages in German (cancel, the seat page,
// a refusal with its count, the cut-off), and English when nothing is asked for.
func TestGermanEditWords(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	speak := h.Speaking("de")
	h.Find(bfftest.BkPaid1)
	h.StartEdit(t)

	doc := h.Page("/booking/edit/cancel", http.StatusOK)
	bfftest.InGerman(t, doc, "cancel page")
	wantText(t, doc, "#cancel-title", "Änderungen verwerfen?")
	bfftest.WantContains(t, doc, "main", "Buchung 100001 bleibt genau so", "Ja, Änderungen verwerfen", "Nein, weiter ändern")

	doc = h.Page("/booking/edit/seats", http.StatusOK)
	bfftest.InGerman(t, doc, "seat page")
	wantText(t, doc, "#seats-title", "Plätze für Buchung 100001 wählen")
	bfftest.WantContains(t, doc, "main", "Wählen Sie 2 Plätze, einen für jedes Ticket.", "Diese Plätze nehmen", "Zurück zu Ihren Änderungen")

	resp, body := h.Post("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {bfftest.Seat(1, 5, 12)}})
	doc = h.Doc(body)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("one seat for two tickets: %d", resp.StatusCode)
	}
	bfftest.WantContains(t, doc, `[data-testid="notice-error"]`, "Bitte wählen Sie genau 2 Plätze", "Sie haben 1 gewählt.")

	// The same visit without a language: English (the visit has no language of its own).
	speak("")
	doc = h.Page("/booking/edit", http.StatusOK)
	if lang, _ := doc.Find("html").Attr("lang"); lang != "en" {
		t.Errorf("without Accept-Language: <html lang=%q>", lang)
	}
	wantText(t, doc, "#edit-title", "Change booking 100001")
	bfftest.WantContains(t, doc, `[data-testid="countdown"]`, "Your changes are held", "until")

	// Cancelled: the booking page says so in German.
	speak("de")
	_, doc = h.Submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	bfftest.InGerman(t, doc, "booking after cancel")
	bfftest.WantContains(t, doc, "main", "Ihre Änderungen wurden verworfen. Ihre Buchung ist genau so, wie sie war.")
}
