package bff_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// mailWords is what an e-mail of a booking change says in one language, and words of the
// other language it must not have.
type mailWords struct {
	subject, text, html, page, seat []string
	card                            []string       // on the page's ticket cards: the money
	day                             *regexp.Regexp // on the page's ticket cards: the showing's day
	not                             []string
}

var editMailWords = map[string]mailWords{
	"de": {
		subject: []string{"Buchung ", " wurde geändert: Ihre neuen Tickets"},
		text:    []string{"Guten Tag", "Ihre Buchung wurde geändert.", "Was sich geändert hat:", "Hinzugefügt: ", "Ihre Tickets (die QR-Codes", "\u00a0€", " Uhr", "Buchung "},
		html:    []string{`<html lang="de">`, "Ihre Tickets", `alt="QR-Code für `},
		page:    []string{"Eine E-Mail mit Ihren Tickets ist unterwegs an u…@example.com."},
		seat:    []string{"Reihe ", "Platz "},
		card:    []string{"\u00a0€"}, // "12,50 €"
		day:     regexp.MustCompile(`(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. `),
		// Not "Row ": what changed names the seats in the edit page's words (its own area).
		not: []string{"Hello", "Your booking", "What changed", "Added:", "Your tickets", "Booking ", "€1", "€0"},
	},
	"en": {
		subject: []string{"Booking ", " was changed: your new tickets"},
		text:    []string{"Hello", "Your booking was changed.", "What changed:", "Added: ", "Your tickets (the QR codes", "€", "Booking "},
		html:    []string{`<html lang="en">`, "Your tickets", `alt="QR code for `},
		page:    []string{"An e-mail with your tickets is on its way to u…@example.com."},
		seat:    []string{"Row ", "seat "},
		card:    []string{"€1"}, // "€12.50"
		day:     regexp.MustCompile(`(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d{1,2} `),
		not:     []string{"Guten Tag", "Ihre Buchung", "Hinzugefügt", "Ihre Tickets", "Buchung ", "Reihe ", "\u00a0€"},
	},
}

func mustContain(t *testing.T, what, got string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func mustNotContain(t *testing.T, what, got string, unwanted []string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("%s has %q:\n%s", what, w, got)
		}
	}
}

// TestEditMailInTheVisitsLanguage: a booking changed by a browser asking for German
// (Accept-Language: de) gets a German e-mail, subject and both parts, sent later from the
// outbox by the sender (which has no request and no language of its own); the page says in
// German that it is on its way and shows the tickets in German. Without the header, English.
func TestEditMailInTheVisitsLanguage(t *testing.T) {
	for _, lang := range []string{"de", "en"} {
		t.Run(lang, func(t *testing.T) {
			want := editMailWords[lang]
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			if lang == "de" {
				h.Speaking("de-DE,de;q=0.9,en;q=0.5")
			}
			h.Find(bfftest.BkUnpaid)
			doc := h.StartEdit(t)
			typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
			h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
			_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
			if got := doc.Find("html").AttrOr("lang", ""); got != lang {
				t.Fatalf("the booking page is in %q", got)
			}
			mustContain(t, "the page's e-mail line", doc.Find(`[data-testid="mail-line"]`).Text(), want.page)
			cards := doc.Find(`[data-testid="ticket-card"]`)
			if cards.Length() == 0 {
				t.Fatalf("no tickets on the booking page: %s", doc.Find("main").Text())
			}
			mustContain(t, "the page's tickets", cards.Find(".amount").Text(), want.card)
			if when := cards.Find(".ticket-when").Text(); !want.day.MatchString(when) {
				t.Errorf("the page's tickets say the day as %q, want %s", when, want.day)
			}

			m := h.OneMail("edit") // delivered now, from the outbox, by a context without a language
			mustContain(t, "the subject", m.Subject, want.subject)
			mustContain(t, "the text part", m.Text, append(want.text, want.seat...))
			mustContain(t, "the HTML part", m.HTML, append(want.html, want.seat...))
			mustNotContain(t, "the subject and text part", m.Subject+"\n"+m.Text, want.not)
		})
	}
}

// TestPaidEditMailInGerman: a German change paid at the provider, applied when the money is in
// (the ledger's step, not the visit's request), is told in German with German money.
func TestPaidEditMailInGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de")
	h.Find(bfftest.BkPaid2)
	h.AddOneTicket(t)
	h.PayAtProvider(t, h.CompleteToProvider(t), "pay")
	m := h.OneMail("edit")
	mustContain(t, "the subject", m.Subject, editMailWords["de"].subject)
	mustContain(t, "the text part", m.Text, []string{"Zahlung:", "Bezahlt: ", "\u00a0€", "Hinzugefügt: "})
	mustNotContain(t, "the text part", m.Text, []string{"Paid", "Money:", "Hello"})
}

// TestPurchaseMailInTheLanguageItWasMadeIn: an order made in German is confirmed by a German
// e-mail even when the confirmation is seen in English: the language travels with the order,
// not with the request that happens to complete it.
func TestPurchaseMailInTheLanguageItWasMadeIn(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	speak := h.Speaking("de")
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	hosted := h.PressPay()
	speak("en")
	body := h.WaitForConfirmation(h.ActAtProvider(hosted, "pay"), 5*time.Second)
	doc := h.Doc(body)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	mustContain(t, "the English confirmation's e-mail line", doc.Find(`[data-testid="mail-line"]`).Text(), []string{"An e-mail with your tickets", "a…@example.com"})
	mustContain(t, "the English confirmation's tickets", doc.Find(`[data-testid="ticket-card"] .amount`).Text(), []string{"€1"})

	m := h.OneMail("purchase")
	mustContain(t, "the subject", m.Subject, []string{"Ihre Tickets für ", "Buchung " + number})
	mustContain(t, "the text part", m.Text, []string{"Guten Tag Ada Lovelace,", "Vielen Dank für Ihre Buchung.", "Ihre Bestellung:", "Gesamt: ", "\u00a0€", "Reihe ", " Uhr"})
	mustContain(t, "the HTML part", m.HTML, []string{`<html lang="de">`, "Ihre Tickets"})
	mustNotContain(t, "the text part", m.Text, []string{"Hello", "Thank you", "Total", "Your tickets"})
}

// TestMailLineInTheRequestsLanguage: where a message stands is said in the language of the
// page that asks, whatever language the message itself is in.
func TestMailLineInTheRequestsLanguage(t *testing.T) {
	h := bfftest.SwapHarness(t, 100004)
	bfftest.SwapThrough(t, h, 100004, []string{"3"}, []string{bfftest.Seat(1, 2, 2)}) // made in English
	for _, tc := range []struct{ lang, want, not string }{
		{"de", "Eine E-Mail mit Ihren Tickets ist unterwegs an p…@example.com.", "An e-mail"},
		{"en", "An e-mail with your tickets is on its way to p…@example.com.", "Eine E-Mail"},
	} {
		_, body := h.Do("GET", bfftest.SwapPath(100004, "/done"), nil, http.Header{"Accept-Language": {tc.lang}})
		doc := h.Doc(body)
		line := doc.Find(`[data-testid="mail-line"]`).Text()
		if !strings.Contains(line, tc.want) || strings.Contains(line, tc.not) {
			t.Fatalf("%s: the page says %q", tc.lang, line)
		}
		replaced := doc.Find(`[data-testid="replaced-ticket"]`).Text()
		wantReplaced := map[string]string{"de": "Durch einen Platzwechsel ersetzt am ", "en": "Replaced by a seat swap on "}[tc.lang]
		if !strings.Contains(replaced, wantReplaced) {
			t.Errorf("%s: replaced tickets shown as %q", tc.lang, replaced)
		}
	}
	if m := h.OneMail("swap"); !strings.Contains(m.Subject, "New seats for booking 100004") {
		t.Fatalf("the swap was made in English, its message is %q", m.Subject)
	}
}
