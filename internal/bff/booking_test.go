package bff

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// findNotFound is the find page's one neutral answer for every wrong detail: it never says
// which part was wrong, so the form cannot be used to learn booking numbers or addresses.
const findNotFound = "We could not find a booking with these details. Please check the booking number and the e-mail address."

func TestFindBooking(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	cases := []struct {
		name   string
		number string
		email  string
		want   int
		text   string
	}{
		{"wrong e-mail", "100001", "someone@example.com", http.StatusNotFound, findNotFound},
		{"unknown number", "999999", "paid1@example.com", http.StatusNotFound, findNotFound},
		{"not a number", "abc", "paid1@example.com", http.StatusUnprocessableEntity, "digits only"},
		{"e-mail case ignored", "100001", "PAID1@Example.com", http.StatusSeeOther, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := h.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {tc.number}, "email": {tc.email}})
			if resp.StatusCode != tc.want || !strings.Contains(body, tc.text) {
				t.Fatalf("status %d (want %d), body lacks %q: %s", resp.StatusCode, tc.want, tc.text, body)
			}
		})
	}
	doc := h.find(bkPaid1)
	if got := doc.Find("h1").Text(); got != "Booking 100001" {
		t.Fatalf("booking page heading %q", got)
	}
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 2 {
		t.Fatalf("%d tickets shown, want 2", n)
	}
	for _, want := range []string{"Row ", "Paid", "Total"} {
		if !strings.Contains(doc.Text(), want) {
			t.Errorf("booking page lacks %q", want)
		}
	}
	if doc.Find(`[data-testid="action-edit"] form button`).Length() != 1 {
		t.Fatal("no enabled edit action on a paid simple booking")
	}
}

func TestFindBookingIsRateLimited(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	var last *http.Response
	var body string
	for i := 0; i < 6; i++ {
		last, body = h.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {fmt.Sprintf("guess%d@example.com", i)}})
	}
	if last.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "try again in") || last.Header.Get("Retry-After") == "" {
		t.Fatalf("6th guess on one booking: %d %q: %s", last.StatusCode, last.Header.Get("Retry-After"), body)
	}
	// Another booking number is not blocked by that one.
	resp, _ := h.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100001"}, "email": {"paid1@example.com"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("other booking blocked: %d", resp.StatusCode)
	}
}

func TestEditRefusedBookings(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	cases := []struct {
		number int
		words  string
	}{
		{bkConcessions, "food or drinks"},
		{bkInternal, "gift card, loyalty points or at the cinema"},
		{bkPackage, "package ticket"},
		{bkLoyalty, "loyalty reward"},
		{bkVoucher, "voucher"},
		{bkPartner, "partner membership"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.number), func(t *testing.T) {
			doc := h.find(tc.number)
			action := doc.Find(`[data-testid="action-edit"]`)
			if tc.number == bkInternal {
				// The real booking record does not say how a payment was taken: the action
				// is offered, and the ticketing system's refusal is shown in words.
				if action.Find("button[disabled]").Length() != 0 {
					t.Fatalf("edit disabled on a guess: %s", action.Text())
				}
			} else if action.Find("button[disabled]").Length() != 1 || !strings.Contains(action.Text(), tc.words) {
				t.Fatalf("edit action not disabled with reason %q: %s", tc.words, action.Text())
			}
			// Asking anyway: the upstream refuses and the page names the restriction.
			resp, body := h.post("/booking/edit/start", "/booking", nil)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, tc.words) {
				t.Fatalf("start edit anyway: %d, want 409 naming %q: %s", resp.StatusCode, tc.words, body)
			}
		})
	}
}

func TestEditAddRemoveSeatsExtendCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	before := h.find(bkPaid1)
	beforeTickets := before.Find(`[data-testid="tickets"]`).Text()
	beforeTotal := text(before, "total")

	doc := h.startEdit(t)
	if st := lineStates(doc); st["kept"] != 2 || len(st) != 1 {
		t.Fatalf("fresh edit lines %v, want 2 kept", st)
	}
	if got := doc.Find(`[data-testid="edit-money"]`).Text(); !strings.Contains(got, "Nothing to pay or refund") {
		t.Fatalf("fresh edit has a balance: %q", got)
	}
	if doc.Find(`[data-testid="countdown"] time`).Length() != 1 {
		t.Fatal("no expiry time shown (needed without JavaScript)")
	}
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")

	// Add one ticket.
	_, doc = h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	if st := lineStates(doc); st["kept"] != 2 || st["added"] != 1 {
		t.Fatalf("after add: %v", st)
	}
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To pay") {
		t.Fatalf("no amount to pay after adding: %s", doc.Find(`[data-testid="edit-money"]`).Text())
	}
	// Remove a kept ticket.
	keptID := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {keptID}})
	if st := lineStates(doc); st["kept"] != 1 || st["added"] != 1 || st["removed"] != 1 {
		t.Fatalf("after remove: %v", st)
	}
	// Change seats: pick other free seats for the two remaining tickets.
	seats := h.page("/booking/edit/seats", http.StatusOK)
	var free []string
	if seats.Find(`[data-testid="seatmap"]`).Length() != 1 {
		t.Fatal("the seat change page does not use the seat map")
	}
	seats.Find(`[data-testid="seatmap"] input[name="seat"]:not([disabled])`).Each(func(_ int, s *goquerySel) {
		if _, checked := s.Attr("checked"); !checked && len(free) < 2 {
			free = append(free, s.AttrOr("value", ""))
		}
	})
	resp, _ := h.post("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {free[0]}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("one seat for two tickets accepted: %d", resp.StatusCode)
	}
	_, doc = h.submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": free})
	if !strings.Contains(doc.Text(), "Your seats were changed.") {
		t.Fatalf("seat change not confirmed: %s", doc.Text())
	}
	// More time.
	_, doc = h.submit("/booking/edit/extend", "/booking/edit", nil)
	if !strings.Contains(doc.Text(), "You have more time") {
		t.Fatal("extend not confirmed")
	}
	// Cancel: the original booking comes back unchanged.
	if h.page("/booking/edit/cancel", http.StatusOK).Find(`[data-testid="cancel-confirm"]`).Length() != 1 {
		t.Fatal("no cancel confirmation")
	}
	_, doc = h.submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if !strings.Contains(doc.Text(), "exactly as it was") {
		t.Fatalf("cancel not confirmed: %s", doc.Text())
	}
	if got := doc.Find(`[data-testid="tickets"]`).Text(); got != beforeTickets {
		t.Fatalf("tickets after cancel:\n%s\nbefore:\n%s", got, beforeTickets)
	}
	if got := text(doc, "total"); got != beforeTotal {
		t.Fatalf("total after cancel %q, before %q", got, beforeTotal)
	}
}

func TestCompleteUnpaidBooking(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkUnpaid)
	doc := h.startEdit(t)
	before := lineStates(doc)["kept"]
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	_, doc = h.submit("/booking/edit/complete", "/booking/edit", nil)
	if doc.Find(`[data-testid="changes"]`).Length() != 1 {
		t.Fatalf("no change summary: %s", doc.Text())
	}
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != before+1 {
		t.Fatalf("booking has %d tickets after adding one to %d", n, before)
	}
	if e, ok := entries(t, h); ok && len(e) != 0 {
		t.Fatalf("an unpaid booking made ledger entries: %v", e)
	}
	m := h.oneMail("edit")
	if !strings.Contains(m.Text, "Added:") || strings.Contains(m.Text, "Paid:") || len(m.Inline) != before+1 {
		t.Fatalf("edit message with %d QR codes:\n%s", len(m.Inline), m.Text)
	}
}

func TestPayPositiveBalance(t *testing.T) {
	for _, first := range []string{"", "decline", "cancel"} {
		t.Run("first "+first, func(t *testing.T) {
			h := newHarness(t, harnessOpts{sandbox: true})
			h.find(bkPaid2)
			doc := h.startEdit(t)
			typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
			_, doc = h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
			toPay := text(doc, "balance")
			if doc.Find("#edit-title").Length() != 1 {
				t.Fatalf("not on the edit page after adding: %s", doc.Text())
			}

			if first != "" {
				resp, body := h.post("/booking/edit/complete", "/booking/edit", nil)
				if resp.StatusCode != http.StatusSeeOther {
					t.Fatalf("complete: %d %s", resp.StatusCode, body)
				}
				hosted := resp.Header.Get("Location")
				_, doc = h.payAtProvider(t, hosted, first)
				if !strings.Contains(doc.Text(), "nothing was charged") || doc.Find("#edit-title").Length() != 1 {
					t.Fatalf("after %s: not back on the edit page with a message: %s", first, doc.Text())
				}
			}
			tok := h.csrfToken("/booking/edit")
			resp, body := h.do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
			hosted := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.upURL+"/pay/checkout/") {
				t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
			}
			// A double click (the same form sent twice): the same payment page, not a second payment.
			resp2, _ := h.do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
			if got := resp2.Header.Get("Location"); got != hosted {
				t.Fatalf("second click went to %q, want the same payment %q", got, hosted)
			}
			_, doc = h.payAtProvider(t, hosted, "pay")
			changes := doc.Find(`[data-testid="changes"]`).Text()
			if !strings.Contains(changes, "Paid "+toPay) || !strings.Contains(changes, "Added:") {
				t.Fatalf("booking page after payment lacks what changed / what was paid: %q (to pay %s): %s", changes, toPay, doc.Find("main").Text())
			}
			if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 3 {
				t.Fatalf("%d tickets after adding one to two", n)
			}
			es, _ := entries(t, h)
			applied := 0
			for _, e := range es {
				if e.State == ledger.StateApplied {
					applied++
				}
			}
			if applied != 1 {
				t.Fatalf("ledger: %d applied entries, want 1: %+v", applied, es)
			}
			if m := h.oneMail("edit"); !containsAmount(t, m.Text, "Paid: ", splitCents(t, toPay)) || !strings.Contains(m.Text, "Added:") || len(m.Inline) != 3 {
				t.Fatalf("edit message (to pay %s) with %d QR codes:\n%s", toPay, len(m.Inline), m.Text)
			}
		})
	}
}

func TestRefundNegativeBalance(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid3)
	doc := h.startEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	refund := text(doc, "balance")
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To refund") {
		t.Fatalf("no refund shown: %s", doc.Find(`[data-testid="edit-money"]`).Text())
	}
	_, doc = h.submit("/booking/edit/complete", "/booking/edit", nil)
	changes := doc.Find(`[data-testid="changes"]`).Text()
	if !strings.Contains(changes, "Refunded "+refund) || !strings.Contains(changes, "Removed:") {
		t.Fatalf("no refund in the summary: %q (refund %s)", changes, refund)
	}
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 1 {
		t.Fatalf("%d tickets after removing one of two", n)
	}
	p, ok := h.prov.Get(fmt.Sprintf("pi_seed%06d", bkPaid3))
	if !ok || p.RefundedInCents == 0 {
		t.Fatalf("the original payment was not refunded: %+v", p)
	}
	m := h.oneMail("edit")
	if !containsAmount(t, m.Text, "Refunded: ", splitCents(t, refund)) || !strings.Contains(m.Text, "Removed:") || !strings.Contains(m.Text, "No longer valid") || len(m.Inline) != 1 {
		t.Fatalf("edit message (refund %s) with %d QR codes:\n%s", refund, len(m.Inline), m.Text)
	}
}

func TestEditExpiresWhileEditing(t *testing.T) {
	clock := sandbox.NewManualClock(time.Now())
	h := newHarness(t, harnessOpts{sandbox: true, clock: clock})
	h.find(bkPaid4)
	h.startEdit(t)
	clock.Advance(11 * time.Minute)
	resp, doc := h.follow(h.get("/booking/edit"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Text(), "timed out") || doc.Find("#booking-title").Length() != 1 {
		t.Fatalf("expired edit: %d %s", resp.StatusCode, doc.Text())
	}
	// The booking can be edited again.
	h.startEdit(t)
}

func TestFeeChangeIsExplained(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkFeeChange)
	doc := h.startEdit(t)
	if note := text(doc, "fee-note"); !strings.Contains(note, "fees have changed") {
		t.Fatalf("no fee-change explanation: %q", note)
	}
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To pay") {
		t.Fatal("fee change shows no balance")
	}
}

func TestEditPageWithoutBinding(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	resp, body := h.get("/booking/edit")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "No change in progress") {
		t.Fatalf("edit page without an edit: %d %s", resp.StatusCode, body)
	}
	resp, body = h.get("/booking/current")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "Find your booking") {
		t.Fatalf("booking page without a booking: %d %s", resp.StatusCode, body)
	}
}

// entries lists every ledger entry. (SQLite has one connection: the id rows are read and
// closed before the per-edit queries.)
func entries(t *testing.T, h *harness) ([]ledger.Entry, bool) {
	t.Helper()
	rows, err := h.db.SQL.QueryContext(context.Background(), "SELECT DISTINCT edit_session_id FROM ledger_entries")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	var out []ledger.Entry
	for _, id := range ids {
		es, err := h.srv.Visits.Ledger.ForEdit(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, es...)
	}
	return out, true
}

func TestBookingPageSwapAction(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	cases := []struct {
		number  int
		enabled bool
		words   string
	}{
		{bkPaid1, true, ""},
		{bkUnpaid, false, "not been paid"},
		// In-seat delivery is not on the real booking record: offered, and refused by the
		// ticketing system in words (TestSwapInSeatDeliveryRefusedByTicketing).
		{bkInSeat, true, ""},
	}
	for _, tc := range cases {
		doc := h.find(tc.number)
		a := doc.Find(`[data-testid="action-swap"]`)
		if got := a.Find("a.button").Length() == 1; got != tc.enabled {
			t.Errorf("%d: swap enabled=%v, want %v", tc.number, got, tc.enabled)
		}
		if !tc.enabled && !strings.Contains(a.Text(), tc.words) {
			t.Errorf("%d: reason %q lacks %q", tc.number, a.Text(), tc.words)
		}
	}
}
