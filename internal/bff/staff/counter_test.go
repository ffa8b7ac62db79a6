package staff_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// TestCounterEditPaidByCardTerminal: a supervisor signs in on a counter, looks 100002 up by
// number, adds a ticket and takes the difference on the card terminal with its reference: no
// provider page; the ledger entry and the audit trail carry who took it and how much.
func TestCounterEditPaidByCardTerminal(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	h.CounterFind("100002")
	doc := h.StartEdit(t)
	if doc.Find(`[data-testid="add-one"][data-shortcut="1"]`).Length() != 1 {
		t.Fatalf("no key per ticket type at the counter: %s", doc.Find(`[data-testid="add-form"]`).Text())
	}
	typ := doc.Find(`[data-testid="add-one"][data-shortcut="1"]`).Closest("form").Find(`input[name="type"]`).AttrOr("value", "")
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	toPay := bfftest.Text(doc, "balance")
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/booking/edit/counter-payment" {
		t.Fatalf("complete at the counter went to %q (%d), not the counter payment: %s", resp.Header.Get("Location"), resp.StatusCode, body)
	}
	_, body = h.Get("/booking/edit/counter-payment")
	if got := strings.TrimSpace(h.Doc(body).Find(`[data-testid="counter-amount"]`).Text()); got != toPay {
		t.Fatalf("the counter asks for %q, the change costs %q", got, toPay)
	}
	// A card payment without the terminal's reference is refused, nothing recorded.
	resp, body = h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "reference") {
		t.Fatalf("payment without a reference: %d", resp.StatusCode)
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 0 {
		t.Fatalf("a refused form wrote ledger entries: %+v", es)
	}
	_, doc = h.Submit("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"TID-7781-0042"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid "+toPay) || !strings.Contains(changes, "card (box office terminal)") {
		t.Fatalf("booking page after the counter payment: %q", changes)
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateApplied || es[0].Actor != bfftest.TestSupervisor || es[0].Tender != "CREDIT" || es[0].ProviderReference != "TID-7781-0042" {
		t.Fatalf("ledger: %+v", es)
	}
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range b.Payments {
		found = found || (p.ProviderReference == "TID-7781-0042" && p.TenderCategory == "CREDIT")
	}
	if !found || h.SB.Calls("CompleteEditBooking") != 1 {
		t.Fatalf("the booking does not carry the terminal payment: %+v", b.Payments)
	}
	rows := bfftest.AuditRows(t, h, audit.Filter{BookingNumber: 100002})
	var pay *audit.Entry
	for i := range rows {
		if rows[i].Action == audit.ActionPayment {
			pay = &rows[i]
		}
	}
	if pay == nil || pay.Actor != bfftest.TestSupervisor || pay.AmountCents != es[0].AmountCents || !strings.HasPrefix(pay.Device, "Test counter (") || !strings.Contains(pay.Detail, "TID-7781-0042") {
		t.Fatalf("audit rows %+v", rows)
	}
	// The supervisor sees it on the audit trail page and in the CSV, filtered by booking.
	_, body = h.Get("/staff/audit?booking=100002")
	page := h.Doc(body)
	row := page.Find(`[data-testid="audit-row"][data-action="payment"]`)
	if row.Length() != 1 || strings.TrimSpace(row.Find(`[data-testid="audit-actor"]`).Text()) != bfftest.TestSupervisor ||
		strings.TrimSpace(row.Find(`[data-testid="audit-amount"]`).Text()) != toPay {
		t.Fatalf("audit page: %s", page.Find("main").Text())
	}
	resp, body = h.Get("/staff/audit?booking=100002&format=csv")
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(recs) < 2 || recs[0][1] != "actor" {
		t.Fatalf("CSV %q: %v", body, err)
	}
	// A clerk does not see the trail.
	h.SignOutStaff()
	h.SignInAs("carl", "clerk horse battery")
	if resp, _ := h.Get("/staff/audit"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a clerk opened the audit trail: %d", resp.StatusCode)
	}
}

// TestCounterRefundAboveTheLimitNeedsASupervisor: a clerk's refund above the limit at the
// counter is refused without approval (a clerk's or a wrong PIN reads only "Approval refused"),
// and goes through with a supervisor's username and PIN and a reason; the clerk stays signed
// in, and the approval is in the audit trail. Other devices: approval_test.go.
func TestCounterRefundAboveTheLimitNeedsASupervisor(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.Srv.Settings.RefundApprovalAbove = 500 // 5,00: removing an adult ticket refunds more
	h.SignInAs("carl", "clerk horse battery")
	h.CounterFind("100003")
	doc := h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	refund := bfftest.Text(doc, "balance")

	_, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if h.Doc(body).Find(`[data-testid="approval-form"]`).Length() != 1 {
		t.Fatalf("no approval asked for a refund of %s: %s", refund, h.Doc(body).Find("main").Text())
	}
	for _, tc := range []struct {
		name     string
		form     url.Values
		status   int
		contains string
	}{
		{"no reason", url.Values{"approval": {"1"}, "approver": {bfftest.TestSupervisor}, "pin": {bfftest.TestSupervisorPIN}}, http.StatusUnprocessableEntity, "reason"},
		{"the clerk approving", url.Values{"approval": {"1"}, "approver": {"carl"}, "pin": {"123456"}, "reason": {"customer moved"}}, http.StatusForbidden, "Approval refused."},
		{"wrong PIN", url.Values{"approval": {"1"}, "approver": {bfftest.TestSupervisor}, "pin": {"000000"}, "reason": {"customer moved"}}, http.StatusForbidden, "Approval refused."},
	} {
		resp, body := h.Post("/booking/edit/complete", "/booking/edit", tc.form)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.contains) {
			t.Fatalf("%s: %d", tc.name, resp.StatusCode)
		}
		if list, _ := h.Prov.Refunds("pi_seed100003"); len(list) != 0 {
			t.Fatalf("%s: %d refunds made without approval", tc.name, len(list))
		}
	}
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {bfftest.TestSupervisor},
		"pin": {bfftest.TestSupervisorPIN}, "reason": {"Customer cannot come with two"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Refunded "+refund) {
		t.Fatalf("after approval: %q", changes)
	}
	if h.StaffUser() != "Carl Clerk" {
		t.Fatalf("the clerk is no longer signed in: %q", h.StaffUser())
	}
	var approval *audit.Entry
	for _, r := range bfftest.AuditRows(t, h, audit.Filter{BookingNumber: 100003}) {
		if r.Action == audit.ActionApproval {
			approval = &r
		}
	}
	if approval == nil || approval.Actor != bfftest.TestSupervisor || approval.Reason != "Customer cannot come with two" || !strings.Contains(approval.Detail, "carl") {
		t.Fatalf("approval in the audit trail: %+v", approval)
	}
}

// TestCounterSaleAndNextCustomer: a walk-in customer buys without name or e-mail and pays
// cash; "Next customer" then starts afresh with the staff member still signed in.
func TestCounterSaleAndNextCustomer(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	resp, body := h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("details without name and e-mail at the counter: %d %s", resp.StatusCode, body)
	}
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/checkout/counter-payment" {
		t.Fatalf("pay at the counter went to %q: %s", resp.Header.Get("Location"), body)
	}
	resp, body = h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cash: %d %s", resp.StatusCode, body)
	}
	confirmation := resp.Header.Get("Location")
	_, body = h.Get(confirmation)
	doc := h.Doc(body)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	if number == "" || doc.Find(`[data-testid="ticket-card"]`).Length() != 2 || doc.Find(`[data-testid="mail-line"]`).Length() != 0 {
		t.Fatalf("confirmation of the counter sale: %s", doc.Find("main").Text())
	}
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a provider payment was started at the counter (%d)", n)
	}
	if rows := bfftest.AuditRows(t, h, audit.Filter{Actor: "carl"}); len(rows) == 0 || rows[0].Action != audit.ActionSale || rows[0].AmountCents == 0 {
		t.Fatalf("audit: %+v", rows)
	}
	// The next customer: a booking looked up and an edit started are released.
	h.CounterFind("100001")
	h.StartEdit(t)
	resp, _ = h.Post("/staff/next-customer", "/booking/edit", url.Values{"confirm": {"1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("next customer: %d", resp.StatusCode)
	}
	if h.SB.Calls("CancelOrder") == 0 {
		t.Fatal("the edit order was not released upstream")
	}
	if resp, _ := h.Get("/booking/current"); resp.StatusCode == http.StatusOK {
		t.Fatal("the booking is still bound after Next customer")
	}
	if h.StaffUser() != "Carl Clerk" {
		t.Fatal("Next customer signed the clerk out")
	}
	// The walk-in's purchase is gone from the visit: its pages and its .ics name nothing.
	for _, u := range []string{confirmation, strings.TrimRight(confirmation, "/") + "/calendar.ics", "/checkout/seats"} {
		resp, body := h.Get(u)
		if (resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusGone && resp.StatusCode != http.StatusSeeOther) || strings.Contains(body, number) {
			t.Errorf("%s after Next customer: %d %s", u, resp.StatusCode, h.Doc(body).Find("main").Text())
		}
	}
}

// TestCounterRefusedChangeAddressesTheClerk: a booking sold at the counter (cash) cannot be
// changed through the ticketing system; a change forced anyway (a replayed form) is refused in
// the clerk's words: not "changed online", not "your booking".
func TestCounterRefusedChangeAddressesTheClerk(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	h.WalkInToCounterPayment(t)
	resp, body := h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	number := strings.TrimSpace(h.Page(bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/"), http.StatusOK).Find(`[data-testid="booking-number"]`).Text())
	h.CounterFind(number)
	resp, body = h.Post("/booking/edit/start", "/booking/current", nil)
	main := bfftest.Squash(h.Doc(body).Find("main").Text())
	if resp.StatusCode != http.StatusConflict || !strings.Contains(main, "This booking cannot be changed here") || !strings.Contains(main, "Back to the booking") {
		t.Fatalf("a forced change of booking %s at the counter: %d %s", number, resp.StatusCode, main)
	}
	if strings.Contains(main, "changed online") || strings.Contains(main, "your booking") {
		t.Fatalf("the refusal speaks to a customer: %s", main)
	}
}
