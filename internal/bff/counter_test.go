package bff

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/staff"
)

const testSupervisorPIN = "246810"

// counterHarness is a server with a supervisor (with a PIN) and a clerk, and this client's
// browser enrolled as a box-office counter by the supervisor.
func counterHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, harnessOpts{sandbox: true})
	h.enrol(device.Counter)
	if err := h.srv.Visits.Staff.Save(context.Background(), staff.NewAccount{Username: testSupervisor, Name: testSupervisorName,
		Password: testSupervisorPassword, Role: staff.Supervisor, PIN: testSupervisorPIN}); err != nil {
		t.Fatal(err)
	}
	h.addClerk("carl", "Carl Clerk", "clerk horse battery")
	return h
}

// counterFind looks a booking up by its number alone (staff).
func (h *harness) counterFind(number string) {
	h.t.Helper()
	resp, body := h.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}})
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("look-up of %s at the counter: %d %s", number, resp.StatusCode, body)
	}
}

func auditRows(t *testing.T, h *harness, f audit.Filter) []audit.Entry {
	t.Helper()
	rows, err := audit.New(h.db.SQL).List(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCounterEditPaidByCardTerminal: a supervisor signs in on a counter, looks 100002 up by
// number, adds a ticket and takes the difference on the card terminal with its reference: no
// provider page; the ledger entry and the audit trail carry who took it and how much.
func TestCounterEditPaidByCardTerminal(t *testing.T) {
	h := counterHarness(t)
	h.signInAs(testSupervisor, testSupervisorPassword)
	h.counterFind("100002")
	doc := h.startEdit(t)
	if doc.Find(`[data-testid="add-one"][data-shortcut="1"]`).Length() != 1 {
		t.Fatalf("no key per ticket type at the counter: %s", doc.Find(`[data-testid="add-form"]`).Text())
	}
	typ := doc.Find(`[data-testid="add-one"][data-shortcut="1"]`).Closest("form").Find(`input[name="type"]`).AttrOr("value", "")
	_, doc = h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	toPay := text(doc, "balance")
	resp, body := h.post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/booking/edit/counter-payment" {
		t.Fatalf("complete at the counter went to %q (%d), not the counter payment: %s", resp.Header.Get("Location"), resp.StatusCode, body)
	}
	_, body = h.get("/booking/edit/counter-payment")
	if got := strings.TrimSpace(h.doc(body).Find(`[data-testid="counter-amount"]`).Text()); got != toPay {
		t.Fatalf("the counter asks for %q, the change costs %q", got, toPay)
	}
	// A card payment without the terminal's reference is refused, nothing recorded.
	resp, body = h.post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "reference") {
		t.Fatalf("payment without a reference: %d", resp.StatusCode)
	}
	if es, _ := entries(t, h); len(es) != 0 {
		t.Fatalf("a refused form wrote ledger entries: %+v", es)
	}
	_, doc = h.submit("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"terminal"}, "reference": {"TID-7781-0042"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid "+toPay) || !strings.Contains(changes, "card (box office terminal)") {
		t.Fatalf("booking page after the counter payment: %q", changes)
	}
	es, _ := entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateApplied || es[0].Actor != testSupervisor || es[0].Tender != "CREDIT" || es[0].ProviderReference != "TID-7781-0042" {
		t.Fatalf("ledger: %+v", es)
	}
	b, err := h.srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range b.Payments {
		found = found || (p.ProviderReference == "TID-7781-0042" && p.TenderCategory == "CREDIT")
	}
	if !found || h.sb.Calls("CompleteEditBooking") != 1 {
		t.Fatalf("the booking does not carry the terminal payment: %+v", b.Payments)
	}
	rows := auditRows(t, h, audit.Filter{BookingNumber: 100002})
	var pay *audit.Entry
	for i := range rows {
		if rows[i].Action == audit.ActionPayment {
			pay = &rows[i]
		}
	}
	if pay == nil || pay.Actor != testSupervisor || pay.AmountCents != es[0].AmountCents || !strings.HasPrefix(pay.Device, "Test counter (") || !strings.Contains(pay.Detail, "TID-7781-0042") {
		t.Fatalf("audit rows %+v", rows)
	}
	// The supervisor sees it on the audit trail page and in the CSV, filtered by booking.
	_, body = h.get("/staff/audit?booking=100002")
	page := h.doc(body)
	row := page.Find(`[data-testid="audit-row"][data-action="payment"]`)
	if row.Length() != 1 || strings.TrimSpace(row.Find(`[data-testid="audit-actor"]`).Text()) != testSupervisor ||
		strings.TrimSpace(row.Find(`[data-testid="audit-amount"]`).Text()) != toPay {
		t.Fatalf("audit page: %s", page.Find("main").Text())
	}
	resp, body = h.get("/staff/audit?booking=100002&format=csv")
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(recs) < 2 || recs[0][1] != "actor" {
		t.Fatalf("CSV %q: %v", body, err)
	}
	// A clerk does not see the trail.
	h.signOutStaff()
	h.signInAs("carl", "clerk horse battery")
	if resp, _ := h.get("/staff/audit"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a clerk opened the audit trail: %d", resp.StatusCode)
	}
}

// TestCounterRefundAboveTheLimitNeedsASupervisor: a clerk's refund above the limit at the
// counter is refused without approval (a clerk's or a wrong PIN reads only "Approval refused"),
// and goes through with a supervisor's username and PIN and a reason; the clerk stays signed
// in, and the approval is in the audit trail. Other devices: approval_test.go.
func TestCounterRefundAboveTheLimitNeedsASupervisor(t *testing.T) {
	h := counterHarness(t)
	h.srv.Visits.Settings.RefundApprovalAbove = 500 // 5,00: removing an adult ticket refunds more
	h.signInAs("carl", "clerk horse battery")
	h.counterFind("100003")
	doc := h.startEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	refund := text(doc, "balance")

	_, body := h.post("/booking/edit/complete", "/booking/edit", nil)
	if h.doc(body).Find(`[data-testid="approval-form"]`).Length() != 1 {
		t.Fatalf("no approval asked for a refund of %s: %s", refund, h.doc(body).Find("main").Text())
	}
	for _, tc := range []struct {
		name     string
		form     url.Values
		status   int
		contains string
	}{
		{"no reason", url.Values{"approval": {"1"}, "approver": {testSupervisor}, "pin": {testSupervisorPIN}}, http.StatusUnprocessableEntity, "reason"},
		{"the clerk approving", url.Values{"approval": {"1"}, "approver": {"carl"}, "pin": {"123456"}, "reason": {"customer moved"}}, http.StatusForbidden, "Approval refused."},
		{"wrong PIN", url.Values{"approval": {"1"}, "approver": {testSupervisor}, "pin": {"000000"}, "reason": {"customer moved"}}, http.StatusForbidden, "Approval refused."},
	} {
		resp, body := h.post("/booking/edit/complete", "/booking/edit", tc.form)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.contains) {
			t.Fatalf("%s: %d", tc.name, resp.StatusCode)
		}
		if list, _ := h.prov.Refunds("pi_seed100003"); len(list) != 0 {
			t.Fatalf("%s: %d refunds made without approval", tc.name, len(list))
		}
	}
	_, doc = h.submit("/booking/edit/complete", "/booking/edit", url.Values{"approval": {"1"}, "approver": {testSupervisor},
		"pin": {testSupervisorPIN}, "reason": {"Customer cannot come with two"}})
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Refunded "+refund) {
		t.Fatalf("after approval: %q", changes)
	}
	if h.staffUser() != "Carl Clerk" {
		t.Fatalf("the clerk is no longer signed in: %q", h.staffUser())
	}
	var approval *audit.Entry
	for _, r := range auditRows(t, h, audit.Filter{BookingNumber: 100003}) {
		if r.Action == audit.ActionApproval {
			approval = &r
		}
	}
	if approval == nil || approval.Actor != testSupervisor || approval.Reason != "Customer cannot come with two" || !strings.Contains(approval.Detail, "carl") {
		t.Fatalf("approval in the audit trail: %+v", approval)
	}
}

// TestCounterSaleAndNextCustomer: a walk-in customer buys without name or e-mail and pays
// cash; "Next customer" then starts afresh with the staff member still signed in.
func TestCounterSaleAndNextCustomer(t *testing.T) {
	h := counterHarness(t)
	h.signInAs("carl", "clerk horse battery")
	h.buyUpToDetails("1113", twoAdults())
	resp, body := h.post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("details without name and e-mail at the counter: %d %s", resp.StatusCode, body)
	}
	resp, body = h.post("/checkout/pay", "/checkout", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/checkout/counter-payment" {
		t.Fatalf("pay at the counter went to %q", resp.Header.Get("Location"))
	}
	resp, body = h.post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cash: %d %s", resp.StatusCode, body)
	}
	confirmation := resp.Header.Get("Location")
	_, body = h.get(confirmation)
	doc := h.doc(body)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	if number == "" || doc.Find(`[data-testid="ticket-card"]`).Length() != 2 || doc.Find(`[data-testid="mail-line"]`).Length() != 0 {
		t.Fatalf("confirmation of the counter sale: %s", doc.Find("main").Text())
	}
	if n := h.sb.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a provider payment was started at the counter (%d)", n)
	}
	if rows := auditRows(t, h, audit.Filter{Actor: "carl"}); len(rows) == 0 || rows[0].Action != audit.ActionSale || rows[0].AmountCents == 0 {
		t.Fatalf("audit: %+v", rows)
	}
	// The next customer: a booking looked up and an edit started are released.
	h.counterFind("100001")
	h.startEdit(t)
	resp, _ = h.post("/staff/next-customer", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("next customer: %d", resp.StatusCode)
	}
	if h.sb.Calls("CancelOrder") == 0 {
		t.Fatal("the edit order was not released upstream")
	}
	if resp, _ := h.get("/booking/current"); resp.StatusCode == http.StatusOK {
		t.Fatal("the booking is still bound after Next customer")
	}
	if h.staffUser() != "Carl Clerk" {
		t.Fatal("Next customer signed the clerk out")
	}
	// The walk-in's purchase is gone from the visit: its pages and its .ics name nothing.
	for _, u := range []string{confirmation, strings.TrimRight(confirmation, "/") + "/calendar.ics", "/checkout/seats"} {
		resp, body := h.get(u)
		if (resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusGone && resp.StatusCode != http.StatusSeeOther) || strings.Contains(body, number) {
			t.Errorf("%s after Next customer: %d %s", u, resp.StatusCode, h.doc(body).Find("main").Text())
		}
	}
}

// buyUpToDetails walks tickets and seats and lands on the details step.
func (h *harness) buyUpToDetails(session string, qty url.Values) {
	h.t.Helper()
	page := "/whats-on/0001/" + session
	resp, body := h.post(page, page, qty)
	expectRedirect(h.t, resp, body, "/checkout/seats")
	resp, body = h.post("/checkout/seats", "/checkout/seats", h.checkedSeats())
	expectRedirect(h.t, resp, body, "/checkout/details")
}

// staffUser is the name of the staff member the server sees signed in on this client ("" for none).
func (h *harness) staffUser() string {
	h.t.Helper()
	_, body := h.get("/booking")
	return strings.TrimPrefix(strings.TrimSpace(h.doc(body).Find(`[data-testid="staff-badge"] span`).First().Text()), "Staff: ")
}
