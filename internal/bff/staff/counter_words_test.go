package staff_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/words"
)

// customerAddress is how a page speaks to the customer, per language: a counter page is read
// by the clerk, who serves the customer; it says "the customer's seats", never "your seats".
// German may ask the clerk to act ("Geben Sie das Geld zurück"), but never gives the customer
// anything ("Ihre Buchung", "an Sie", "für Sie") or asks for a tap: a counter has a mouse.
var customerAddress = map[string]*regexp.Regexp{
	"en": regexp.MustCompile(`(?i)\b(yours?|for you|you're booked|tap)\b`),
	"de": regexp.MustCompile(`\b(Ihre|Ihren|Ihrem|Ihrer|Ihr|Ihnen|an Sie|für Sie|Tippen|antippen)\b`),
}

// counterPages walks a counter through a walk-in's cash sale (up to its confirmation), a
// booking's change with a ticket added (and its payment) and a change with a ticket given back
// (its refund), collecting the HTML of every page on the way, by path.
func counterPages(t *testing.T, h *bfftest.Harness) map[string]string {
	t.Helper()
	pages := map[string]string{}
	get := func(path string) {
		t.Helper()
		resp, body := h.Get(path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		pages[path] = body
	}
	get("/")
	get("/booking")
	get("/whats-on")
	get("/whats-on/0001/1113")
	resp, body := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	get("/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
	get("/checkout/details")
	resp, body = h.Post("/staff/next-customer", "/checkout/details", url.Values{"from": {"/checkout/details"}})
	get(bfftest.ExpectRedirect(t, resp, body, "/staff/next-customer"))
	resp, body = h.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Walk In"}, "email": {"walkin@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	get("/checkout")
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/counter-payment")
	get("/checkout/counter-payment")
	resp, body = h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}, "given": {"50"}, "confirm": {"1"}})
	get(bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/"))
	h.Post("/staff/next-customer", "/booking", url.Values{"confirm": {"1"}})

	h.CounterFind("100002")
	get("/booking/current")
	get("/booking/tickets")
	get("/bookings/0001/100002/seats")
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="add-one"]`).First().Closest("form").Find(`input[name="type"]`).AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	get("/booking/edit")
	get("/booking/edit/seats")
	get("/booking/edit/cancel")
	resp, body = h.Post("/booking/edit/complete", "/booking/edit", nil)
	bfftest.ExpectRedirect(t, resp, body, "/booking/edit/counter-payment")
	get("/booking/edit/counter-payment")
	_, doc = h.Submit("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"cash"}, "given": {"20"}, "confirm": {"1"}})
	pages["/booking/current (paid)"], _ = doc.Html()

	doc = h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	get("/booking/edit")
	resp, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	pages[resp.Request.URL.Path+" (refund)"], _ = doc.Html()
	return pages
}

// TestCounterPagesAddressTheClerk: in English and in German, no counter page of a sale, a
// change or a refund speaks to the customer ("your", "Ihre", "Sie", "Tippen Sie"): the clerk
// reads them. The staff member's name in the frame is in the page's language.
func TestCounterPagesAddressTheClerk(t *testing.T) {
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			h := bfftest.CounterHarness(t)
			h.Speaking(lang)
			h.AddClerk("demo", words.DemoBoxOffice, "demo horse battery")
			h.SignInAs("demo", "demo horse battery")
			pages := counterPages(t, h)
			badge := strings.Join(strings.Fields(h.Doc(pages["/booking"]).Find(`[data-testid="staff-badge"] span`).First().Text()), " ")
			if want := map[string]string{"en": "Staff: Demo box office", "de": "Personal: Demo-Kinokasse"}[lang]; badge != want {
				t.Errorf("the staff badge says %q, want %q", badge, want)
			}
			for path, body := range pages {
				doc := h.Doc(body)
				doc.Find("script, style, .visually-hidden[aria-hidden]").Remove()
				text := strings.Join(strings.Fields(doc.Find("title").Text()+" "+doc.Find("body").Text()), " ")
				for _, m := range customerAddress[lang].FindAllStringIndex(text, -1) {
					t.Errorf("%s speaks to the customer: …%s…", path, text[max(0, m[0]-70):min(len(text), m[1]+70)])
				}
			}
		})
	}
}
