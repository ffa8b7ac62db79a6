package bff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// englishNames are the ticketing system's English names of the sandbox's ticket types and
// areas that a German page must not show once the operator's catalog names them.
var englishNames = []string{"Adult", "Child", "Senior", "Couple package", "Sofa for two", "Stalls", "Premium Lounge"}

// TestGermanNamesOnPages is the "done when" for the cinema's names: with
// Accept-Language: de, booking 100002, its change page, the purchase's ticket step and the seat
// maps show the catalog's German names and none of the ticketing system's English ones.
func TestGermanNamesOnPages(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de")

	pages := map[string]string{}
	get := func(name, path string) {
		t.Helper()
		resp, body := h.Get(path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s (GET %s): status %d: %s", name, path, resp.StatusCode, body)
		}
		pages[name] = body
	}

	h.Find(bfftest.BkPaid2)
	get("booking page", "/booking/current")
	h.StartEdit(t)
	get("change page", "/booking/edit")
	get("change's seat map", "/booking/edit/seats")
	if resp, body := h.Post("/booking/edit/cancel", "/booking/edit", nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel the change: %d %s", resp.StatusCode, body)
	}

	get("ticket step", "/whats-on/0001/1113")
	resp, body := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", url.Values{"qty-0001": {"1"}, "qty-0002": {"1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("choose tickets: %d %s", resp.StatusCode, body)
	}
	get("purchase's seat map", "/checkout/seats")

	tests := []struct {
		page string
		want []string // German names the page shows in their place
	}{
		{"booking page", []string{"Erwachsene", "Kind"}},
		{"change page", []string{"Erwachsene", "Kind", "Rentner", "Ein Ticket Erwachsene hinzufügen"}},
		{"change's seat map", []string{"Parkett", "Premium-Lounge"}},
		{"ticket step", []string{"Erwachsene", "Kind", "Paket für zwei", "Sofa für zwei"}},
		{"purchase's seat map", []string{"Parkett", "Premium-Lounge"}},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			body := pages[tt.page]
			doc := h.Doc(body)
			bfftest.InGerman(t, doc, tt.page)
			for _, en := range englishNames {
				if i := strings.Index(body, en); i >= 0 {
					t.Errorf("%s shows %q: …%s…", tt.page, en, body[max(0, i-80):min(len(body), i+80)])
				}
			}
			text := bfftest.Squash(doc.Find("main").Text())
			for _, de := range tt.want {
				if !strings.Contains(text, de) && !strings.Contains(body, de) {
					t.Errorf("%s lacks %q", tt.page, de)
				}
			}
		})
	}
}

// TestNamesInEnglishAndOffers: an English page shows the catalog's English names, and an offer
// whose text carries an amount writes it in the page's locale, not the ticketing system's.
func TestNamesInEnglishAndOffers(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("en")
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
	resp, body := h.Get("/booking/edit")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("change page: %d", resp.StatusCode)
	}
	for _, want := range []string{"Adult", "Child", "Upgrade to the Premium Lounge for €4.00"} {
		if !strings.Contains(body, want) {
			t.Errorf("English change page lacks %q", want)
		}
	}
	if strings.Contains(body, "4,00 €") {
		t.Error("English change page writes an offer's amount as 4,00 €")
	}
}

// TestGermanNamesInSwapAndMail: the swap page's map and tickets, and the e-mail of a change made
// in German (composed later from the outbox, in the booking's language), carry the catalog's
// German names.
func TestGermanNamesInSwapAndMail(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de")

	h.Find(bfftest.BkPaid2)
	resp, body := h.Get("/bookings/0001/100002/seats")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("swap page: %d %s", resp.StatusCode, body)
	}
	mustNotContain(t, "the swap page", body, englishNames)
	mustContain(t, "the swap page", body, []string{"Erwachsene", "Kind", "Parkett"})

	h.Find(bfftest.BkUnpaid)
	h.StartEdit(t)
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {"0003"}, "qty": {"1"}})
	h.Submit("/booking/edit/complete", "/booking/edit", nil)
	m := h.OneMail("edit")
	mustContain(t, "the e-mail's text", m.Text, []string{"Hinzugefügt: Rentner", "Erwachsene"})
	mustNotContain(t, "the e-mail", m.Subject+m.Text+m.HTML, englishNames)
}

// TestGermanNamesInPurchase: a purchase made in German shows the catalog's names on its summary
// and its confirmation (tickets to print included), and its e-mail says them too.
func TestGermanNamesInPurchase(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Speaking("de")
	resp, body := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", url.Values{"qty-0001": {"1"}, "qty-0002": {"1"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
	resp, body = h.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Get("/checkout")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("summary: %d %s", resp.StatusCode, body)
	}
	mustNotContain(t, "the summary", body, englishNames)
	mustContain(t, "the summary", body, []string{"Erwachsene", "Kind"})

	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	ret := h.ActAtProvider(bfftest.ExpectRedirect(t, resp, body, h.UpstreamURL+"/pay/checkout/"), "pay")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, body = h.Get(ret); strings.Contains(body, `data-testid="confirmation"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no confirmation within 5 s")
		}
	}
	mustNotContain(t, "the confirmation", body, englishNames)
	mustContain(t, "the confirmation", body, []string{"Erwachsene", "Kind"})
	m := h.OneMail("purchase")
	mustNotContain(t, "the purchase's e-mail", m.Subject+m.Text+m.HTML, englishNames)
	mustContain(t, "the purchase's e-mail", m.Text, []string{"Erwachsene", "Kind"})
}

// TestRatingInTheCatalogsWords: what's on shows a film's rating in the catalog's words of the
// page's language, not "Rated 12".
func TestRatingInTheCatalogsWords(t *testing.T) {
	tests := []struct {
		lang      string
		want, not []string
	}{
		{"de", []string{"FSK 12: ab 12 Jahren"}, []string{"Altersfreigabe 12", "Rated"}},
		{"en", []string{"FSK 12: ages 12 and over"}, []string{"Rated 12"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			h.Speaking(tt.lang)
			day := time.Now().Add(24 * time.Hour).Format("2006-01-02")
			resp, body := h.Get("/whats-on?cinema=0001&day=" + day)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("what's on: %d", resp.StatusCode)
			}
			mustContain(t, "what's on", body, tt.want)
			mustNotContain(t, "what's on", body, tt.not)
		})
	}
}
