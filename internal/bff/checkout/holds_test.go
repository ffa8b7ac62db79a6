package checkout_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// holdLimitPage checks that body is the limit page of kind ("seats" or "orders").
func holdLimitPage(t *testing.T, h *bfftest.Harness, resp *http.Response, body string, status int, kind string) *goquery.Document {
	t.Helper()
	doc := h.Doc(body)
	page := doc.Find(`[data-testid="hold-limit"]`)
	if resp.StatusCode != status || page.Length() != 1 || page.AttrOr("data-limit", "") != kind {
		t.Fatalf("want the %s limit page with %d, got %d: %s", kind, status, resp.StatusCode, doc.Find("main").Text())
	}
	return doc
}

func qty(adults, children int) url.Values {
	v := url.Values{"qty-0001": {fmt.Sprint(adults)}}
	if children > 0 {
		v.Set("qty-0002", fmt.Sprint(children))
	}
	return v
}

// TestVisitHoldsAtMostTenSeats: the ticket step refuses more than 10 seats before the
// upstream is asked, and takes 10.
func TestVisitHoldsAtMostTenSeats(t *testing.T) {
	for _, tc := range []struct {
		name             string
		adults, children int
		wantSeats        int // 0: refused
	}{
		{"11 seats are refused", 6, 5, 0},
		{"10 seats are fine", 6, 4, 10},
		{"1 seat is fine", 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
			resp, body := h.ChooseQty(qty(tc.adults, tc.children))
			if tc.wantSeats == 0 {
				doc := h.Doc(body)
				notice := doc.Find(`[role="alert"], .notice`).Text()
				if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(notice, "You can hold at most 10 seats at a time and chose 11") ||
					!strings.Contains(notice, "ask at the box office") {
					t.Fatalf("11 seats: %d, notice %q", resp.StatusCode, notice)
				}
				if v := doc.Find(`input[name="qty-0002"]`).AttrOr("value", ""); v != "5" {
					t.Errorf("what was typed is not shown again: %q", v)
				}
				if n := h.SB.Calls("AddTickets"); n != 0 {
					t.Fatalf("%d AddTickets calls: seats were held upstream", n)
				}
				if got := h.OpenOrders(t, "127.0.0.1"); len(got) != 0 {
					t.Fatalf("a refused order is recorded: %+v", got)
				}
				return
			}
			bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
			if got := len(h.CheckedSeats()["seat"]); got != tc.wantSeats {
				t.Fatalf("%d seats held, want %d", got, tc.wantSeats)
			}
			if got := h.OpenOrders(t, "127.0.0.1"); len(got) != 1 || got[0].Seats != tc.wantSeats {
				t.Fatalf("open orders recorded: %+v", got)
			}
		})
	}
}

// TestEditAndPurchaseShareTheSeatLimit: the seats an edit adds and the seats being bought
// count together, whichever step asks.
func TestEditAndPurchaseShareTheSeatLimit(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	addTickets := func(n int) (*http.Response, string) {
		t.Helper()
		typ := h.Page("/booking/edit", http.StatusOK).Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
		return h.Post("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {fmt.Sprint(n)}})
	}
	h.Find(bfftest.BkPaid1)
	h.StartEdit(t)
	// An edit alone: 6 and then 5 more is too many.
	resp, body := addTickets(6)
	bfftest.ExpectRedirect(t, resp, body, "/booking/edit")
	if got := bfftest.LineStates(h.Page("/booking/edit", http.StatusOK))["added"]; got != 6 {
		t.Fatalf("%d added", got)
	}
	calls := h.SB.Calls("AddTickets")
	resp, body = addTickets(5)
	doc := holdLimitPage(t, h, resp, body, http.StatusConflict, "seats")
	if msg := doc.Find(`[data-testid="hold-limit-message"]`).Text(); !strings.Contains(msg, "You can hold at most 10 seats at a time. You asked to add 5 tickets.") ||
		!strings.Contains(msg, "Your booking change already adds 6 seats.") || !strings.Contains(msg, "ask at the box office") {
		t.Fatalf("message: %q", msg)
	}
	if doc.Find(`a[data-testid="hold-limit-back"][href="/booking/edit"]`).Length() != 1 ||
		doc.Find(`a[data-testid="hold-limit-edit-cancel"][href="/booking/edit/cancel"]`).Length() != 1 {
		t.Fatalf("no way back to the change or to cancel it: %s", doc.Find(".actions").Text())
	}
	if h.SB.Calls("AddTickets") != calls {
		t.Fatal("the upstream was asked for the refused tickets")
	}
	if got := bfftest.LineStates(h.Page("/booking/edit", http.StatusOK))["added"]; got != 6 {
		t.Fatalf("%d added after the refusal", got)
	}
	// The purchase counts with the edit's 6: 5 are too many, 4 are fine.
	resp, body = h.ChooseQty(qty(5, 0))
	doc = holdLimitPage(t, h, resp, body, http.StatusConflict, "seats")
	if msg := doc.Find(`[data-testid="hold-limit-holding"]`).Text(); msg != "Your booking change already adds 6 seats." {
		t.Fatalf("holding: %q", msg)
	}
	if doc.Find(`a[data-testid="hold-limit-back"][href="/whats-on/0001/1113"]`).Length() != 1 {
		t.Fatal("no way back to choose fewer tickets")
	}
	if h.SB.Calls("AddTickets") != calls {
		t.Fatal("the upstream was asked for the refused purchase")
	}
	resp, body = h.ChooseQty(qty(4, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	// Now the visit holds 10: the edit may add no more, and its page links to the purchase.
	resp, body = addTickets(1)
	doc = holdLimitPage(t, h, resp, body, http.StatusConflict, "seats")
	if msg := doc.Find(`[data-testid="hold-limit-holding"]`).Text(); !strings.Contains(msg, "You already hold 4 seats for the tickets you are buying, and your booking change adds 6 seats.") {
		t.Fatalf("holding: %q", msg)
	}
	if doc.Find(`a[data-testid="hold-limit-cancel"][href="/checkout/cancel"]`).Length() != 1 || doc.Find(`a[data-testid="hold-limit-order"][href="/checkout"]`).Length() != 1 {
		t.Fatal("no link to the order or to cancel it")
	}
	// Cancelling the purchase (the page's link) frees its seats for the edit.
	h.Page("/checkout/cancel", http.StatusOK)
	resp, body = h.Post("/checkout/cancel", "/checkout/cancel", url.Values{"confirm": {"yes"}})
	bfftest.ExpectRedirect(t, resp, body, "/whats-on")
	resp, body = addTickets(4)
	bfftest.ExpectRedirect(t, resp, body, "/booking/edit")
	if got := bfftest.LineStates(h.Page("/booking/edit", http.StatusOK))["added"]; got != 10 {
		t.Fatalf("%d added after the purchase was cancelled", got)
	}
}

// TestOneOpenOrderPerVisit: choosing tickets again replaces the visit's order: the first is
// cancelled upstream, and only one counts against the client.
func TestOneOpenOrderPerVisit(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	before := h.FreeSeats(t)
	for i := 1; i <= 4; i++ { // more often than the client may have open orders
		resp, body := h.ChooseQty(qty(2, 0))
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
		if got := h.SB.Calls("CancelOrder"); got != int64(i-1) {
			t.Fatalf("choice %d: %d CancelOrder calls, want %d", i, got, i-1)
		}
		if got := h.OpenOrders(t, "127.0.0.1"); len(got) != 1 {
			t.Fatalf("choice %d: %d open orders recorded", i, len(got))
		}
	}
	// The seats of the replaced orders are free again: only the visit's 2 are held.
	if got := h.FreeSeats(t); got != before-2 {
		t.Fatalf("%d seats free, want %d (2 held)", got, before-2)
	}
}

// TestClientHasAtMostThreeOpenOrders: three visits from one address may each hold an order, a
// fourth is refused before the upstream is asked; another address is not affected; an order
// that is cancelled, completes or runs out frees its slot.
func TestClientHasAtMostThreeOpenOrders(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{Clock: clock})
	const addr = "203.0.113.7"
	var visits []*bfftest.Harness
	for i := range 3 {
		v := h.Visitor(addr)
		resp, body := v.ChooseQty(qty(1, 0))
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
		visits = append(visits, v)
		if got := len(h.OpenOrders(t, addr)); got != i+1 {
			t.Fatalf("%d open orders recorded, want %d", got, i+1)
		}
	}
	fourth := h.Visitor(addr)
	refused := func(why string) {
		t.Helper()
		calls := h.SB.Calls("AddTickets")
		resp, body := fourth.ChooseQty(qty(1, 0))
		doc := holdLimitPage(t, h, resp, body, http.StatusTooManyRequests, "orders")
		msg := doc.Find(`[data-testid="hold-limit-message"]`).Text()
		if !strings.Contains(msg, "There are already 3 orders in progress from your internet connection, and at most 3 can hold seats at the same time.") ||
			!strings.Contains(msg, "Complete or cancel one of them first, or ask at the box office.") {
			t.Fatalf("%s: message %q", why, msg)
		}
		if ra := resp.Header.Get("Retry-After"); ra == "" {
			t.Errorf("%s: no Retry-After", why)
		}
		if doc.Find(`a[data-testid="hold-limit-back"][href="/whats-on/0001/1113"]`).Length() != 1 {
			t.Errorf("%s: no way back", why)
		}
		if h.SB.Calls("AddTickets") != calls {
			t.Fatalf("%s: the upstream was asked", why)
		}
	}
	refused("a 4th order")
	// Another client address is not affected.
	other := h.Visitor("198.51.100.1")
	resp, body := other.ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	// A visit that chooses again replaces its own order: still three.
	resp, body = visits[2].ChooseQty(qty(2, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	refused("after a visit replaced its order")

	// Cancelled: the slot is free.
	visits[0].Page("/checkout/cancel", http.StatusOK)
	resp, body = visits[0].Post("/checkout/cancel", "/checkout/cancel", url.Values{"confirm": {"yes"}})
	bfftest.ExpectRedirect(t, resp, body, "/whats-on")
	resp, body = fourth.ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	visits[0] = fourth
	fifth := h.Visitor(addr)
	fourth = fifth
	refused("three open again")

	// Completed (paid): the slot is free, whether or not the completion ended the hold.
	payer := visits[1]
	payer.BuyAfterSeats()
	ret := payer.ActAtProvider(payer.PressPay(), "pay")
	payer.WaitForConfirmation(ret, 10*time.Second)
	resp, body = fourth.ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	fourth = h.Visitor(addr)
	refused("three open again after a purchase")

	// Run out upstream (the order expired; nobody came back to say so): the slot is free.
	clock.Advance(11 * time.Minute)
	resp, body = fourth.ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	if got := len(h.OpenOrders(t, addr)); got != 1 {
		t.Fatalf("%d open orders after the others ran out, want 1", got)
	}
}

// TestStaffAreExemptFromHoldLimits: a box office sells to groups, all from one address.
func TestStaffAreExemptFromHoldLimits(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	const addr = "203.0.113.9"
	for range 3 {
		resp, body := h.Visitor(addr).ChooseQty(qty(1, 0))
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	}
	staff := h.Visitor(addr)
	bfftest.SignInStaff(t, staff)
	resp, body := staff.ChooseQty(qty(10, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	if got := len(h.OpenOrders(t, addr)); got != 3 {
		t.Fatalf("%d open orders recorded, want the customers' 3 (staff orders are not counted)", got)
	}
	// And the same visit changes a booking, adding more seats than a customer may hold.
	staff.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(bfftest.BkPaid1)}, "email": {bfftest.BookingEmails[bfftest.BkPaid1]}})
	staff.Page("/booking/current", http.StatusOK)
	staff.StartEdit(t)
	typ := staff.Page("/booking/edit", http.StatusOK).Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	resp, body = staff.Post("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"3"}})
	bfftest.ExpectRedirect(t, resp, body, "/booking/edit")
	if got := bfftest.LineStates(staff.Page("/booking/edit", http.StatusOK))["added"]; got != 3 {
		t.Fatalf("staff: %d added", got)
	}
	// 11 in one purchase is more than one booking takes, for staff too.
	resp, body = staff.ChooseQty(qty(6, 5))
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "At most 10 seats in one booking") {
		t.Fatalf("staff, 11 seats: %d %s", resp.StatusCode, body)
	}
}

// TestReplacedOrderThatCannotBeCancelledStopsThePurchase: a visit's earlier order is never left
// holding seats: when it cannot be cancelled, no new order is made.
func TestReplacedOrderThatCannotBeCancelledStopsThePurchase(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	resp, body := h.ChooseQty(qty(2, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	calls := h.SB.Calls("AddTickets")
	bfftest.MustFault(h, sandbox.Fault{Operation: "CancelOrder", HTTPStatus: 503, Times: 10})
	resp, body = h.ChooseQty(qty(3, 0))
	if resp.StatusCode < 500 || !strings.Contains(body, "Your earlier choice could not be released") {
		t.Fatalf("cancel failed: %d %s", resp.StatusCode, h.Doc(body).Find("main").Text())
	}
	if h.SB.Calls("AddTickets") != calls {
		t.Fatal("a second order was made while the first still holds its seats")
	}
	if got := h.OpenOrders(t, "127.0.0.1"); len(got) != 1 {
		t.Fatalf("%d open orders recorded, want the first only", len(got))
	}
	if got := len(h.CheckedSeats()["seat"]); got != 2 {
		t.Fatalf("the visit's order has %d seats, want its 2", got)
	}
}

// TestKiosksBehindOneAddressEachHoldAnOrder: the kiosks of one lobby share an internet address,
// but each enrolled kiosk is its own client for the open-order limit: four kiosks behind one
// address each have a guest's order open, while a fourth browser behind that address is refused.
func TestKiosksBehindOneAddressEachHoldAnOrder(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{})
	const addr = "203.0.113.9"
	for range 4 {
		k := h.Visitor(addr)
		k.Enrol(device.Kiosk)
		resp, body := k.ChooseQty(qty(1, 0))
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	}
	if got := len(h.OpenOrders(t, addr)); got != 0 {
		t.Fatalf("%d kiosk orders counted against the lobby's address, want 0", got)
	}
	for range 3 {
		resp, body := h.Visitor(addr).ChooseQty(qty(1, 0))
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	}
	resp, body := h.Visitor(addr).ChooseQty(qty(1, 0))
	holdLimitPage(t, h, resp, body, http.StatusTooManyRequests, "orders")
}
