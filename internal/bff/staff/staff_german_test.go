package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

var asciiSpace = regexp.MustCompile(`[ \t\r\n]+`)

// mainText is the words of the page's main part, its ASCII white space collapsed (the no-break
// space of German money stays).
func mainText(doc *goquery.Document) string {
	return strings.TrimSpace(asciiSpace.ReplaceAllString(doc.Find("main").Text(), " "))
}

// wantWords fails for each of words the text lacks, and for each English phrase it still has.
func wantWords(t *testing.T, where, text string, words []string, english []string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("%s: no %q in %q", where, w, text)
		}
	}
	for _, w := range english {
		if strings.Contains(text, w) {
			t.Errorf("%s: still English %q in %q", where, w, text)
		}
	}
}

// TestStaffPagesInGerman: with a German browser the staff sign-in (and its refusal), the
// counter's payment and refund-approval pages, the audit trail and the staff accounts are in
// German, with German money ("13,25 €"), dates ("Mo., 3. Aug., 14:05:09") and plurals.
func TestStaffPagesInGerman(t *testing.T) {
	h := bfftest.CounterHarness(t)

	doc := h.GermanPage("/staff/sign-in")
	wantWords(t, "sign-in", mainText(doc), []string{"Anmeldung für das Personal", "Benutzername", "Passwort", "Anmelden",
		"Nach 5 falschen Passwörtern wird ein Konto auf diesem Gerät für 15 Minuten gesperrt"}, []string{"Staff sign-in", "Username", "Password"})
	resp, doc := h.GermanPost("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"carl"}, "password": {"wrong password"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasSuffix(bfftest.Text(doc, "signin-error"), "Benutzername oder Passwort ist falsch.") {
		t.Fatalf("wrong password in German: %d %q", resp.StatusCode, bfftest.Text(doc, "signin-error"))
	}

	// The counter: a supervisor adds a ticket to 100002 and takes the difference.
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	h.CounterFind("100002")
	edit := h.StartEdit(t)
	typ := edit.Find(`[data-testid="add-one"][data-shortcut="1"]`).Closest("form").Find(`input[name="type"]`).AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	doc = h.GermanPage("/booking/edit/counter-payment")
	amount := strings.TrimSpace(bfftest.Text(doc, "counter-amount"))
	if !bfftest.GermanMoney.MatchString(amount) {
		t.Errorf("counter amount %q is not German money", amount)
	}
	wantWords(t, "counter payment", mainText(doc), []string{"Zahlung annehmen", "Änderung der Buchung 100002", "Zu zahlen: " + amount,
		"Wie zahlt der Kunde?", "Kartenterminal", "Belegnummer des Terminals", "Bar", "Zahlung annehmen", "Zurück zur Änderung"},
		[]string{"Take the payment", "Card terminal", "To pay"})
	resp, doc = h.GermanPost("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}})
	// A missing reference is said next to its field, not as a payment that failed.
	if resp.StatusCode != http.StatusUnprocessableEntity || strings.Contains(mainText(doc), "Die Zahlung wurde nicht erfasst") ||
		!strings.Contains(bfftest.Text(doc, "reference-error"), "Geben Sie die Belegnummer vom Beleg des Terminals ein") {
		t.Fatalf("card payment without a reference in German: %d %q", resp.StatusCode, mainText(doc))
	}
	resp, _ = h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"TID-1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("counter payment: %d", resp.StatusCode)
	}

	// The audit trail: action words, money and the moment in German; stored details as written.
	doc = h.GermanPage("/staff/audit?booking=100002")
	wantWords(t, "audit trail", mainText(doc), []string{"Prüfprotokoll", "Buchungsnummer", "CSV herunterladen", "Zeitpunkt", "Wer",
		"Grund und Details", "Buchung aufgerufen"}, []string{"Audit trail", "Download CSV"})
	row := doc.Find(`[data-testid="audit-row"][data-action="payment"]`)
	if got := strings.TrimSpace(row.Find(`[data-testid="audit-action"]`).Text()); got != "Zahlung" {
		t.Errorf("payment row says %q, want Zahlung", got)
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="audit-amount"]`).Text()); got != amount {
		t.Errorf("payment row amount %q, want %q", got, amount)
	}
	when := strings.TrimSpace(row.Find("time").Text())
	if !regexp.MustCompile(`^(Mo|Di|Mi|Do|Fr|Sa|So)\., \d{1,2}\. (Jan|Feb|März|Apr|Mai|Juni|Juli|Aug|Sept|Okt|Nov|Dez)\.?, \d\d:\d\d:\d\d$`).MatchString(when) {
		t.Errorf("audit moment %q is not German", when)
	}
	if !strings.Contains(row.Text(), "Card terminal, reference TID-1") {
		t.Errorf("the stored detail is data and stays as written: %q", row.Text())
	}

	// Staff accounts: roles, states and plurals.
	doc = h.GermanPage("/staff/accounts")
	wantWords(t, "staff accounts", mainText(doc), []string{"Personalkonten", "Schichtleitung", "Kassenkraft", "Aktiv",
		"Alle Sitzungen beenden", "1 Fehlversuch", "(Sie)"}, []string{"Staff accounts", "Supervisor", "failed attempt"})

	// A clerk's refund above the limit: the approval page, with German money (a supervisor's
	// own refund needs none).
	h.Srv.Settings.RefundApprovalAbove = 500
	h.SignOutStaff()
	h.SignInAs("carl", "clerk horse battery")
	h.CounterFind("100003")
	edit = h.StartEdit(t)
	id := edit.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	_, doc = h.GermanPost("/booking/edit/complete", "/booking/edit", nil)
	if doc.Find(`[data-testid="approval-form"]`).Length() != 1 {
		t.Fatalf("no approval page: %q", mainText(doc))
	}
	refund := strings.TrimSpace(bfftest.Text(doc, "approval-amount"))
	if !bfftest.GermanMoney.MatchString(refund) {
		t.Errorf("refund %q is not German money", refund)
	}
	wantWords(t, "approval", mainText(doc), []string{"Die Schichtleitung muss diese Erstattung freigeben",
		"Erstattungen über 5,00\u00a0€ muss die Schichtleitung freigeben. Diese Erstattung beträgt " + refund + ".",
		"PIN der Schichtleitung", "Freigeben und erstatten"}, []string{"supervisor", "Approve"})
	resp, doc = h.GermanPost("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {bfftest.TestSupervisor},
		"pin": {"000000"}, "reason": {"Kunde kommt allein"}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(mainText(doc), "Freigabe verweigert.") {
		t.Errorf("wrong PIN in German: %d %q", resp.StatusCode, mainText(doc))
	}
}

// TestCounterSaleInGerman: the counter's payment page of a sale names the tickets with the
// German plural.
func TestCounterSaleInGerman(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	h.Post("/checkout/pay", "/checkout", nil)
	doc := h.GermanPage("/checkout/counter-payment")
	if what := strings.TrimSpace(doc.Find(`[data-testid="counter-pay"] h1 + p`).Text()); !strings.HasPrefix(what, "2 Tickets für ") {
		t.Errorf("sale at the counter: %q, want 2 Tickets für …", what)
	}
	wantWords(t, "sale", mainText(doc), []string{"Zahlung annehmen", "Zurück zur Bestellung"}, []string{"tickets for", "Back to the order"})
	if amount := strings.TrimSpace(bfftest.Text(doc, "counter-amount")); !bfftest.GermanMoney.MatchString(amount) {
		t.Errorf("sale amount %q is not German money", amount)
	}
}

// TestAttentionInGerman: the Needs attention list in German (labels, plural, money, ledger
// states, the last action with its German date); a retry's outcome is shown in German and
// recorded in English.
func TestAttentionInGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	ctx := context.Background()
	mk := func(key string, cents int64) ledger.Entry {
		e, _, err := h.Srv.Ledger.Create(ctx, ledger.Entry{Kind: ledger.KindRefund, IdempotencyKey: key, AmountCents: cents, Currency: "EUR",
			CinemaID: "0001", BookingID: "BK1", BookingNumber: 100001, EditSessionID: upstream.NewUserSessionID(), ProviderPaymentID: "pi_" + key})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	review := mk("review", 850)
	if _, err := h.Srv.Ledger.Transition(ctx, review.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "staff review",
		func(x *ledger.Entry) { x.LastError = "refund issued but the booking change could not be completed" }); err != nil {
		t.Fatal(err)
	}
	failing := mk("failing", 475)
	for range 3 {
		_ = h.Srv.Ledger.Note(ctx, failing.ID, "upstream unavailable")
	}
	h.SignInStaff("anna", "Anna Box")

	doc := h.GermanPage("/staff/attention")
	wantWords(t, "attention", mainText(doc), []string{"Zu erledigen", "2 Einträge sind zu erledigen.", "Erneut versuchen", "Als erledigt markieren",
		"Notiz (erforderlich)"}, []string{"Needs attention", "items need attention", "Mark resolved"})
	rr, fr := attentionRow(doc, attention.KindLedger, review.ID), attentionRow(doc, attention.KindLedger, failing.ID)
	if got := rr.Find(`[data-testid="attention-amount"]`).Text(); got != "8,50\u00a0€" {
		t.Errorf("amount %q, want 8,50 €", got)
	}
	wantWords(t, "review row", rr.Text(), []string{"Erstattung muss geprüft werden", "Buchung 100001 im Kino 0001; Status: fehlgeschlagen;",
		"Letzter Fehler: refund issued", "Ein neuer Versuch hilft nicht"}, nil)
	wantWords(t, "failing row", fr.Text(), []string{"Erstattung schlägt immer wieder fehl", "3 Fehlversuche"}, nil)

	// Retry of the ended entry: nothing to do, said in German, recorded in English.
	resp, _ := h.GermanPost("/staff/attention/ledger/"+review.ID+"/retry", "/staff/attention", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("retry: %d", resp.StatusCode)
	}
	doc = h.GermanPage("/staff/attention")
	if got := bfftest.Text(doc, "notice-info"); !strings.Contains(got, "Nichts zu wiederholen: Dieser Vorgang ist abgeschlossen (fehlgeschlagen).") {
		t.Errorf("retry notice %q", got)
	}
	last := strings.TrimSpace(attentionRow(doc, attention.KindLedger, review.ID).Find(`[data-testid="attention-last"]`).Text())
	if !regexp.MustCompile(`^Letzte Aktion: erneut versucht von anna am (Mo|Di|Mi|Do|Fr|Sa|So)\., \d{1,2}\. \S+, \d\d:\d\d: Nothing to retry: this entry has ended \(failed\)\.$`).MatchString(last) {
		t.Errorf("last action %q", last)
	}

	// Mark resolved without a note: refused in German.
	resp, doc = h.GermanPost("/staff/attention/ledger/"+review.ID+"/resolve", "/staff/attention", url.Values{"note": {" "}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(bfftest.Text(doc, "note-error"), "Bitte schreiben Sie in einer Notiz, was getan wurde") {
		t.Errorf("resolve without a note: %d %q", resp.StatusCode, bfftest.Text(doc, "note-error"))
	}
}
