package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// TestCounterMoneyGoesBackTheWayItCame: at the counter, a card-terminal payment under another
// booking's online payment (pi_seed100003) is refused in words and nothing is recorded; a
// terminal reference is recorded once and refused for a second payment; a refund of 100017
// gives the terminal payment back at the counter (the clerk confirms it), never through the
// payment provider, which refunds nothing on pi_seed100003.
func TestCounterMoneyGoesBackTheWayItCame(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword) // a standalone terminal's reference: supervisors
	h.CounterFind("100017")
	h.CounterAddAdult(t)
	resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"pi_seed100003"}})
	if doc := h.Doc(body); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(doc.Find("main").Text(), "reference of a payment made online") {
		t.Fatalf("another booking's online payment as the terminal reference: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 0 {
		t.Fatalf("the refused payment was recorded: %+v", es)
	}
	_, doc := h.Submit("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"TERM-0001"}})
	if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "card (box office terminal)") {
		t.Fatalf("after the terminal payment: %s", doc.Find("main").Text())
	}

	// The customer gives the ticket back: the newest payment is the terminal's.
	doc = h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	resp, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	statusPage := resp.Request.URL.Path
	part := doc.Find(`[data-testid="refund-part"][data-state="box-office"]`)
	if part.Length() != 1 || part.Find(`[data-testid="give-back"]`).Length() != 1 {
		t.Fatalf("the terminal's part is not waiting for the clerk: %s", doc.Find("main").Text())
	}
	action := part.Find("form").AttrOr("action", "")
	_, doc = h.Submit(action, statusPage, nil)
	if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "Refunded") {
		t.Fatalf("after handing it back: %s", doc.Find("main").Text())
	}
	for _, pi := range []string{"pi_seed100003", "TERM-0001"} {
		if list, _ := h.Prov.Refunds(pi); len(list) != 0 {
			t.Errorf("the payment provider refunded %d times on %s", len(list), pi)
		}
	}
	if p, ok := h.Prov.Get("pi_seed100003"); !ok || p.RefundedInCents != 0 || p.Status != "paid" {
		t.Errorf("pi_seed100003 at the provider: %+v", p)
	}
	var boxOffice *ledger.Entry
	es, _ := bfftest.Entries(t, h)
	for i, e := range es {
		if e.Kind == ledger.KindRefund && e.AtBoxOffice() {
			boxOffice = &es[i]
		}
	}
	if boxOffice == nil || boxOffice.State != ledger.StateApplied || boxOffice.ProviderPaymentID != "TERM-0001" || boxOffice.RefundID == "" {
		t.Fatalf("the terminal payment's refund in the ledger: %+v", boxOffice)
	}

	// The same terminal reference for another payment: refused in words.
	h.CounterAddAdult(t)
	resp, body = h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"term-0001"}})
	if doc := h.Doc(body); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(doc.Find("main").Text(), "already recorded for another payment") {
		t.Fatalf("a terminal reference used twice: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", 100017)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.Payments {
		if strings.EqualFold(p.ProviderReference, "term-0001") && p.Amount.Cents < 0 {
			t.Errorf("the booking carries a refund under the terminal's reference: %+v", p)
		}
	}
}

// TestCounterPaymentNotTakenByTheChange: the card terminal took the money but the ticketing
// system refused the change. The clerk reads what happened to the money and what to do (give it
// back the way it was taken, do not charge again), never "nothing was charged"; the booking is
// free again (the edit is let go), and Needs attention lists the money.
func TestCounterPaymentNotTakenByTheChange(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	h.CounterFind("100006")
	h.CounterAddAdult(t)
	bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Result: 4, ExtendedResultCode: 49})
	_, doc := h.Submit("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"TERM-0002"}})
	h.SB.Faults().Clear()
	page := doc.Find("main").Text()
	for _, want := range []string{"The change was not saved: give the money back", "on the card terminal, reference TERM-0002", "Do not take payment for this change again", "Needs attention"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q: %s", want, page)
		}
	}
	if strings.Contains(page, "nothing was charged") || strings.Contains(page, "pay again") {
		t.Errorf("the page says nothing was charged: %s", page)
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed {
		t.Fatalf("entries %+v", es)
	}
	if doc := h.Page("/staff/attention", http.StatusOK); attentionRow(doc, attention.KindLedger, es[0].ID).Length() != 1 {
		t.Errorf("Needs attention does not list the money: %s", doc.Find("main").Text())
	}
	if resp, _ := h.Submit("/booking/edit/start", "/booking/current", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the booking is still locked by the refused change: %d", resp.StatusCode)
	}
}
