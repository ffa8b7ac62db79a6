package booking_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// findNotFound is the find page's one neutral answer for every wrong detail: it never says
// which part was wrong, so the form cannot be used to learn booking numbers or addresses.
const findNotFound = "We could not find a booking with these details. Please check the booking number and the e-mail address."

func TestFindBooking(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
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
			resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {tc.number}, "email": {tc.email}})
			if resp.StatusCode != tc.want || !strings.Contains(body, tc.text) {
				t.Fatalf("status %d (want %d), body lacks %q: %s", resp.StatusCode, tc.want, tc.text, body)
			}
		})
	}
	doc := h.Find(bfftest.BkPaid1)
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
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	var last *http.Response
	var body string
	for i := 0; i < 6; i++ {
		last, body = h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {fmt.Sprintf("guess%d@example.com", i)}})
	}
	if last.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "try again in") || last.Header.Get("Retry-After") == "" {
		t.Fatalf("6th guess on one booking: %d %q: %s", last.StatusCode, last.Header.Get("Retry-After"), body)
	}
	// Another booking number is not blocked by that one.
	resp, _ := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100001"}, "email": {"paid1@example.com"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("other booking blocked: %d", resp.StatusCode)
	}
}

func TestEditRefusedBookings(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	cases := []struct {
		number int
		words  string
	}{
		{bfftest.BkConcessions, "food or drinks"},
		{bfftest.BkInternal, "gift card, loyalty points or at the cinema"},
		{bfftest.BkPackage, "package ticket"},
		{bfftest.BkLoyalty, "loyalty reward"},
		{bfftest.BkVoucher, "voucher"},
		{bfftest.BkPartner, "partner membership"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.number), func(t *testing.T) {
			doc := h.Find(tc.number)
			action := doc.Find(`[data-testid="action-edit"]`)
			if tc.number == bfftest.BkInternal {
				// The real booking record does not say how a payment was taken: the action
				// is offered, and the ticketing system's refusal is shown in words.
				if action.Find("button[disabled]").Length() != 0 {
					t.Fatalf("edit disabled on a guess: %s", action.Text())
				}
			} else if action.Find("button[disabled]").Length() != 1 || !strings.Contains(action.Text(), tc.words) {
				t.Fatalf("edit action not disabled with reason %q: %s", tc.words, action.Text())
			}
			// Asking anyway: the upstream refuses and the page names the restriction.
			resp, body := h.Post("/booking/edit/start", "/booking", nil)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(body, tc.words) {
				t.Fatalf("start edit anyway: %d, want 409 naming %q: %s", resp.StatusCode, tc.words, body)
			}
		})
	}
}

func TestEditAddRemoveSeatsExtendCancel(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	before := h.Find(bfftest.BkPaid1)
	beforeTickets := before.Find(`[data-testid="tickets"]`).Text()
	beforeTotal := bfftest.Text(before, "total")

	doc := h.StartEdit(t)
	if st := bfftest.LineStates(doc); st["kept"] != 2 || len(st) != 1 {
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
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	if st := bfftest.LineStates(doc); st["kept"] != 2 || st["added"] != 1 {
		t.Fatalf("after add: %v", st)
	}
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To pay") {
		t.Fatalf("no amount to pay after adding: %s", doc.Find(`[data-testid="edit-money"]`).Text())
	}
	// Remove a kept ticket.
	keptID := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {keptID}})
	if st := bfftest.LineStates(doc); st["kept"] != 1 || st["added"] != 1 || st["removed"] != 1 {
		t.Fatalf("after remove: %v", st)
	}
	// Change seats: pick other free seats for the two remaining tickets.
	seats := h.Page("/booking/edit/seats", http.StatusOK)
	var free []string
	if seats.Find(`[data-testid="seatmap"]`).Length() != 1 {
		t.Fatal("the seat change page does not use the seat map")
	}
	seats.Find(`[data-testid="seatmap"] input[name="seat"]:not([disabled])`).Each(func(_ int, s *bfftest.GoquerySel) {
		if _, checked := s.Attr("checked"); !checked && len(free) < 2 {
			free = append(free, s.AttrOr("value", ""))
		}
	})
	resp, _ := h.Post("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {free[0]}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("one seat for two tickets accepted: %d", resp.StatusCode)
	}
	_, doc = h.Submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": free})
	if !strings.Contains(doc.Text(), "Your seats were changed.") {
		t.Fatalf("seat change not confirmed: %s", doc.Text())
	}
	// More time.
	_, doc = h.Submit("/booking/edit/extend", "/booking/edit", nil)
	if !strings.Contains(doc.Text(), "You have more time") {
		t.Fatal("extend not confirmed")
	}
	// Cancel: the original booking comes back unchanged.
	if h.Page("/booking/edit/cancel", http.StatusOK).Find(`[data-testid="cancel-confirm"]`).Length() != 1 {
		t.Fatal("no cancel confirmation")
	}
	_, doc = h.Submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if !strings.Contains(doc.Text(), "exactly as it was") {
		t.Fatalf("cancel not confirmed: %s", doc.Text())
	}
	if got := doc.Find(`[data-testid="tickets"]`).Text(); got != beforeTickets {
		t.Fatalf("tickets after cancel:\n%s\nbefore:\n%s", got, beforeTickets)
	}
	if got := bfftest.Text(doc, "total"); got != beforeTotal {
		t.Fatalf("total after cancel %q, before %q", got, beforeTotal)
	}
}

func TestCompleteUnpaidBooking(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkUnpaid)
	doc := h.StartEdit(t)
	before := bfftest.LineStates(doc)["kept"]
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	if doc.Find(`[data-testid="changes"]`).Length() != 1 {
		t.Fatalf("no change summary: %s", doc.Text())
	}
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != before+1 {
		t.Fatalf("booking has %d tickets after adding one to %d", n, before)
	}
	if e, ok := bfftest.Entries(t, h); ok && len(e) != 0 {
		t.Fatalf("an unpaid booking made ledger entries: %v", e)
	}
	m := h.OneMail("edit")
	if !strings.Contains(m.Text, "Added:") || strings.Contains(m.Text, "Paid:") || len(m.Inline) != before+1 {
		t.Fatalf("edit message with %d QR codes:\n%s", len(m.Inline), m.Text)
	}
}

func TestPayPositiveBalance(t *testing.T) {
	for _, first := range []string{"", "decline", "cancel"} {
		t.Run("first "+first, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			h.Find(bfftest.BkPaid2)
			doc := h.StartEdit(t)
			typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
			_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
			toPay := bfftest.Text(doc, "balance")
			if doc.Find("#edit-title").Length() != 1 {
				t.Fatalf("not on the edit page after adding: %s", doc.Text())
			}

			if first != "" {
				resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
				if resp.StatusCode != http.StatusSeeOther {
					t.Fatalf("complete: %d %s", resp.StatusCode, body)
				}
				hosted := resp.Header.Get("Location")
				_, doc = h.PayAtProvider(t, hosted, first)
				if !strings.Contains(doc.Text(), "nothing was charged") || doc.Find("#edit-title").Length() != 1 {
					t.Fatalf("after %s: not back on the edit page with a message: %s", first, doc.Text())
				}
			}
			tok := h.CSRFToken("/booking/edit")
			resp, body := h.Do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
			hosted := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.UpstreamURL+"/pay/checkout/") {
				t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
			}
			// A double click (the same form sent twice): the same payment page, not a second payment.
			resp2, _ := h.Do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
			if got := resp2.Header.Get("Location"); got != hosted {
				t.Fatalf("second click went to %q, want the same payment %q", got, hosted)
			}
			_, doc = h.PayAtProvider(t, hosted, "pay")
			changes := doc.Find(`[data-testid="changes"]`).Text()
			if !strings.Contains(changes, "Paid "+toPay) || !strings.Contains(changes, "Added:") {
				t.Fatalf("booking page after payment lacks what changed / what was paid: %q (to pay %s): %s", changes, toPay, doc.Find("main").Text())
			}
			if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 3 {
				t.Fatalf("%d tickets after adding one to two", n)
			}
			es, _ := bfftest.Entries(t, h)
			applied := 0
			for _, e := range es {
				if e.State == ledger.StateApplied {
					applied++
				}
			}
			if applied != 1 {
				t.Fatalf("ledger: %d applied entries, want 1: %+v", applied, es)
			}
			if m := h.OneMail("edit"); !bfftest.ContainsAmount(t, m.Text, "Paid: ", splitCents(t, toPay)) || !strings.Contains(m.Text, "Added:") || len(m.Inline) != 3 {
				t.Fatalf("edit message (to pay %s) with %d QR codes:\n%s", toPay, len(m.Inline), m.Text)
			}
		})
	}
}

func TestRefundNegativeBalance(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid3)
	doc := h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	refund := bfftest.Text(doc, "balance")
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To refund") {
		t.Fatalf("no refund shown: %s", doc.Find(`[data-testid="edit-money"]`).Text())
	}
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	changes := doc.Find(`[data-testid="changes"]`).Text()
	if !strings.Contains(changes, "Refunded "+refund) || !strings.Contains(changes, "Removed:") {
		t.Fatalf("no refund in the summary: %q (refund %s)", changes, refund)
	}
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 1 {
		t.Fatalf("%d tickets after removing one of two", n)
	}
	p, ok := h.Prov.Get(fmt.Sprintf("pi_seed%06d", bfftest.BkPaid3))
	if !ok || p.RefundedInCents == 0 {
		t.Fatalf("the original payment was not refunded: %+v", p)
	}
	m := h.OneMail("edit")
	if !bfftest.ContainsAmount(t, m.Text, "Refunded: ", splitCents(t, refund)) || !strings.Contains(m.Text, "Removed:") || !strings.Contains(m.Text, "No longer valid") || len(m.Inline) != 1 {
		t.Fatalf("edit message (refund %s) with %d QR codes:\n%s", refund, len(m.Inline), m.Text)
	}
}

func TestEditExpiresWhileEditing(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock})
	h.Find(bfftest.BkPaid4)
	h.StartEdit(t)
	clock.Advance(11 * time.Minute)
	resp, doc := h.Follow(h.Get("/booking/edit"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Text(), "timed out") || doc.Find("#booking-title").Length() != 1 {
		t.Fatalf("expired edit: %d %s", resp.StatusCode, doc.Text())
	}
	// The booking can be edited again.
	h.StartEdit(t)
}

func TestFeeChangeIsExplained(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkFeeChange)
	doc := h.StartEdit(t)
	if note := bfftest.Text(doc, "fee-note"); !strings.Contains(note, "fees have changed") {
		t.Fatalf("no fee-change explanation: %q", note)
	}
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To pay") {
		t.Fatal("fee change shows no balance")
	}
}

func TestEditPageWithoutBinding(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	resp, body := h.Get("/booking/edit")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "No change in progress") {
		t.Fatalf("edit page without an edit: %d %s", resp.StatusCode, body)
	}
	resp, body = h.Get("/booking/current")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "Find your booking") {
		t.Fatalf("booking page without a booking: %d %s", resp.StatusCode, body)
	}
}

func TestBookingPageSwapAction(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	cases := []struct {
		number  int
		enabled bool
		words   string
	}{
		{bfftest.BkPaid1, true, ""},
		{bfftest.BkUnpaid, false, "not been paid"},
		// In-seat delivery is not on the real booking record: offered, and refused by the
		// ticketing system in words (TestSwapInSeatDeliveryRefusedByTicketing).
		{bfftest.BkInSeat, true, ""},
	}
	for _, tc := range cases {
		doc := h.Find(tc.number)
		a := doc.Find(`[data-testid="action-swap"]`)
		if got := a.Find("a.button").Length() == 1; got != tc.enabled {
			t.Errorf("%d: swap enabled=%v, want %v", tc.number, got, tc.enabled)
		}
		if !tc.enabled && !strings.Contains(a.Text(), tc.words) {
			t.Errorf("%d: reason %q lacks %q", tc.number, a.Text(), tc.words)
		}
	}
}
