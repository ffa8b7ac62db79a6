package bff

import (
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// germanShowtime is a show's time in German: "Freitag, 27. November 2026, 20:30 Uhr".
var germanShowtime = regexp.MustCompile(`(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4}, \d{2}:\d{2} Uhr`)

// inGerman fails unless the page says it is German.
func inGerman(t *testing.T, doc *goquery.Document, what string) {
	t.Helper()
	if lang, _ := doc.Find("html").Attr("lang"); lang != "de" {
		t.Fatalf("%s: <html lang=%q>, want \"de\": %s", what, lang, squash(doc.Find("main").Text()))
	}
}

// wantText fails unless the selection's text (white space folded) is want.
func wantText(t *testing.T, doc *goquery.Document, sel, want string) {
	t.Helper()
	if got := squash(doc.Find(sel).First().Text()); got != squash(want) {
		t.Errorf("%s: %q, want %q", sel, got, want)
	}
}

// wantContains fails unless the selection's text (white space folded) contains every want.
func wantContains(t *testing.T, doc *goquery.Document, sel string, want ...string) {
	t.Helper()
	got := squash(doc.Find(sel).Text())
	for _, w := range want {
		if !strings.Contains(got, squash(w)) {
			t.Errorf("%s lacks %q: %q", sel, w, got)
		}
	}
}

// TestGermanEditWithoutJavaScript is the "done when" for the edit job: a person whose
// browser asks for German, without JavaScript, finds the booking, adds a ticket, pays the
// difference on the provider's page and comes back to the confirmation, every page of ours in
// German with German money and dates.
func TestGermanEditWithoutJavaScript(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.speaking("de-DE,de;q=0.9,en;q=0.5") // every request: ours, the provider's page and the way back

	// Find.
	doc := h.page("/booking", http.StatusOK)
	inGerman(t, doc, "find page")
	wantText(t, doc, "h1", "Ihre Buchung finden")
	wantText(t, doc, `label[for="number"]`, "Buchungsnummer")
	wantText(t, doc, `label[for="email"]`, "E-Mail-Adresse")
	wantText(t, doc, `[data-testid="find-submit"]`, "Buchung finden")
	if title := doc.Find("title").Text(); !strings.Contains(title, "Ihre Buchung finden") {
		t.Errorf("find page title %q", title)
	}
	resp, body := h.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {"someone@example.com"}})
	doc = h.doc(body)
	inGerman(t, doc, "find refused")
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("wrong e-mail: %d", resp.StatusCode)
	}
	wantText(t, doc, `[data-testid="find-error"] .notice-heading`, "Wir konnten keine Buchung mit diesen Angaben finden. Bitte prüfen Sie die Buchungsnummer und die E-Mail-Adresse.")

	// The booking.
	doc = h.find(bkPaid2)
	inGerman(t, doc, "booking page")
	wantText(t, doc, "#booking-title", "Buchung 100002")
	if st := squash(doc.Find(`[data-testid="booking-summary"] p strong`).First().Text()); !germanShowtime.MatchString(st) {
		t.Errorf("show time %q is not German", st)
	}
	if total := text(doc, "total"); !germanMoney.MatchString(total) {
		t.Errorf("total %q is not German money", total)
	}
	wantContains(t, doc, "main", "Buchungsgebühren", "Gesamt", "Bezahlt", "Was Sie tun können", "bezahlt mit MASTERCARD")
	wantContains(t, doc, `[data-testid="action-edit"]`, "Diese Buchung ändern")
	wantContains(t, doc, `[data-testid="change-window"]`, "Änderungen möglich bis", "Uhr", "vor der Vorstellung")

	// The edit page, after adding a ticket with the + of its type.
	doc = h.startEdit(t)
	inGerman(t, doc, "edit page")
	wantText(t, doc, "#edit-title", "Buchung 100002 ändern")
	form := doc.Find(`[data-testid="add-one"]`).First().Closest("form")
	typ := form.Find(`input[name="type"]`).AttrOr("value", "")
	if typ == "" {
		t.Fatalf("no + to add a ticket: %s", squash(doc.Find("main").Text()))
	}
	_, doc = h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	inGerman(t, doc, "edit page after adding")
	wantText(t, doc, "#tickets-title", "Ihre Tickets")
	wantContains(t, doc, `[data-testid="notice-info"]`, "hinzugefügt")
	wantContains(t, doc, `[data-testid="line-added"]`, "Hinzugefügt", "Reihe ", "Platz ")
	wantContains(t, doc, `[data-testid="line-kept"]`, "Behalten")
	wantContains(t, doc, `[data-testid="add-form"]`, "entfernen", "hinzufügen")
	wantContains(t, doc, `[data-testid="countdown"]`, "Ihre Änderungen sind vorgemerkt", "bis", "Uhr", "Mehr Zeit")
	if got := doc.Find(`[data-testid="countdown"]`).AttrOr("data-countdown-left", ""); got != "noch {n} Minuten" {
		t.Errorf("countdown's words for the screen reader: %q", got)
	}
	wantContains(t, doc, `[data-testid="edit-money"]`, "Buchung vor der Änderung", "Hinzugefügte oder entfernte Tickets", "Änderung der Buchungsgebühren", "Buchung nach der Änderung", "Zu zahlen")
	balance := text(doc, "balance")
	if !germanMoney.MatchString(balance) {
		t.Errorf("balance %q is not German money", balance)
	}
	wantText(t, doc, `[data-testid="pay-with"]`, "Die Differenz bezahlen Sie im nächsten Schritt mit Karte.")
	wantText(t, doc, `[data-testid="complete-form"] button`, balance+" bezahlen und bestätigen")
	wantText(t, doc, `[data-testid="cancel-link"]`, "Änderungen verwerfen")
	wantContains(t, doc, `[data-testid="change-seats"]`, "Plätze ändern")

	// The payment step: Pay sends the browser to the provider, asked for its page in German.
	resp, body = h.post("/booking/edit/complete", "/booking/edit", nil)
	hosted := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.upURL+"/pay/checkout/") {
		t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
	}
	if cs, ok := h.prov.CheckoutSession(path.Base(hosted)); !ok || cs.Locale != "de" || len(cs.LineItems) != 1 || cs.LineItems[0].Name != "Änderung der Buchung 100002" {
		t.Errorf("provider's page: locale %q, items %+v", cs.Locale, cs.LineItems)
	}
	// Before paying, the status page says, in German, what we wait for.
	es, _ := entries(t, h)
	if len(es) != 1 {
		t.Fatalf("ledger entries %+v", es)
	}
	doc = h.page("/booking/edit/status/"+es[0].ID, http.StatusOK)
	inGerman(t, doc, "status page")
	wantText(t, doc, "#status-title", "Ihre Buchungsänderung")
	wantContains(t, doc, `[data-testid="payment-status"]`, "Warten auf Ihre Zahlung", "Zahlung von "+balance, "Referenz:", "Zurück zur Zahlungsseite")

	// Pay, and back to the confirmation.
	_, doc = h.payAtProvider(t, hosted, "pay")
	inGerman(t, doc, "confirmation")
	wantText(t, doc, "#booking-title", "Buchung 100002")
	wantContains(t, doc, `[data-testid="changes"]`, "Ihre Buchung wurde geändert", "Hinzugefügt: ", "(Reihe ", balance+" bezahlt mit VISA")
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 3 {
		t.Errorf("%d tickets after adding one to two", n)
	}
	if strings.Contains(squash(doc.Find(`[data-testid="changes"]`).Text()), "Added") {
		t.Errorf("English in the German confirmation: %q", text(doc, "changes"))
	}
	// The change's message names the seats in German too (its words come from the edit's lines).
	if m := h.oneMail("edit"); !strings.Contains(m.Text, "Reihe F, Platz 16") || strings.Contains(m.Text, "Row F, seat 16") {
		t.Errorf("the edit's e-mail does not name the new seat in German:\n%s", m.Text)
	}
}

// TestGermanEditWords: the edit's other pages and messages in German (cancel, the seat page,
// a refusal with its count, the cut-off), and English when nothing is asked for.
func TestGermanEditWords(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	speak := h.speaking("de")
	h.find(bkPaid1)
	h.startEdit(t)

	doc := h.page("/booking/edit/cancel", http.StatusOK)
	inGerman(t, doc, "cancel page")
	wantText(t, doc, "#cancel-title", "Änderungen verwerfen?")
	wantContains(t, doc, "main", "Buchung 100001 bleibt genau so", "Ja, Änderungen verwerfen", "Nein, weiter ändern")

	doc = h.page("/booking/edit/seats", http.StatusOK)
	inGerman(t, doc, "seat page")
	wantText(t, doc, "#seats-title", "Plätze für Buchung 100001 wählen")
	wantContains(t, doc, "main", "Wählen Sie 2 Plätze, einen für jedes Ticket.", "Diese Plätze nehmen", "Zurück zu Ihren Änderungen")

	resp, body := h.post("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {seat(1, 5, 12)}})
	doc = h.doc(body)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("one seat for two tickets: %d", resp.StatusCode)
	}
	wantContains(t, doc, `[data-testid="notice-error"]`, "Bitte wählen Sie genau 2 Plätze", "Sie haben 1 gewählt.")

	// The same visit without a language: English (the visit has no language of its own).
	speak("")
	doc = h.page("/booking/edit", http.StatusOK)
	if lang, _ := doc.Find("html").Attr("lang"); lang != "en" {
		t.Errorf("without Accept-Language: <html lang=%q>", lang)
	}
	wantText(t, doc, "#edit-title", "Change booking 100001")
	wantContains(t, doc, `[data-testid="countdown"]`, "Your changes are held", "until")

	// Cancelled: the booking page says so in German.
	speak("de")
	_, doc = h.submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	inGerman(t, doc, "booking after cancel")
	wantContains(t, doc, "main", "Ihre Änderungen wurden verworfen. Ihre Buchung ist genau so, wie sie war.")
}
