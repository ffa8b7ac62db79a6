package staff_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// customerWords are the customer's words no counter page may say to the clerk.
var customerWords = []string{"your booking", "forget this booking", "your tickets", "you need your booking number",
	"you pay the difference"}

// TestCounterPagesSpeakToStaff: on an enrolled counter with a clerk signed in, the home page,
// the look-up, the booking, the change, its cancel question and the counter payment use staff
// words; the booking page names the customer and shows no ticket cards.
func TestCounterPagesSpeakToStaff(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	pages := map[string]string{}
	for _, p := range []string{"/", "/booking"} {
		_, pages[p] = h.Get(p)
	}
	h.CounterFind("100002")
	_, pages["/booking/current"] = h.Get("/booking/current")
	doc := h.Doc(pages["/booking/current"])
	if got := strings.Join(strings.Fields(doc.Find("#booking-title").Text()), " "); got != "Booking 100002 · Alan Turing" {
		t.Errorf("booking heading %q", got)
	}
	if doc.Find(`[data-testid="customer-email"]`).Length() != 1 || doc.Find(`[data-testid="ticket-card"]`).Length() != 0 {
		t.Errorf("the booking page: e-mail %d, ticket cards %d", doc.Find(`[data-testid="customer-email"]`).Length(),
			doc.Find(`[data-testid="ticket-card"]`).Length())
	}
	_, pages["/booking/tickets"] = h.Get("/booking/tickets")
	_, pages["/bookings/0001/100002/seats"] = h.Get("/bookings/0001/100002/seats")
	doc = h.StartEdit(t)
	typ := doc.Find(`[data-testid="add-one"][data-shortcut="1"]`).Closest("form").Find(`input[name="type"]`).AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	_, pages["/booking/edit"] = h.Get("/booking/edit")
	_, pages["/booking/edit/seats"] = h.Get("/booking/edit/seats")
	_, pages["/booking/edit/cancel"] = h.Get("/booking/edit/cancel")
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	_, pages["/booking/edit/counter-payment"] = h.Get("/booking/edit/counter-payment")
	for p, body := range pages {
		text := strings.ToLower(strings.Join(strings.Fields(h.Doc(body).Find("title, body").Text()), " "))
		for _, w := range customerWords {
			if strings.Contains(text, w) {
				i := strings.Index(text, w)
				t.Errorf("%s says %q: …%s…", p, w, text[max(0, i-80):min(len(text), i+80)])
			}
		}
	}
}

// counterChangeToPay looks 100002 up at the counter, adds a ticket and completes the change:
// the counter payment is next. It returns the amount to pay as shown.
func counterChangeToPay(t *testing.T, h *bfftest.Harness) string {
	t.Helper()
	h.CounterFind("100002")
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="add-one"][data-shortcut="1"]`).Closest("form").Find(`input[name="type"]`).AttrOr("value", "")
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	if doc.Find(`[data-testid="complete"][data-shortcut="Enter"]`).Length() != 1 {
		t.Errorf("the change has no key to confirm it: %s", doc.Find(`[data-testid="complete-form"]`).Text())
	}
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/booking/edit/counter-payment" {
		t.Fatalf("complete at the counter: %d %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	return bfftest.Text(doc, "balance")
}

// TestCounterPaymentMissingReference: the card terminal without its reference says what to
// type next to the field (described by it, invalid, focused), keeps the change open and does
// not read like a failed card.
func TestCounterPaymentMissingReference(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword) // a standalone terminal's reference: supervisors
	counterChangeToPay(t, h)
	for _, ref := range []string{"", "   "} {
		resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {ref}})
		doc := h.Doc(body)
		field := doc.Find(`#reference`)
		switch {
		case resp.StatusCode != http.StatusUnprocessableEntity:
			t.Fatalf("reference %q: %d", ref, resp.StatusCode)
		case strings.TrimSpace(bfftest.Text(doc, "reference-error")) != "Type the terminal's reference from its receipt":
			t.Errorf("reference %q: the message next to the field is %q", ref, bfftest.Text(doc, "reference-error"))
		case !strings.Contains(field.AttrOr("aria-describedby", ""), "reference-error") || field.AttrOr("aria-invalid", "") != "true" ||
			!field.Is("[autofocus]") || !field.Is("[required]"):
			t.Errorf("reference %q: the field is not marked: %s", ref, outerHTML(field))
		case strings.Contains(body, "The payment was not recorded"):
			t.Errorf("reference %q: a missing reference reads like a failed payment", ref)
		}
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 0 {
		t.Fatalf("ledger entries without a reference: %+v", es)
	}
	if resp, _ := h.Get("/booking/edit"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the change was not kept open: %d", resp.StatusCode)
	}
}

// TestCounterTerminalReferenceIsForSupervisors: a clerk is not offered a standalone terminal's
// typed reference (nothing checks what is typed), and one posted anyway is refused in words
// and records nothing.
func TestCounterTerminalReferenceIsForSupervisors(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	counterChangeToPay(t, h)
	if doc := h.Page("/booking/edit/counter-payment", http.StatusOK); doc.Find(`#reference, #method-terminal`).Length() != 0 {
		t.Fatal("a clerk is offered the typed terminal reference")
	}
	resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"TID-1"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(h.Doc(body).Find("main").Text(), "taken by a supervisor only") {
		t.Fatalf("a clerk's typed reference: %d %s", resp.StatusCode, h.Doc(body).Find("main").Text())
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 0 {
		t.Fatalf("ledger entries: %+v", es)
	}
}

// TestCounterCashChangeDue: cash with the amount given shows the change due and a confirm
// button first (no JavaScript), records the payment on the confirm, and refuses too little.
func TestCounterCashChangeDue(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	toPay := counterChangeToPay(t, h) // €13.25
	for _, tc := range []struct {
		given, status, change, problem string
	}{
		{"20", "200", "€6.75", ""},
		{"20,00", "200", "€6.75", ""},
		{"13.25", "200", "€0.00", ""},
		{"10", "422", "", "That is less than the " + toPay + " to pay."},
		{"twenty", "422", "", "Type the amount given as a number, such as 20 or 20.50."},
	} {
		resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"cash"}, "given": {tc.given}})
		doc := h.Doc(body)
		if got := strconv.Itoa(resp.StatusCode); got != tc.status {
			t.Fatalf("given %q: %s, want %s", tc.given, got, tc.status)
		}
		if got := strings.TrimSpace(bfftest.Text(doc, "change-due")); got != tc.change {
			t.Errorf("given %q: change due %q, want %q", tc.given, got, tc.change)
		}
		if got := strings.TrimSpace(bfftest.Text(doc, "given-error")); got != tc.problem {
			t.Errorf("given %q: problem %q, want %q", tc.given, got, tc.problem)
		}
		if confirm := doc.Find(`[data-testid="counter-pay-form"] input[name="confirm"][value="1"]`).Length() == 1; confirm != (tc.change != "") {
			t.Errorf("given %q: confirm field %v", tc.given, confirm)
		}
		if es, _ := bfftest.Entries(t, h); len(es) != 0 {
			t.Fatalf("given %q: recorded before the confirm: %+v", tc.given, es)
		}
	}
	_, doc := h.Submit("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"cash"}, "given": {"20"}, "confirm": {"1"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid "+toPay) || !strings.Contains(changes, "by cash") {
		t.Fatalf("after the cash payment: %q", changes)
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 1 || es[0].Tender != "CASH" {
		t.Fatalf("ledger: %+v", es)
	}
}

// TestCounterNextCustomerSucceeds: "Next customer" lands on the look-up with a success notice,
// not an error.
func TestCounterNextCustomerSucceeds(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.CounterFind("100002")
	_, doc := h.Submit("/staff/next-customer", "/booking/current", nil)
	if got := strings.TrimSpace(doc.Find(`[data-testid="notice-success"]`).Text()); !strings.Contains(got, "Ready for the next customer.") {
		t.Errorf("success notice %q", got)
	}
	if n := doc.Find(`[data-testid="find-error"], [data-testid="notice-error"]`).Length(); n != 0 {
		t.Errorf("next customer shows %d errors: %s", n, doc.Find("main").Text())
	}
}

func outerHTML(s *goquery.Selection) string {
	html, err := goquery.OuterHtml(s)
	if err != nil {
		return err.Error()
	}
	return html
}

// TestCounterSalePagesSpeakToStaff: a sale at the counter, from the show to the confirmation,
// uses staff words too.
func TestCounterSalePagesSpeakToStaff(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	pages := map[string]string{}
	_, pages["/whats-on"] = h.Get("/whats-on")
	_, pages["/whats-on/0001/1113"] = h.Get("/whats-on/0001/1113")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	_, pages["/checkout/details"] = h.Get("/checkout/details")
	resp, body := h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("details: %d %s", resp.StatusCode, body)
	}
	_, pages["/checkout"] = h.Get("/checkout")
	resp, _ = h.Post("/checkout/pay", "/checkout", nil)
	_, pages["/checkout/counter-payment"] = h.Get(resp.Header.Get("Location"))
	resp, _ = h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	_, pages["confirmation"] = h.Get(resp.Header.Get("Location"))
	// Enter goes on from each step; the keys are drawn.
	for p, sel := range map[string]string{"/checkout/details": `[data-testid="details-form"] button[data-shortcut="Enter"] kbd`,
		"/checkout": `[data-testid="pay"][data-shortcut="Enter"] kbd`, "/checkout/counter-payment": `[data-testid="counter-pay-submit"][data-shortcut="Enter"] kbd`} {
		if h.Doc(pages[p]).Find(sel).Length() != 1 {
			t.Errorf("%s: no Enter key on the primary action (%s)", p, sel)
		}
	}
	for p, body := range pages {
		text := strings.ToLower(strings.Join(strings.Fields(h.Doc(body).Find("title, body").Text()), " "))
		for _, w := range customerWords {
			if i := strings.Index(text, w); i >= 0 {
				t.Errorf("%s says %q: …%s…", p, w, text[max(0, i-80):min(len(text), i+80)])
			}
		}
	}
}
