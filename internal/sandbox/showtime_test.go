package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Changing the showtime of a booking inside one edit (docs/sandbox.md "Changing showtime"):
// EditBooking, AddTickets for the new session, SetSelectedSeats there, RemoveTickets of the old
// tickets, then CompleteEditBooking or CancelOrder.

const (
	filmOtters   = "HO00000004"
	showtimeFrom = 1113 // session of booking 100001 (BK0186A1: Adult F11, F12 at 12,50)
	adultPrice   = 1250
	adultTax     = 200 // 19 % in 12,50
)

// TestShowtimeFixtures pins the default world's sessions of "Otters of the Elbe" at cinema 0001
// that booking 100001 can move to, their price cards and their free seats.
func TestShowtimeFixtures(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		id     int
		local  string // Europe/Berlin; the test world starts 2026-11-22 10:00 local
		screen int
		adjust int64
		ov     bool
		free   int // seats neither sold, reserved nor held
	}{
		{1028, "2026-11-22 10:20", 2, 0, false, 110}, // inside the change cut-off (booking 100019: E7, E8)
		{1011, "2026-11-22 11:30", 1, 0, false, 407},
		{1121, "2026-11-23 15:15", 2, 0, false, 112},
		{showtimeFrom, "2026-11-23 20:30", 1, 0, false, 376}, // 31 seats of ready-made bookings
		{sessionMatinee, "2026-11-24 11:00", 1, -300, false, 407},
		{sessionOVLate, "2026-11-24 21:00", 2, 150, true, 112},
		{1312, "2026-11-25 17:30", 1, 0, false, 407},
	}
	var want []int
	for _, tc := range cases {
		want = append(want, tc.id)
	}
	var got []int
	for _, ss := range h.srv.cinemas["0001"].sessions {
		if ss.film.ID == filmOtters {
			got = append(got, ss.id)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("sessions of %s at 0001 by showtime: %v, want %v", filmOtters, got, want)
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.id), func(t *testing.T) {
			h.t = t
			ss := h.srv.sessions[tc.id]
			if at := ss.showtime.In(ss.cinema.loc).Format("2006-01-02 15:04"); at != tc.local || ss.screen.number != tc.screen || ss.adjust != tc.adjust {
				t.Fatalf("session %d: %s screen %d adjust %d", tc.id, at, ss.screen.number, ss.adjust)
			}
			if slices.Contains(ss.attributes, "OV") != tc.ov {
				t.Fatalf("session %d attributes %v", tc.id, ss.attributes)
			}
			if ss.available() != tc.free {
				t.Fatalf("session %d: %d of %d seats free", tc.id, ss.available(), sellableSeats(ss))
			}
			// The ticket-types answer prices every ticket type at the session's price card (per
			// seat, never below zero: the voucher ticket costs the surcharge, the matinee's stays free).
			tts := h.get(fmt.Sprintf("/RESTData.svc/cinemas/0001/sessions/%d/tickets", tc.id))
			prices := map[string][2]int64{}
			for _, v := range h.list(tts, "Tickets") {
				m := v.(map[string]any)
				prices[m["TicketTypeCode"].(string)] = [2]int64{int64(m["PriceInCents"].(float64)), int64(m["TaxInCents"].(float64))}
			}
			adult, couple, voucher := prices["0001"], prices["0004"], prices["0006"]
			wantTax := int64(adultTax)
			if tc.adjust != 0 {
				wantTax = taxIncluded(adultPrice+tc.adjust, 19)
			}
			if adult != [2]int64{adultPrice + tc.adjust, wantTax} || couple[0] != 2200+2*tc.adjust || voucher[0] != max(tc.adjust, 0) {
				t.Fatalf("session %d prices: adult %v couple %v voucher %v", tc.id, adult, couple, voucher)
			}
		})
	}
	if n := sellableSeats(h.srv.sessions[1312]); n != 407 {
		t.Fatalf("Saal 1 sells %d seats", n)
	}
	if n := sellableSeats(h.srv.sessions[sessionOVLate]); n != 112 {
		t.Fatalf("Saal 2 sells %d seats", n)
	}
}

func sellableSeats(ss *session) int {
	n := 0
	for i := range ss.screen.seats {
		if ss.screen.seats[i].sellable() {
			n++
		}
	}
	return n
}

// showtimeCase is one target session of 100001's showtime change.
type showtimeCase struct {
	name    string
	to      int
	seats   []string // where SetSelectedSeats puts the two new tickets
	adjust  int64    // per seat
	balance int64    // what completing the edit settles: 2 × adjust, fees unchanged
}

var showtimeCases = []showtimeCase{
	{"same price", 1312, []string{"B3", "B4"}, 0, 0},
	{"OV surcharge", sessionOVLate, []string{"B2", "B3"}, 150, 300},
	{"matinee discount", sessionMatinee, []string{"C20", "C21"}, -300, -600},
}

// changeShowtime runs the edit of 100001 up to the point where it can be completed and returns
// the edit's id. It checks the order on the way.
func (h *harness) changeShowtime(tc showtimeCase) string {
	h.t.Helper()
	t := h.t
	e := h.startEdit("0001", "BK0186A1")
	id := h.str(e, "order.userSessionId")
	price := adultPrice + tc.adjust

	// The edit's ticket list for the new session shows its price.
	tts := h.get(fmt.Sprintf("/RESTData.svc/cinemas/0001/sessions/%d/tickets?userSessionId=%s", tc.to, id))
	if h.str(tts, "Tickets.0.TicketTypeCode") != "0001" || h.num(tts, "Tickets.0.PriceInCents") != price {
		t.Fatalf("ticket types of %d: %s", tc.to, compact(tts))
	}

	// AddTickets for the new session, without seats: the sandbox allocates them.
	j := h.addTickets(id, "0001", tc.to, []string{"0001", "0001"})
	h.wantOK(j)
	sessions := h.list(j, "Order.Sessions")
	if len(sessions) != 2 || h.num(j, "Order.Sessions.0.SessionId") != showtimeFrom || h.num(j, "Order.Sessions.1.SessionId") != int64(tc.to) ||
		h.val(j, "Order.Sessions.1.SeatsAllocated") != true || h.str(j, "Order.Sessions.1.FilmTitle") != "Otters of the Elbe" {
		t.Fatalf("sessions after AddTickets: %s", compact(j))
	}
	for i := range 2 {
		old, added := fmt.Sprintf("Order.Sessions.0.Tickets.%d.", i), fmt.Sprintf("Order.Sessions.1.Tickets.%d.", i)
		if h.num(j, old+"BookingStatus") != statusBooked || h.num(j, added+"BookingStatus") != statusAdded ||
			h.num(j, added+"PriceCents") != price || h.str(j, added+"SeatData") == "" {
			t.Fatalf("tickets after AddTickets: %s", compact(j))
		}
	}
	if h.num(j, "Order.TotalValueCents") != 2*price+2*75 || h.num(j, "Order.BookingFeeValueCents") != 150 {
		t.Fatalf("value after AddTickets: %s", compact(j))
	}
	allocated := h.seatLabels(j, "Order.")[2:]
	if slices.Equal(allocated, tc.seats) {
		t.Fatalf("pick seats other than the allocated %v", allocated)
	}
	for _, s := range allocated {
		if h.seatStatus("0001", tc.to, s) != seatReserved {
			t.Fatalf("allocated seat %s not held", s)
		}
	}

	// SetSelectedSeats on the new session moves the new tickets only.
	var sel []any
	for _, s := range tc.seats {
		sel = append(sel, h.seat(tc.to, s))
	}
	j = h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": strconv.Itoa(tc.to), "SelectedSeats": sel, "ReturnOrder": true})
	h.wantOK(j)
	if got := h.seatLabels(j, "Order."); !slices.Equal(got, append([]string{"F11", "F12"}, tc.seats...)) {
		t.Fatalf("seats after SetSelectedSeats: %v", got)
	}
	for _, s := range allocated {
		if !slices.Contains(tc.seats, s) && h.seatStatus("0001", tc.to, s) != seatEmpty {
			t.Fatalf("seat %s still held after the move", s)
		}
	}
	for _, s := range tc.seats {
		if h.seatStatus("0001", tc.to, s) != seatReserved {
			t.Fatalf("chosen seat %s not held", s)
		}
	}

	// RemoveTickets of the old ones, named with the old session.
	j = h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id,
		"TicketRemovals": []any{map[string]any{"SessionId": strconv.Itoa(showtimeFrom), "Tickets": []string{"1", "2"}}}, "ReturnOrder": true})
	h.wantOK(j)
	if h.num(j, "Order.TotalValueCents") != tc.balance || h.num(j, "Order.BookingFeeValueCents") != 0 || h.num(j, "Order.TotalOrderCount") != 2 {
		t.Fatalf("value after RemoveTickets: %s", compact(j))
	}
	// The old seats stay the booking's until the edit completes.
	for _, s := range []string{"F11", "F12"} {
		if h.seatStatus("0001", showtimeFrom, s) != seatSold {
			t.Fatalf("%s of %d released during the edit", s, showtimeFrom)
		}
	}

	// The edit order in the camelCase form of contract 2.1: both sessions, fees recalculated
	// under the same rule (two removed at 0,75, two added at 0,75).
	h.srv.mu.Lock()
	eo := h.srv.editOrderJSON(h.srv.orders[id], h.clock.Now())
	h.srv.mu.Unlock()
	wantTax := 2 * (taxIncluded(int64(price), 19) - adultTax)
	if tc.adjust == 0 {
		wantTax = 0
	}
	if eo.OrderTotalValueInCents != tc.balance || eo.BookingFeeTotalValueInCents != 0 || eo.BookingFeeTaxValueInCents != 0 || eo.TaxValueInCents != wantTax {
		t.Fatalf("edit order values: %+v", eo)
	}
	if len(eo.Sessions) != 2 || eo.Sessions[0].ID != showtimeFrom || eo.Sessions[1].ID != tc.to {
		t.Fatalf("edit order sessions: %+v", eo.Sessions)
	}
	for _, tk := range eo.Sessions[0].Tickets {
		if tk.TicketDetails.BookingStatus != statusRemoved || tk.TicketDetails.FinalPriceInCents != adultPrice || len(tk.Seats) != 1 {
			t.Fatalf("old ticket: %+v", tk)
		}
	}
	var newSeats []string
	for _, tk := range eo.Sessions[1].Tickets {
		d := tk.TicketDetails
		if d.BookingStatus != statusAdded || d.FinalPriceInCents != int64(price) || d.OriginalPriceInCents != int64(price) || len(tk.Seats) != 1 {
			t.Fatalf("new ticket: %+v", tk)
		}
		newSeats = append(newSeats, tk.Seats[0].RowDisplay+tk.Seats[0].ColumnDisplay)
	}
	if !slices.Equal(newSeats, tc.seats) {
		t.Fatalf("new seats in the edit order: %v", newSeats)
	}
	count := map[int]int{}
	for _, f := range eo.BookingFees {
		if f.FinalPriceInCents != 75 || f.TaxInCents != 12 {
			t.Fatalf("fee item %+v", f)
		}
		count[f.BookingStatus]++
	}
	if count[statusRemoved] != 2 || count[statusAdded] != 2 || count[statusBooked] != 0 {
		t.Fatalf("fee items %+v", eo.BookingFees)
	}
	return id
}

func TestEditChangeShowtimeComplete(t *testing.T) {
	for _, tc := range showtimeCases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			id := h.changeShowtime(tc)
			// The body must match the balance's sign.
			var wrong, right map[string]any
			var wrongReason string
			switch {
			case tc.balance > 0:
				wrong, wrongReason = map[string]any{}, "payment_required"
				right = map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(tc.balance, "pi_change")}}}
			case tc.balance < 0:
				wrong, wrongReason = map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(-tc.balance, "pi_change")}}}, "amount_mismatch"
				right = map[string]any{"refundPayments": map[string]any{"externalPayments": []any{extPay(-tc.balance, "pi_seed100001")}}}
				if _, err := h.pay.Refund("pi_seed100001", -tc.balance, "edit-"+id); err != nil {
					t.Fatalf("refund at the provider: %v", err)
				}
			default:
				wrong, wrongReason = map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(1, "pi_change")}}}, "amount_mismatch"
				right = map[string]any{}
			}
			if st, r := h.completeEdit(id, wrong); st != http.StatusBadRequest || h.str(r, "reason") != wrongReason {
				t.Fatalf("wrong body: %d %s", st, compact(r))
			}
			if st, r := h.completeEdit(id, right); st != http.StatusOK || h.num(r, "bookingNumber") != 100001 {
				t.Fatalf("complete-edit: %d %s", st, compact(r))
			}

			b := h.booking("0001", 100001)
			price := adultPrice + tc.adjust
			if len(h.list(b, "Booking.Tickets")) != 2 || h.num(b, "Booking.TotalValueCents") != int64(2*price+150) {
				t.Fatalf("booking after the change: %s", compact(b))
			}
			var seats []string
			for i := range 2 {
				p := fmt.Sprintf("Booking.Tickets.%d.", i)
				if h.num(b, p+"SessionId") != int64(tc.to) || h.num(b, p+"PriceInCents") != int64(price) || h.num(b, p+"TicketSequenceNumber") != int64(3+i) {
					t.Fatalf("ticket %d: %s", i, compact(b))
				}
				seats = append(seats, h.str(b, p+"SeatRowId")+h.str(b, p+"SeatNumber"))
			}
			if !slices.Equal(seats, tc.seats) {
				t.Fatalf("booking seats %v, want %v", seats, tc.seats)
			}
			pays := h.list(b, "Booking.Payments")
			if tc.balance == 0 && len(pays) != 1 || tc.balance != 0 && (len(pays) != 2 || h.num(b, "Booking.Payments.1.OrderPaymentAmount") != tc.balance) {
				t.Fatalf("payments: %s", compact(b))
			}

			// Seat plans: the old seats are free (owners cleared), the new ones sold, nothing held.
			old := h.srv.sessions[showtimeFrom]
			for _, s := range []string{"F11", "F12"} {
				if h.seatStatus("0001", showtimeFrom, s) != seatEmpty || old.owners[old.screen.byLabel[s]] != (owner{}) {
					t.Fatalf("%s of %d not freed", s, showtimeFrom)
				}
			}
			for _, s := range tc.seats {
				if h.seatStatus("0001", tc.to, s) != seatSold {
					t.Fatalf("%s of %d not sold", s, tc.to)
				}
			}
			ss := h.srv.sessions[tc.to]
			if ss.available() != sellableSeats(ss)-2 {
				t.Fatalf("session %d: %d seats free of %d", tc.to, ss.available(), sellableSeats(ss))
			}
			// The moved booking can be edited again, in its new session.
			e := h.startEdit("0001", "BK0186A1")
			if h.num(e, "order.sessions.0.id") != int64(tc.to) || len(h.list(e, "order.sessions")) != 1 || h.num(e, "order.orderTotalValueInCents") != 0 {
				t.Fatalf("edit after the change: %s", compact(e))
			}
		})
	}
}

func TestEditChangeShowtimeCancel(t *testing.T) {
	for _, tc := range showtimeCases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			before := h.booking("0001", 100001)
			id := h.changeShowtime(tc)
			h.wantOK(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": id}))
			if after := h.booking("0001", 100001); compact(after) != compact(before) {
				t.Fatalf("cancel changed the booking:\n%s\n%s", compact(before), compact(after))
			}
			for _, s := range []string{"F11", "F12"} {
				if h.seatStatus("0001", showtimeFrom, s) != seatSold {
					t.Fatalf("%s of %d not sold after the cancel", s, showtimeFrom)
				}
			}
			ss := h.srv.sessions[tc.to]
			for _, s := range tc.seats {
				if h.seatStatus("0001", tc.to, s) != seatEmpty {
					t.Fatalf("%s of %d still held", s, tc.to)
				}
			}
			if ss.available() != sellableSeats(ss) {
				t.Fatalf("session %d: %d seats free of %d after the cancel", tc.to, ss.available(), sellableSeats(ss))
			}
			h.wantCodes(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), resInvalidRequest, extOrderNotFound)
		})
	}
}

// AddTickets in an edit is refused for a session of another cinema and for one that has begun;
// a session inside the BFF's change cut-off is the BFF's business, not the sandbox's.
func TestEditAddTicketsOtherSessionRefusals(t *testing.T) {
	cases := []struct {
		name     string
		cinema   string
		session  int
		ext      int64
		contains string
	}{
		{"session of another cinema", "0001", 2113, 0, "session \"2113\" not found at cinema 0001"},
		{"order of another cinema", "0002", 2113, 0, "belongs to cinema 0001"},
		{"session started", "0001", sessionStarted, extEditRefused, "tickets for it cannot be added to a booking"},
		{"inside the change cut-off", "0001", sessionSoon, 0, ""},
		{"later session", "0001", 1312, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			id := h.str(h.startEdit("0001", "BK0186A1"), "order.userSessionId")
			j := h.addTickets(id, tc.cinema, tc.session, []string{"0001"})
			if tc.contains == "" {
				h.wantOK(j)
				return
			}
			h.wantCodes(j, resInvalidRequest, tc.ext)
			if d := h.str(j, "ErrorDescription"); !strings.Contains(d, tc.contains) {
				t.Fatalf("ErrorDescription %q", d)
			}
			if n := len(h.list(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), "Order.Sessions")); n != 1 {
				t.Fatalf("the refused call changed the order: %d sessions", n)
			}
		})
	}
}

func withEditsStayInSession() harnessOption {
	return func(o *Options) { o.EditsStayInSession = true }
}

// TestEditsStayInSession: the switch makes the sandbox refuse tickets of another session in an
// edit, in the ticketing envelope (HTTP 200, Result 4, ExtendedResultCode 43); tickets of the
// booking's own session are still accepted, and the switch turns on and off at run time.
func TestEditsStayInSession(t *testing.T) {
	refused := func(h *harness, id string, session int) {
		h.t.Helper()
		st, j := h.call(http.MethodPost, "/RESTTicketing.svc/order/tickets", map[string]any{"UserSessionId": id, "CinemaId": "0001",
			"SessionId": strconv.Itoa(session), "TicketTypes": []any{map[string]any{"TicketTypeCode": "0001", "Qty": 2}}, "ReturnOrder": true})
		if st != http.StatusOK {
			h.t.Fatalf("HTTP %d", st)
		}
		h.wantCodes(j, resInvalidRequest, extEditRefused)
		if d := h.str(j, "ErrorDescription"); !strings.HasPrefix(d, errOtherSessionText) || !strings.Contains(d, "session 1312") {
			h.t.Fatalf("ErrorDescription %q", d)
		}
		if ss := h.srv.sessions[session]; ss.available() != sellableSeats(ss) {
			h.t.Fatal("a refused AddTickets holds seats")
		}
	}
	t.Run("option", func(t *testing.T) {
		h := newHarness(t, withEditsStayInSession())
		if !h.srv.EditsStayInSession() {
			t.Fatal("Options.EditsStayInSession not taken")
		}
		id := h.str(h.startEdit("0001", "BK0186A1"), "order.userSessionId")
		refused(h, id, 1312)
		h.wantOK(h.addTickets(id, "0001", showtimeFrom, []string{"0001"})) // the booking's own session
		h.srv.SetEditsStayInSession(false)
		h.wantOK(h.addTickets(id, "0001", 1312, []string{"0001"}))
	})
	t.Run("switched on a running sandbox", func(t *testing.T) {
		h := newHarness(t)
		id := h.str(h.startEdit("0001", "BK0186A1"), "order.userSessionId")
		h.srv.SetEditsStayInSession(true)
		refused(h, id, 1312)
		// A regular order is no edit: any session.
		h.wantOK(h.addTickets(newID(), "0001", 1312, []string{"0001"}))
	})
}

// A ready-made booking in a session with a price card is priced by it too.
func TestReadyMadeBookingAtSessionPrice(t *testing.T) {
	w := DefaultWorld(testNow)
	w.Cinemas[0].Bookings = append(w.Cinemas[0].Bookings, Booking{Number: 100099, ID: "BK0186Z9", SessionID: sessionOVLate, CustomerName: "Test", CreatedAt: testNow.Add(-time.Hour),
		CustomerEmail: "ov@example.com", Paid: false, Tickets: []BookingTicket{{TicketTypeCode: "0001", Seats: []string{"D5"}}}})
	h := newHarness(t, func(o *Options) { o.World = w })
	b := h.booking("0001", 100099)
	if h.num(b, "Booking.Tickets.0.PriceInCents") != adultPrice+ovLateSurcharge || h.num(b, "Booking.TotalValueCents") != adultPrice+ovLateSurcharge+75 {
		t.Fatalf("booking in the OV late show: %s", compact(b))
	}
}
