package bff

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// customerWords are the customer's words no counter page may say to the clerk.
var customerWords = []string{"your booking", "forget this booking", "your tickets", "you need your booking number",
	"you pay the difference"}

// TestCounterPagesSpeakToStaff: on an enrolled counter with a clerk signed in, the home page,
// the look-up, the booking, the change, its cancel question and the counter payment use staff
// words; the booking page names the customer and shows no ticket cards.
func TestCounterPagesSpeakToStaff(t *testing.T) {
	h := counterHarness(t)
	h.signInAs("carl", "clerk horse battery")
	pages := map[string]string{}
	for _, p := range []string{"/", "/booking"} {
		_, pages[p] = h.get(p)
	}
	h.counterFind("100002")
	_, pages["/booking/current"] = h.get("/booking/current")
	doc := h.doc(pages["/booking/current"])
	if got := strings.Join(strings.Fields(doc.Find("#booking-title").Text()), " "); got != "Booking 100002 · Alan Turing" {
		t.Errorf("booking heading %q", got)
	}
	if doc.Find(`[data-testid="customer-email"]`).Length() != 1 || doc.Find(`[data-testid="ticket-card"]`).Length() != 0 {
		t.Errorf("the booking page: e-mail %d, ticket cards %d", doc.Find(`[data-testid="customer-email"]`).Length(),
			doc.Find(`[data-testid="ticket-card"]`).Length())
	}
	doc = h.startEdit(t)
	typ := doc.Find(`[data-testid="quick-add"] button[data-shortcut="1"]`).AttrOr("value", "")
	_, doc = h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	_, pages["/booking/edit"] = h.get("/booking/edit")
	_, pages["/booking/edit/cancel"] = h.get("/booking/edit/cancel")
	resp, body := h.post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	_, pages["/booking/edit/counter-payment"] = h.get("/booking/edit/counter-payment")
	for p, body := range pages {
		text := strings.ToLower(strings.Join(strings.Fields(h.doc(body).Find("title, body").Text()), " "))
		for _, w := range customerWords {
			if strings.Contains(text, w) {
				i := strings.Index(text, w)
				t.Errorf("%s says %q: …%s…", p, w, text[max(0, i-80):min(len(text), i+80)])
			}
		}
	}
}
