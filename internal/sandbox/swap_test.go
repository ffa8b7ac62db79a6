package sandbox

import (
	"testing"
)

type swapSpec struct {
	seq   int
	seat  string
	extra map[string]any
}

func (h *harness) swapBody(session int, swaps ...swapSpec) map[string]any {
	var list []any
	for _, s := range swaps {
		ns := h.camelSeat(session, s.seat)
		for k, v := range s.extra {
			ns[k] = v
		}
		list = append(list, map[string]any{"ticketSequenceNumber": s.seq, "newSeat": ns})
	}
	return map[string]any{"swaps": list}
}

func TestSwapSeatsRefusals(t *testing.T) {
	h := newHarness(t)
	held := newID()
	h.wantOK(h.addTickets(held, "0001", 1113, []string{"0001"}, "B20"))
	editing := h.startEdit("0001", "BK0186A5")
	_ = editing
	before := h.booking("0001", 100001)
	cases := []struct {
		name    string
		booking string
		body    any
		status  int
		reason  string
	}{
		{"unpaid booking", "BK0186AA", h.swapBody(1113, swapSpec{seq: 1, seat: "B1"}), 400, "unpaid_booking"},
		{"in-seat delivery", "BK0186B1", h.swapBody(1113, swapSpec{seq: 1, seat: "P1"}), 400, "in_seat_delivery"},
		{"booking in edit", "BK0186A5", h.swapBody(1113, swapSpec{seq: 1, seat: "P1"}), 409, "already_in_edit"},
		{"other area category", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "P1"}), 400, "different_area_category"},
		{"category code given wrong", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "B1", extra: map[string]any{"areaCategoryCode": catPremium}}), 400, "different_area_category"},
		{"other session", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "B1", extra: map[string]any{"sessionId": 1112}}), 400, "different_session"},
		{"sold seat", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "F14"}), 409, "seat_unavailable"},
		{"held seat", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "B20"}), 409, "seat_unavailable"},
		{"house seat", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "H12"}), 409, "seat_unavailable"},
		{"seat already in this booking", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "F12"}), 409, "seat_in_booking"},
		{"part of a package", "BK0186AC", h.swapBody(1113, swapSpec{seq: 1, seat: "S1"}), 400, "partial_package"},
		{"unknown ticket", "BK0186A1", h.swapBody(1113, swapSpec{seq: 9, seat: "B1"}), 400, "unknown_ticket"},
		{"duplicate target", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "B1"}, swapSpec{seq: 2, seat: "B1"}), 400, "duplicate_seat"},
		{"no such seat", "BK0186A1", map[string]any{"swaps": []any{map[string]any{"ticketSequenceNumber": 1, "newSeat": map[string]any{"areaNumber": 1, "rowIndex": 7, "columnIndex": 3}}}}, 400, "invalid_seat"},
		{"empty swaps", "BK0186A1", map[string]any{"swaps": []any{}}, 400, "invalid_request"},
		{"missing newSeat", "BK0186A1", map[string]any{"swaps": []any{map[string]any{"ticketSequenceNumber": 1}}}, 400, "invalid_request"},
		{"atomic: one good, one bad", "BK0186A1", h.swapBody(1113, swapSpec{seq: 1, seat: "B1"}, swapSpec{seq: 2, seat: "F14"}), 409, "seat_unavailable"},
		{"unknown booking", "BKNOPE", h.swapBody(1113, swapSpec{seq: 1, seat: "B1"}), 404, "not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			st, j := h.call("POST", "/cinemas/0001/bookings/"+tc.booking+"/swap-seats", tc.body)
			if st != tc.status || h.str(j, "reason") != tc.reason || h.str(j, "errorDescription") == "" {
				t.Fatalf("got %d %s, want %d %s", st, compact(j), tc.status, tc.reason)
			}
			wantExt := int64(extSwapRefused)
			if tc.status == 404 {
				wantExt = extBookingNotFound
			}
			if h.num(j, "extendedResultCode") != wantExt {
				t.Fatalf("extendedResultCode %d", h.num(j, "extendedResultCode"))
			}
		})
	}
	h.t = t
	if compact(before) != compact(h.booking("0001", 100001)) || h.seatStatus("0001", 1113, "B1") != seatEmpty {
		t.Fatal("a refused swap changed something")
	}
}

func TestSwapSeats(t *testing.T) {
	h := newHarness(t)
	b := h.booking("0001", 100004) // J10 adult (1), J11 senior (2), J12 child (3)
	if h.num(b, "Booking.Tickets.1.TicketSequenceNumber") != 2 {
		t.Fatalf("sequence numbers: %s", compact(b))
	}
	st, j := h.call("POST", "/cinemas/0001/bookings/BK0186A4/swap-seats", h.swapBody(1113, swapSpec{seq: 1, seat: "C1"}, swapSpec{seq: 3, seat: "C2"}))
	if st != 200 || h.num(j, "result") != 0 || h.num(j, "extendedResultCode") != 0 || j["errorDescription"] != nil {
		t.Fatalf("swap: %d %s", st, compact(j))
	}
	b = h.booking("0001", 100004)
	got := map[string]string{}
	for _, tk := range h.list(b, "Booking.Tickets") {
		m := tk.(map[string]any)
		got[m["Description"].(string)] = m["SeatRowId"].(string) + m["SeatNumber"].(string)
	}
	if got["Adult"] != "C1" || got["Senior"] != "J11" || got["Child"] != "C2" {
		t.Fatalf("seats after swap: %v", got)
	}
	if h.num(b, "Booking.TotalValueCents") != 1250+950+850+3*75 {
		t.Fatalf("swap changed money: %s", compact(b))
	}
	for label, want := range map[string]int64{"J10": seatEmpty, "J12": seatEmpty, "C1": seatSold, "C2": seatSold, "J11": seatSold} {
		if got := h.seatStatus("0001", 1113, label); got != want {
			t.Fatalf("%s status %d, want %d", label, got, want)
		}
	}
	// The freed seat can be sold to someone else.
	h.wantOK(h.addTickets(newID(), "0001", 1113, []string{"0001"}, "J10"))

	// A whole package moves in one call (sofa R5+R6 to sofa T9+T10).
	st, j = h.call("POST", "/cinemas/0001/bookings/BK0186AC/swap-seats", h.swapBody(1113, swapSpec{seq: 1, seat: "T9"}, swapSpec{seq: 2, seat: "T10"}))
	if st != 200 {
		t.Fatalf("package swap: %d %s", st, compact(j))
	}
	// The GBP cinema works the same.
	st, j = h.call("POST", "/cinemas/0002/bookings/BK030D41/swap-seats", h.swapBody(2113, swapSpec{seq: 2, seat: "E11"}))
	if st != 200 {
		t.Fatalf("GBP swap: %d %s", st, compact(j))
	}
}

func TestGetSingleBooking(t *testing.T) {
	h := newHarness(t)
	b := h.booking("0001", 100011)
	// Exactly the real wire's fields: labels, no seat positions, no session facts, no flags.
	wantKeys(t, h.val(b, "Booking").(map[string]any), "BookingNumber", "BookingId", "CinemaId", "VistaTransactionId", "VistaTransNumber",
		"TotalValueCents", "IsPaid", "CustomerName", "CustomerEmail", "Tickets", "Concessions", "Payments")
	wantKeys(t, h.val(b, "Booking.Tickets.0").(map[string]any), "TicketTypeCode", "TicketSequenceNumber", "SessionId", "PriceInCents",
		"Description", "PackageGroupNumber", "SeatRowId", "SeatNumber", "RefundGroupNumber", "CurrentValueInCents", "PaymentId", "OrderPaymentAmount")
	wantKeys(t, h.val(b, "Booking.Payments.0").(map[string]any), "PaymentId", "OrderPaymentAmount", "PaymentTenderCategory", "CardType",
		"CardNumberMasked", "BankReference")
	total := int64(2*1250 + 2*75 + 2*650 + 450)
	want := map[string]any{"Booking.BookingId": "BK0186AB", "Booking.CustomerEmail": "concessions@example.com", "Booking.IsPaid": true,
		"Booking.Concessions.0.ItemId": "C001", "Booking.Concessions.0.Quantity": 2.0,
		"Booking.Payments.0.PaymentId": "1", "Booking.Payments.0.OrderPaymentAmount": float64(total), "Booking.Payments.0.PaymentTenderCategory": "CREDIT",
		"Booking.Payments.0.BankReference": "pi_seed100011", "Booking.Payments.0.CardType": "VISA",
		"Booking.Tickets.0.SessionId": 1113.0, "Booking.Tickets.0.SeatRowId": "D", "Booking.Tickets.0.SeatNumber": "11",
		"Booking.Tickets.0.PackageGroupNumber": 0.0, "Booking.Tickets.0.CurrentValueInCents": 1250.0,
		"Booking.Tickets.0.RefundGroupNumber": 1.0, "Booking.Tickets.1.RefundGroupNumber": 2.0,
		"Booking.Tickets.1.PaymentId": "1", "Booking.Tickets.1.OrderPaymentAmount": float64(total)}
	for path, v := range want {
		if got := h.val(b, path); got != v {
			t.Fatalf("%s = %v, want %v", path, got, v)
		}
	}
	if h.num(b, "Booking.TotalValueCents") != total || h.num(b, "Booking.VistaTransNumber") != h.num(b, "Booking.VistaTransactionId") {
		t.Fatalf("total and transaction: %s", compact(b))
	}
	// The seeded payment exists at the provider with the booking's amount.
	if p, ok := h.pay.Get("pi_seed100011"); !ok || p.AmountInCents != total || p.Status != "paid" || p.CardNumberMasked != "************4242" {
		t.Fatalf("seeded payment: %+v", p)
	}
	// A package is one refund group.
	pkg := h.booking("0001", 100012)
	for _, path := range []string{"Booking.Tickets.0.PackageGroupNumber", "Booking.Tickets.1.PackageGroupNumber", "Booking.Tickets.0.RefundGroupNumber", "Booking.Tickets.1.RefundGroupNumber"} {
		if h.num(pkg, path) != 1 {
			t.Fatalf("%s: %s", path, compact(pkg))
		}
	}
	// An unpaid reservation has no payment to point at.
	unpaid := h.booking("0001", 100010)
	if len(h.list(unpaid, "Booking.Payments")) != 0 || h.val(unpaid, "Booking.IsPaid") != false {
		t.Fatalf("unpaid: %s", compact(unpaid))
	}
	for _, k := range []string{"PaymentId", "OrderPaymentAmount"} {
		if _, ok := h.val(unpaid, "Booking.Tickets.0").(map[string]any)[k]; ok {
			t.Fatalf("unpaid ticket with %s: %s", k, compact(unpaid))
		}
	}
	// Made at the old fee of 50 per ticket.
	if fee := h.booking("0001", 100018); h.num(fee, "Booking.TotalValueCents") != 2*1250+2*50 {
		t.Fatalf("old fee: %s", compact(fee))
	}
	// Number as a JSON number, unknown booking, missing number.
	j := h.post("/RESTBooking.svc/booking", map[string]any{"CinemaId": "0002", "BookingNumber": 200001})
	if h.num(j, "ResultCode") != 0 || h.str(j, "Booking.CinemaId") != "0002" {
		t.Fatalf("numeric BookingNumber: %s", compact(j))
	}
	j = h.post("/RESTBooking.svc/booking", map[string]any{"CinemaId": "0002", "BookingNumber": "100001"})
	if v, ok := j["Booking"]; !ok || v != nil || h.num(j, "ResultCode") != 1 || h.num(j, "ExtendedResultCode") != extBookingNotFound || h.str(j, "ErrorDescription") != "booking not found" {
		t.Fatalf("not found: %s", compact(j))
	}
	j = h.post("/RESTBooking.svc/booking", map[string]any{"CinemaId": "0001"})
	if h.num(j, "ResultCode") != 4 {
		t.Fatalf("missing number: %s", compact(j))
	}
}
