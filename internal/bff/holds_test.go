package bff

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// Seat hoarding: a visit holds at most 10 seats, a client address has at most 3
// open orders, and a person who hits a limit is told what to do.

// forwardedFor marks every request as coming from addr (the harness trusts loopback as a
// proxy: holdHarness).
type forwardedFor struct {
	addr string
	next http.RoundTripper
}

func (f forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.addr)
	return f.next.RoundTrip(r)
}

// holdHarness is a sandbox harness whose server believes X-Forwarded-For from the test client.
func holdHarness(t *testing.T, o harnessOpts) *harness {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	o.sandbox, o.trustedProxies = true, []*net.IPNet{loopback}
	return newHarness(t, o)
}

// visitor is a new person at the site: their own visit (cookie jar) from client address addr.
func (h *harness) visitor(addr string) *harness {
	v := *h
	jar, _ := cookiejar.New(nil)
	v.client = &http.Client{Jar: jar, CheckRedirect: h.client.CheckRedirect, Transport: forwardedFor{addr: addr, next: http.DefaultTransport}}
	return &v
}

// chooseQty posts the ticket step of session 1113.
func (h *harness) chooseQty(qty url.Values) (*http.Response, string) {
	h.t.Helper()
	return h.post("/whats-on/0001/1113", "/whats-on/0001/1113", qty)
}

// holdLimitPage checks that body is the limit page of kind ("seats" or "orders").
func holdLimitPage(t *testing.T, h *harness, resp *http.Response, body string, status int, kind string) *goquery.Document {
	t.Helper()
	doc := h.doc(body)
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
			h := holdHarness(t, harnessOpts{})
			resp, body := h.chooseQty(qty(tc.adults, tc.children))
			if tc.wantSeats == 0 {
				doc := h.doc(body)
				notice := doc.Find(`[role="alert"], .notice`).Text()
				if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(notice, "You can hold at most 10 seats at a time and chose 11") ||
					!strings.Contains(notice, "ask at the box office") {
					t.Fatalf("11 seats: %d, notice %q", resp.StatusCode, notice)
				}
				if v := doc.Find(`input[name="qty-0002"]`).AttrOr("value", ""); v != "5" {
					t.Errorf("what was typed is not shown again: %q", v)
				}
				if n := h.sb.Calls("AddTickets"); n != 0 {
					t.Fatalf("%d AddTickets calls: seats were held upstream", n)
				}
				if got := h.openOrders(t, "127.0.0.1"); len(got) != 0 {
					t.Fatalf("a refused order is recorded: %+v", got)
				}
				return
			}
			expectRedirect(t, resp, body, "/checkout/seats")
			if got := len(h.checkedSeats()["seat"]); got != tc.wantSeats {
				t.Fatalf("%d seats held, want %d", got, tc.wantSeats)
			}
			if got := h.openOrders(t, "127.0.0.1"); len(got) != 1 || got[0].Seats != tc.wantSeats {
				t.Fatalf("open orders recorded: %+v", got)
			}
		})
	}
}

// openOrders lists the open orders recorded for a client address.
func (h *harness) openOrders(t *testing.T, addr string) []holds.Hold {
	t.Helper()
	got, err := holds.New(h.db.SQL, nil).OpenFor(context.Background(), holds.ClientKey(addr))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestEditAndPurchaseShareTheSeatLimit: the seats an edit adds and the seats being bought
// count together, whichever step asks.
func TestEditAndPurchaseShareTheSeatLimit(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	addTickets := func(n int) (*http.Response, string) {
		t.Helper()
		typ := h.page("/booking/edit", http.StatusOK).Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
		return h.post("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {fmt.Sprint(n)}})
	}
	h.find(bkPaid1)
	h.startEdit(t)
	// An edit alone: 6 and then 5 more is too many.
	resp, body := addTickets(6)
	expectRedirect(t, resp, body, "/booking/edit")
	if got := lineStates(h.page("/booking/edit", http.StatusOK))["added"]; got != 6 {
		t.Fatalf("%d added", got)
	}
	calls := h.sb.Calls("AddTickets")
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
	if h.sb.Calls("AddTickets") != calls {
		t.Fatal("the upstream was asked for the refused tickets")
	}
	if got := lineStates(h.page("/booking/edit", http.StatusOK))["added"]; got != 6 {
		t.Fatalf("%d added after the refusal", got)
	}
	// The purchase counts with the edit's 6: 5 are too many, 4 are fine.
	resp, body = h.chooseQty(qty(5, 0))
	doc = holdLimitPage(t, h, resp, body, http.StatusConflict, "seats")
	if msg := doc.Find(`[data-testid="hold-limit-holding"]`).Text(); msg != "Your booking change already adds 6 seats." {
		t.Fatalf("holding: %q", msg)
	}
	if doc.Find(`a[data-testid="hold-limit-back"][href="/whats-on/0001/1113"]`).Length() != 1 {
		t.Fatal("no way back to choose fewer tickets")
	}
	if h.sb.Calls("AddTickets") != calls {
		t.Fatal("the upstream was asked for the refused purchase")
	}
	resp, body = h.chooseQty(qty(4, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
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
	h.page("/checkout/cancel", http.StatusOK)
	resp, body = h.post("/checkout/cancel", "/checkout/cancel", url.Values{"confirm": {"yes"}})
	expectRedirect(t, resp, body, "/whats-on")
	resp, body = addTickets(4)
	expectRedirect(t, resp, body, "/booking/edit")
	if got := lineStates(h.page("/booking/edit", http.StatusOK))["added"]; got != 10 {
		t.Fatalf("%d added after the purchase was cancelled", got)
	}
}

// TestOneOpenOrderPerVisit: choosing tickets again replaces the visit's order: the first is
// cancelled upstream, and only one counts against the client.
func TestOneOpenOrderPerVisit(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	before := h.freeSeats(t)
	for i := 1; i <= 4; i++ { // more often than the client may have open orders
		resp, body := h.chooseQty(qty(2, 0))
		expectRedirect(t, resp, body, "/checkout/seats")
		if got := h.sb.Calls("CancelOrder"); got != int64(i-1) {
			t.Fatalf("choice %d: %d CancelOrder calls, want %d", i, got, i-1)
		}
		if got := h.openOrders(t, "127.0.0.1"); len(got) != 1 {
			t.Fatalf("choice %d: %d open orders recorded", i, len(got))
		}
	}
	// The seats of the replaced orders are free again: only the visit's 2 are held.
	if got := h.freeSeats(t); got != before-2 {
		t.Fatalf("%d seats free, want %d (2 held)", got, before-2)
	}
}

// freeSeats counts the seats of session 1113 that can be chosen now.
func (h *harness) freeSeats(t *testing.T) int {
	t.Helper()
	plan, err := h.srv.Kernel.Ticketing.GetSeatPlan(context.Background(), "0001", "1113")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range plan.Areas {
		for _, r := range a.Rows {
			for _, st := range r.Seats {
				if st.Selectable() {
					n++
				}
			}
		}
	}
	return n
}

// TestClientHasAtMostThreeOpenOrders: three visits from one address may each hold an order, a
// fourth is refused before the upstream is asked; another address is not affected; an order
// that is cancelled, completes or runs out frees its slot.
func TestClientHasAtMostThreeOpenOrders(t *testing.T) {
	clock := sandbox.NewManualClock(time.Now())
	h := holdHarness(t, harnessOpts{clock: clock})
	const addr = "203.0.113.7"
	var visits []*harness
	for i := range 3 {
		v := h.visitor(addr)
		resp, body := v.chooseQty(qty(1, 0))
		expectRedirect(t, resp, body, "/checkout/seats")
		visits = append(visits, v)
		if got := len(h.openOrders(t, addr)); got != i+1 {
			t.Fatalf("%d open orders recorded, want %d", got, i+1)
		}
	}
	fourth := h.visitor(addr)
	refused := func(why string) {
		t.Helper()
		calls := h.sb.Calls("AddTickets")
		resp, body := fourth.chooseQty(qty(1, 0))
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
		if h.sb.Calls("AddTickets") != calls {
			t.Fatalf("%s: the upstream was asked", why)
		}
	}
	refused("a 4th order")
	// Another client address is not affected.
	other := h.visitor("198.51.100.1")
	resp, body := other.chooseQty(qty(1, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	// A visit that chooses again replaces its own order: still three.
	resp, body = visits[2].chooseQty(qty(2, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	refused("after a visit replaced its order")

	// Cancelled: the slot is free.
	visits[0].page("/checkout/cancel", http.StatusOK)
	resp, body = visits[0].post("/checkout/cancel", "/checkout/cancel", url.Values{"confirm": {"yes"}})
	expectRedirect(t, resp, body, "/whats-on")
	resp, body = fourth.chooseQty(qty(1, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	visits[0] = fourth
	fifth := h.visitor(addr)
	fourth = fifth
	refused("three open again")

	// Completed (paid): the slot is free, whether or not the completion ended the hold.
	payer := visits[1]
	payer.buyAfterSeats()
	ret := payer.actAtProvider(payer.pressPay(), "pay")
	payer.waitForConfirmation(ret, 10*time.Second)
	resp, body = fourth.chooseQty(qty(1, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	fourth = h.visitor(addr)
	refused("three open again after a purchase")

	// Run out upstream (the order expired; nobody came back to say so): the slot is free.
	clock.Advance(11 * time.Minute)
	resp, body = fourth.chooseQty(qty(1, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	if got := len(h.openOrders(t, addr)); got != 1 {
		t.Fatalf("%d open orders after the others ran out, want 1", got)
	}
}

// buyAfterSeats goes from the seat step to the summary (seats as offered, details).
func (h *harness) buyAfterSeats() {
	h.t.Helper()
	resp, body := h.post("/checkout/seats", "/checkout/seats", h.checkedSeats())
	expectRedirect(h.t, resp, body, "/checkout/details")
	resp, body = h.post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	expectRedirect(h.t, resp, body, "/checkout")
}

// TestStaffAreExemptFromHoldLimits: a box office sells to groups, all from one address.
func TestStaffAreExemptFromHoldLimits(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	const addr = "203.0.113.9"
	for range 3 {
		resp, body := h.visitor(addr).chooseQty(qty(1, 0))
		expectRedirect(t, resp, body, "/checkout/seats")
	}
	staff := h.visitor(addr)
	signInStaff(t, staff)
	resp, body := staff.chooseQty(qty(10, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	if got := len(h.openOrders(t, addr)); got != 3 {
		t.Fatalf("%d open orders recorded, want the customers' 3 (staff orders are not counted)", got)
	}
	// And the same visit changes a booking, adding more seats than a customer may hold.
	staff.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(bkPaid1)}, "email": {bookingEmails[bkPaid1]}})
	staff.page("/booking/current", http.StatusOK)
	staff.startEdit(t)
	typ := staff.page("/booking/edit", http.StatusOK).Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	resp, body = staff.post("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"3"}})
	expectRedirect(t, resp, body, "/booking/edit")
	if got := lineStates(staff.page("/booking/edit", http.StatusOK))["added"]; got != 3 {
		t.Fatalf("staff: %d added", got)
	}
	// 11 in one purchase is more than one booking takes, for staff too.
	resp, body = staff.chooseQty(qty(6, 5))
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "At most 10 seats in one booking") {
		t.Fatalf("staff, 11 seats: %d %s", resp.StatusCode, body)
	}
}

// TestReplacedOrderThatCannotBeCancelledStopsThePurchase: a visit's earlier order is never left
// holding seats: when it cannot be cancelled, no new order is made.
func TestReplacedOrderThatCannotBeCancelledStopsThePurchase(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	resp, body := h.chooseQty(qty(2, 0))
	expectRedirect(t, resp, body, "/checkout/seats")
	calls := h.sb.Calls("AddTickets")
	mustFault(h, sandbox.Fault{Operation: "CancelOrder", HTTPStatus: 503, Times: 10})
	resp, body = h.chooseQty(qty(3, 0))
	if resp.StatusCode < 500 || !strings.Contains(body, "Your earlier choice could not be released") {
		t.Fatalf("cancel failed: %d %s", resp.StatusCode, h.doc(body).Find("main").Text())
	}
	if h.sb.Calls("AddTickets") != calls {
		t.Fatal("a second order was made while the first still holds its seats")
	}
	if got := h.openOrders(t, "127.0.0.1"); len(got) != 1 {
		t.Fatalf("%d open orders recorded, want the first only", len(got))
	}
	if got := len(h.checkedSeats()["seat"]); got != 2 {
		t.Fatalf("the visit's order has %d seats, want its 2", got)
	}
}

// TestKiosksBehindOneAddressEachHoldAnOrder: the kiosks of one lobby share an internet address,
// but each enrolled kiosk is its own client for the open-order limit: four kiosks behind one
// address each have a guest's order open, while a fourth browser behind that address is refused.
func TestKiosksBehindOneAddressEachHoldAnOrder(t *testing.T) {
	h := holdHarness(t, harnessOpts{})
	const addr = "203.0.113.9"
	for range 4 {
		k := h.visitor(addr)
		k.enrol(device.Kiosk)
		resp, body := k.chooseQty(qty(1, 0))
		expectRedirect(t, resp, body, "/checkout/seats")
	}
	if got := len(h.openOrders(t, addr)); got != 0 {
		t.Fatalf("%d kiosk orders counted against the lobby's address, want 0", got)
	}
	for range 3 {
		resp, body := h.visitor(addr).chooseQty(qty(1, 0))
		expectRedirect(t, resp, body, "/checkout/seats")
	}
	resp, body := h.visitor(addr).chooseQty(qty(1, 0))
	holdLimitPage(t, h, resp, body, http.StatusTooManyRequests, "orders")
}
