package swap_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestSwapRouteNames(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	if got := h.Srv.Kernel.URL("swap.show", "0001", int64(100001)); got != "/bookings/0001/100001/seats" {
		t.Fatalf("swap entry URL %q", got)
	}
	if h.Srv.Kernel.URL("swap.confirm", "0001", 1) != "/bookings/0001/1/seats/confirm" || h.Srv.Kernel.URL("swap.done", "0001", 1) != "/bookings/0001/1/seats/done" {
		t.Fatal("confirm/done URLs")
	}
}

func TestSwapPageFetchesOnlyBookingAndSeatPlan(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	h.Get(bfftest.SwapPath(100001, "")) // warms the server's cinema list cache (kept for minutes)
	bookings, plans := h.SB.Calls("GetSingleBooking"), h.SB.Calls("SeatPlan")
	total := int64(0)
	for _, op := range []string{"Cinemas", "Films", "Sessions", "TicketTypes", "GetOrder"} {
		total += h.SB.Calls(op)
	}
	resp, body := h.Get(bfftest.SwapPath(100001, ""))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	if got := h.SB.Calls("GetSingleBooking") - bookings; got != 1 {
		t.Errorf("%d booking reads per page view", got)
	}
	if got := h.SB.Calls("SeatPlan") - plans; got != 1 {
		t.Errorf("%d seat plan reads per page view", got)
	}
	after := int64(0)
	for _, op := range []string{"Cinemas", "Films", "Sessions", "TicketTypes", "GetOrder"} {
		after += h.SB.Calls(op)
	}
	if after != total {
		t.Errorf("%d other upstream calls per page view", after-total)
	}
	if n := doc.Find(`[data-testid="seatmap"] .seat-row > .seat`).Length(); n != 412 {
		t.Errorf("map of %d seats", n)
	}
	if doc.Find(`[role="img"][aria-label="Row F, seat 11, standard, your current seat"]`).Length() != 1 {
		t.Error("own seat F11 not shown as yours")
	}
	if doc.Find(`form[data-testid="swap-form"] input[name="_csrf"]`).Length() != 1 {
		t.Error("form without CSRF field")
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Error("swap page may be cached")
	}
}

func TestSwapOneSeat(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	// F11 (ticket 1) to F3: row F is row index 5, seat 3 is column 2.
	doc := bfftest.SwapThrough(t, h, 100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)})
	if got := bfftest.Moves(doc)["move-1"]; got != [2]string{"Row F, seat 11", "Row F, seat 3"} {
		t.Fatalf("result %v", got)
	}
	if len(bfftest.Moves(doc)) != 1 {
		t.Fatalf("result shows %d moves", len(bfftest.Moves(doc)))
	}
	if got := bfftest.BookingSeats(t, h, 100001); got[1] != "F3" || got[2] != "F12" {
		t.Fatalf("upstream has %v", got)
	}
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Fatalf("%d SwapSeats calls", n)
	}
	// Refreshing the result page reads back again and swaps nothing.
	h.Get(bfftest.SwapPath(100001, "/done"))
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Fatalf("refresh swapped again (%d calls)", n)
	}
}

func TestSwapSeveralAtOnce(t *testing.T) {
	h := bfftest.SwapHarness(t, 100004) // J10, J11, J12: tickets 1, 2, 3
	doc := bfftest.SwapThrough(t, h, 100004, []string{"1", "2", "3"}, []string{bfftest.Seat(1, 2, 2), bfftest.Seat(1, 2, 0), bfftest.Seat(1, 2, 1)})
	want := map[string][2]string{
		"move-1": {"Row J, seat 10", "Row C, seat 1"},
		"move-2": {"Row J, seat 11", "Row C, seat 2"},
		"move-3": {"Row J, seat 12", "Row C, seat 3"},
	}
	got := bfftest.Moves(doc)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
	}
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Fatalf("%d SwapSeats calls for three moves", n)
	}
	if s := bfftest.BookingSeats(t, h, 100004); s[1] != "C1" || s[2] != "C2" || s[3] != "C3" {
		t.Fatalf("upstream has %v", s)
	}
}

func TestSwapPackage(t *testing.T) {
	h := bfftest.SwapHarness(t, 100012) // sofa R5 + R6, one package
	_, body := h.Get(bfftest.SwapPath(100012, ""))
	doc := h.Doc(body)
	unit := doc.Find(`[data-testid="ticket-1-2"]`)
	if unit.Length() != 1 || unit.Find(`input[name="ticket"][value="1+2"]`).Length() != 1 {
		t.Fatalf("the package is not one choice: %s", doc.Find("main").Text())
	}
	if !strings.Contains(unit.Text(), "move together") || !strings.Contains(unit.Text(), "seats 5 and 6") {
		t.Fatalf("package choice does not say its tickets move together: %q", unit.Text())
	}
	if doc.Find(`[data-testid="ticket-1"], [data-testid="ticket-2"]`).Length() != 0 {
		t.Fatal("package tickets offered one by one")
	}
	// To the sofa S3 + S4 (row index 3, columns 3 and 4).
	res := bfftest.SwapThrough(t, h, 100012, []string{"1+2"}, []string{bfftest.Seat(2, 3, 3), bfftest.Seat(2, 3, 4)})
	got := bfftest.Moves(res)
	if got["move-1"] != [2]string{"Row R, seat 5", "Row S, seat 3"} || got["move-2"] != [2]string{"Row R, seat 6", "Row S, seat 4"} {
		t.Fatalf("result %v", got)
	}
	if s := bfftest.BookingSeats(t, h, 100012); s[1] != "S3" || s[2] != "S4" {
		t.Fatalf("upstream has %v", s)
	}
}

// TestSwapRefusedBeforeSending: every choice the BFF can see is wrong is explained, the form
// is shown again with the choices kept, and nothing is sent.
func TestSwapRefusedBeforeSending(t *testing.T) {
	cases := []struct {
		name      string
		number    int64
		tickets   []string
		seats     []string
		status    int
		heading   string
		body      string
		keptSeats []string // still ticked on the map
	}{
		{"other area category", 100001, []string{"1"}, []string{bfftest.Seat(2, 0, 0)}, 422, "New seats must be in the same area", "Row P, seat 1 is in the Premium area", nil},
		{"taken seat", 100001, []string{"1"}, []string{bfftest.Seat(1, 5, 15)}, 422, "That seat is taken", "Row F, seat 14 is not free", nil},
		{"house seat", 100001, []string{"1"}, []string{bfftest.Seat(1, 8, 12)}, 422, "That seat is taken", "Row H, seat 11 is not free", nil},
		{"partial package", 100012, []string{"1"}, []string{bfftest.Seat(2, 3, 3)}, 422, "Tickets of a package move together", "must move together", nil},
		{"seat already in the booking", 100001, []string{"1"}, []string{bfftest.Seat(1, 5, 13)}, 422, "That seat is already yours", "Row F, seat 12 is already in your booking", nil},
		{"fewer seats than tickets", 100001, []string{"1", "2"}, []string{bfftest.Seat(1, 5, 2)}, 422, "Choose 2 new seats", "You are moving 2 tickets and chose 1 new seat", []string{bfftest.Seat(1, 5, 2)}},
		{"no ticket", 100001, nil, []string{bfftest.Seat(1, 5, 2)}, 422, "Choose which tickets move", "Tick at least one ticket", []string{bfftest.Seat(1, 5, 2)}},
		{"unknown ticket", 100001, []string{"9"}, []string{bfftest.Seat(1, 5, 2)}, 422, "Please choose tickets from the list", "not in this booking", nil},
		{"not a seat", 100001, []string{"1"}, []string{"F3"}, 422, "Please choose seats from the map", "not a seat", nil},
		{"no such seat", 100001, []string{"1"}, []string{bfftest.Seat(1, 5, 5)}, 422, "Please choose seats from the map", "not a seat", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.SwapHarness(t, tc.number)
			resp, doc := h.ReviewSwap(tc.number, tc.tickets, tc.seats)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			notice := doc.Find(`[data-testid="notice-error"]`)
			if got := notice.Find(".notice-heading").Text(); !strings.Contains(got, tc.heading) {
				t.Errorf("heading %q, want %q", got, tc.heading)
			}
			if got := notice.Text(); !strings.Contains(got, tc.body) {
				t.Errorf("notice %q lacks %q", got, tc.body)
			}
			if doc.Find(`[data-testid="swap-form"] [data-testid="seatmap"]`).Length() != 1 {
				t.Error("the map is not shown again")
			}
			if tc.tickets != nil && tc.tickets[0] == "1" && tc.number == 100001 && doc.Find(`input[name="ticket"][value="1"][checked]`).Length() != 1 {
				t.Error("ticket choice not kept")
			}
			for _, s := range tc.keptSeats {
				if doc.Find(`label.seat input[name="seat"][value="`+s+`"][checked]`).Length() != 1 {
					t.Errorf("seat %s not kept", s)
				}
			}
			if n := h.SB.Calls("SwapSeats"); n != 0 {
				t.Fatalf("%d SwapSeats calls for a choice the BFF could refuse", n)
			}
		})
	}
}

// TestSwapRefusedBooking: an unpaid booking shows the reason instead of the action, and a POST
// is refused without a call.
func TestSwapRefusedBooking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		number int64
		seat   string
		reason string
	}{
		{"unpaid", 100010, bfftest.Seat(1, 5, 2), "only on a paid booking"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := bfftest.SwapHarness(t, tc.number)
			resp, body := h.Get(bfftest.SwapPath(tc.number, ""))
			doc := h.Doc(body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := doc.Find(`[data-testid="swap-reason"]`).Text(); !strings.Contains(got, tc.reason) {
				t.Fatalf("reason %q lacks %q", got, tc.reason)
			}
			if doc.Find(`[data-testid="swap-form"]`).Length() != 0 {
				t.Fatal("the swap form is offered")
			}
			resp, body = h.Post(bfftest.SwapPath(tc.number, ""), "/device", url.Values{"ticket": {"1"}, "seat": {tc.seat}})
			if resp.StatusCode != http.StatusConflict || !strings.Contains(h.Doc(body).Find(`[data-testid="swap-reason"]`).Text(), tc.reason) {
				t.Fatalf("POST: status %d", resp.StatusCode)
			}
			if n := h.SB.Calls("SwapSeats"); n != 0 {
				t.Fatalf("%d SwapSeats calls", n)
			}
		})
	}
}

// TestSwapSeatTakenMeanwhile: the seat is taken between the check and the go-ahead; only the
// upstream sees it. The person reads why, and the map is shown again with the seat taken.
// TestSwapInSeatDeliveryRefusedByTicketing: the real booking record does not say whether
// food is delivered to the seat, so the swap is offered and the ticketing system's refusal is
// shown in words, with nothing changed.
func TestSwapInSeatDeliveryRefusedByTicketing(t *testing.T) {
	h := bfftest.SwapHarness(t, 100017)
	resp, _ := h.ReviewSwap(100017, []string{"1"}, []string{bfftest.Seat(2, 1, 3)})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review status %d", resp.StatusCode)
	}
	resp, body := h.ConfirmSwap(100017)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := h.Doc(body).Find(`[data-testid="notice-error"]`).Text(); !strings.Contains(got, "delivered to the seat") || !strings.Contains(got, "not changed") {
		t.Fatalf("notice %q", got)
	}
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Fatalf("%d SwapSeats calls", n)
	}
}

func TestSwapSeatTakenMeanwhile(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	resp, _ := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(1, 5, 2)})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review status %d", resp.StatusCode)
	}
	// Someone else holds F3 now.
	_, err := h.Srv.Kernel.Ticketing.AddTickets(context.Background(), upstream.AddTicketsRequest{
		UserSessionID: upstream.NewUserSessionID(), CinemaID: "0001", SessionID: "1113",
		Tickets: []upstream.TicketRequest{{TypeCode: "0001"}},
		Seats:   []upstream.SelectedSeat{{AreaCategoryCode: "0000000001", Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 2}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, body := h.ConfirmSwap(100001)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("status %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	if got := doc.Find(`[data-testid="notice-error"]`).Text(); !strings.Contains(got, "just been taken by someone else") || !strings.Contains(got, "not changed") {
		t.Fatalf("notice %q", got)
	}
	if doc.Find(`label.seat-taken input[value="1-5-2"][disabled]`).Length() != 1 {
		t.Fatal("the map does not show F3 taken now")
	}
	if doc.Find(`input[name="ticket"][value="1"][checked]`).Length() != 1 {
		t.Fatal("the ticket choice was lost")
	}
	if n := h.SB.Calls("SwapSeats"); n != 1 {
		t.Fatalf("%d SwapSeats calls", n)
	}
	if s := bfftest.BookingSeats(t, h, 100001); s[1] != "F11" {
		t.Fatalf("seat changed anyway: %v", s)
	}
	// The pending swap is gone: the confirm page sends back to the map.
	if resp, _ := h.Get(bfftest.SwapPath(100001, "/confirm")); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("stale confirm page: status %d", resp.StatusCode)
	}
}

// TestSwapNeedsTheBoundBooking: a visit that has not opened the booking gets a clear 403 with
// the way to find it; so does one bound to another booking.
func TestSwapNeedsTheBoundBooking(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	bfftest.AddBookingBinder(h)
	check := func(path string) {
		t.Helper()
		resp, body := h.Get(path)
		doc := h.Doc(body)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		if doc.Find(`a[href="/booking"]`).Length() == 0 || !strings.Contains(doc.Text(), "Find your booking first") {
			t.Fatalf("%s: no way to find the booking", path)
		}
	}
	check(bfftest.SwapPath(100001, ""))
	bfftest.BindBooking(h, 100002)
	check(bfftest.SwapPath(100001, ""))
	check(bfftest.SwapPath(100001, "/done"))
	check("/bookings/0002/100002/seats")
	resp, _ := h.Post(bfftest.SwapPath(100001, "/confirm"), "/device", nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("confirm for another booking: status %d", resp.StatusCode)
	}
	if h.SB.Calls("SwapSeats") != 0 {
		t.Fatal("swap sent for a booking the visit does not hold")
	}
}
