package sandbox

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func (h *harness) startEdit(cinemaID, bookingID string) J {
	h.t.Helper()
	st, j := h.call("POST", "/cinemas/"+cinemaID+"/bookings/"+bookingID+"/edit", nil)
	if st != 200 || h.num(j, "result") != 0 {
		h.t.Fatalf("edit %s: %d %s", bookingID, st, compact(j))
	}
	return j
}

func (h *harness) completeEdit(id string, body any) (int, J) {
	h.t.Helper()
	return h.call("POST", "/orders/"+id+"/complete-edit", body)
}

func extPay(amount int64, ref string) map[string]any {
	return map[string]any{"amountInCents": amount, "paymentProviderReference": ref, "paymentTenderCategory": "CREDIT", "cardNumberMasked": "************4242", "cardType": "VISA"}
}

func TestEditRefusals(t *testing.T) {
	h := newHarness(t)
	h.startEdit("0001", "BK0186A3") // makes BK0186A3 "already in edit"
	cases := []struct {
		booking string
		cinema  string
		status  int
		ext     int64
		reason  string
	}{
		{"BK0186AB", "0001", 400, extEditRefused, "concessions"},
		{"BK0186B0", "0001", 400, extEditRefused, "non_external_payment"},
		{"BK0186AC", "0001", 400, extEditRefused, "package_ticket"},
		{"BK0186AD", "0001", 400, extEditRefused, "loyalty_ticket"},
		{"BK0186AE", "0001", 400, extEditRefused, "voucher_ticket"},
		{"BK0186AF", "0001", 400, extEditRefused, "third_party_member_ticket"},
		{"BK0186A3", "0001", 400, extEditRefused, "already_in_edit"},
		{"BKNOPE", "0001", 404, extBookingNotFound, "not_found"},
		{"BK0186A1", "0002", 404, extBookingNotFound, "not_found"}, // right booking, wrong cinema
	}
	for _, tc := range cases {
		t.Run(tc.reason+"/"+tc.booking, func(t *testing.T) {
			h.t = t
			st, j := h.call("POST", "/cinemas/"+tc.cinema+"/bookings/"+tc.booking+"/edit", nil)
			if st != tc.status || h.num(j, "extendedResultCode") != tc.ext || h.str(j, "reason") != tc.reason || h.str(j, "errorDescription") == "" {
				t.Fatalf("got %d %s, want %d %d %s", st, compact(j), tc.status, tc.ext, tc.reason)
			}
		})
	}
}

func TestEditPaidBookingAddTicket(t *testing.T) {
	h := newHarness(t)
	e := h.startEdit("0001", "BK0186A1")
	o := h.val(e, "order").(map[string]any)
	id := o["userSessionId"].(string)
	if !validSessionID(id) || o["cinemaId"] != "0001" || o["expiryDateUtc"] != "2026-11-22T09:10:00Z" {
		t.Fatalf("edit order: %s", compact(e))
	}
	for _, k := range []string{"orderTotalValueInCents", "taxValueInCents", "bookingFeeTotalValueInCents", "bookingFeeTaxValueInCents"} {
		if h.num(e, "order."+k) != 0 {
			t.Fatalf("%s should be 0 right after the edit starts: %s", k, compact(e))
		}
	}
	tk := h.val(e, "order.sessions.0.tickets.0").(map[string]any)
	det := tk["ticketDetails"].(map[string]any)
	if det["bookingStatus"] != 0.0 || det["ticketId"] != 1.0 || det["voucherBarcode"] != "" || det["loyaltyRecognitionId"] != nil || det["dealDefinitionId"] != nil || det["isTicketPackage"] != false {
		t.Fatalf("ticket details: %v", det)
	}
	seat := tk["seats"].([]any)[0].(map[string]any)
	if seat["rowDisplay"] != "F" || seat["columnDisplay"] != "11" || seat["areaNumber"] != 1.0 || seat["areaCategoryCode"] != catStandard {
		t.Fatalf("seat: %v", seat)
	}
	if fees := h.list(e, "order.bookingFees"); len(fees) != 2 || fees[0].(map[string]any)["bookingStatus"] != 0.0 || fees[0].(map[string]any)["finalPriceInCents"] != 75.0 {
		t.Fatalf("fees: %s", compact(e))
	}
	deals := h.list(e, "suggestedDeals")
	if len(deals) < 2 || h.val(e, "suggestedDeals.0.limitPerOrder") != 4.0 || h.val(e, "suggestedDeals.2.limitPerOrder") != nil {
		t.Fatalf("deals: %s", compact(e))
	}
	// Edit state: SelectedSeats on AddTickets and the payment operations are refused.
	h.wantCodes(h.addTickets(id, "0001", 1113, []string{"0001"}, "F13"), 4, extNotInEdit)
	h.wantCodes(h.addTickets(id, "0001", 1113, []string{"0004"}), 4, extEditRefused)
	for _, path := range []string{"/RESTTicketing.svc/order/giftcard", "/RESTTicketing.svc/order/loyalty-points", "/RESTTicketing.svc/order/payment"} {
		h.wantCodes(h.post(path, map[string]any{"UserSessionId": id, "CardNumber": "6000000000000001", "Pin": "1234", "LoyaltyCardNumber": "7000000000000001"}), 4, extNotInEdit)
	}
	h.wantCodes(h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/r", true)), 4, extNotInEdit)
	h.wantCodes(h.details(id), 4, extNotInEdit)
	tt := h.get("/RESTData.svc/cinemas/0001/sessions/1113/tickets?userSessionId=" + id)
	for _, v := range h.list(tt, "Tickets") {
		if m := v.(map[string]any); m["IsPackageTicket"] == true || m["ProductCodeForVoucher"] != "" {
			t.Fatalf("edit ticket list offers %v", m)
		}
	}

	// AddTickets without seats: value = the added ticket and its fee only.
	j := h.addTickets(id, "0001", 1113, []string{"0001"})
	h.wantOK(j)
	if h.num(j, "Order.TotalValueCents") != 1250+75 || h.num(j, "Order.BookingFeeValueCents") != 75 {
		t.Fatalf("after add: %s", compact(j))
	}
	if h.num(j, "Order.Sessions.0.Tickets.2.BookingStatus") != statusAdded || h.num(j, "Order.Sessions.0.Tickets.0.BookingStatus") != statusBooked || h.num(j, "Order.VistaBookingNumber") != 100001 {
		t.Fatalf("statuses: %s", compact(j))
	}
	// Move the added ticket next to the others.
	j = h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "SessionId": "1113",
		"SelectedSeats": []any{h.seat(1113, "F11"), h.seat(1113, "F12"), h.seat(1113, "F13")}, "ReturnOrder": true})
	h.wantOK(j)
	if got := h.seatLabels(j, "Order."); !slices.Equal(got, []string{"F11", "F12", "F13"}) {
		t.Fatalf("seats after move: %v", got)
	}
	if h.seatStatus("0001", 1113, "F13") != seatReserved {
		t.Fatal("F13 not held by the edit")
	}
	h.wantOK(h.post("/RESTTicketing.svc/order/reset-expiry", map[string]any{"UserSessionId": id}))

	// Complete: paid booking, positive balance.
	balance := int64(1325)
	for _, tc := range []struct {
		name   string
		body   any
		status int
		ext    int64
		reason string
	}{
		{"no payment", map[string]any{}, 400, extEditRefused, "payment_required"},
		{"empty body", nil, 400, extEditRefused, "payment_required"},
		{"short payment", map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(1000, "pay_x")}}}, 400, extAmountMismatch, "amount_mismatch"},
		{"refund instead", map[string]any{"refundPayments": map[string]any{"externalPayments": []any{extPay(balance, "pay_x")}}}, 400, extAmountMismatch, "amount_mismatch"},
		{"no reference", map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(balance, "")}}}, 400, 0, "invalid_request"},
		{"negative amount", map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(-5, "pay_x")}}}, 400, extAmountMismatch, "amount_mismatch"},
	} {
		st, r := h.completeEdit(id, tc.body)
		if st != tc.status || h.num(r, "extendedResultCode") != tc.ext || h.str(r, "reason") != tc.reason {
			t.Fatalf("%s: got %d %s", tc.name, st, compact(r))
		}
	}
	st, r := h.completeEdit(id, map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(1000, "pay_a"), extPay(325, "pay_b")}}})
	if st != 200 || h.num(r, "result") != 0 || h.num(r, "bookingNumber") != 100001 || h.str(r, "bookingId") != "BK0186A1" {
		t.Fatalf("complete-edit: %d %s", st, compact(r))
	}
	b := h.booking("0001", 100001)
	if len(h.list(b, "Booking.Tickets")) != 3 || h.num(b, "Booking.TotalValueCents") != 2650+1325 {
		t.Fatalf("booking after edit: %s", compact(b))
	}
	if h.str(b, "Booking.Tickets.2.SeatRowId")+h.str(b, "Booking.Tickets.2.SeatNumber") != "F13" || h.num(b, "Booking.Tickets.2.TicketSequenceNumber") != 3 {
		t.Fatalf("added ticket: %s", compact(b))
	}
	pays := h.list(b, "Booking.Payments")
	if len(pays) != 3 || h.str(b, "Booking.Payments.1.BankReference") != "pay_a" || h.num(b, "Booking.Payments.2.OrderPaymentAmount") != 325 ||
		h.str(b, "Booking.Payments.2.PaymentId") != "3" || h.str(b, "Booking.Payments.2.PaymentTenderCategory") != "CREDIT" {
		t.Fatalf("payments: %s", compact(b))
	}
	if h.seatStatus("0001", 1113, "F13") != seatSold {
		t.Fatal("F13 not sold after complete-edit")
	}
	// The edit's id is finished.
	h.wantCodes(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), 4, extOrderNotFound)
	h.wantCodes(h.addTickets(id, "0001", 1113, []string{"0001"}), 4, extOrderNotFound)
	if st, r := h.completeEdit(id, map[string]any{}); st != 404 || h.num(r, "extendedResultCode") != extOrderNotFound {
		t.Fatalf("complete twice: %d %s", st, compact(r))
	}
	// And the booking can be edited again.
	h.startEdit("0001", "BK0186A1")
}

func TestEditRemoveTicketRefund(t *testing.T) {
	h := newHarness(t)
	e := h.startEdit("0001", "BK0186A2") // adult F14 + child F15
	id := h.str(e, "order.userSessionId")
	j := h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id, "TicketRemovals": []any{map[string]any{"SessionId": 1113, "Tickets": []string{"2"}}}, "ReturnOrder": true})
	h.wantOK(j)
	refund := int64(850 + 75)
	if h.num(j, "Order.TotalValueCents") != -refund || h.num(j, "Order.BookingFeeValueCents") != -75 || h.num(j, "Order.Sessions.0.Tickets.1.BookingStatus") != statusRemoved {
		t.Fatalf("after remove: %s", compact(j))
	}
	// The removed ticket's seat stays the booking's until the edit completes.
	if h.seatStatus("0001", 1113, "F15") != seatSold {
		t.Fatal("F15 released before completion")
	}
	for _, tc := range []struct {
		body   any
		ext    int64
		reason string
	}{
		{map[string]any{}, extRefundRequired, "refund_required"},
		{map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(refund, "pi_seed100002")}}}, extAmountMismatch, "amount_mismatch"},
		{map[string]any{"refundPayments": map[string]any{"externalPayments": []any{extPay(refund-1, "pi_seed100002")}}}, extAmountMismatch, "amount_mismatch"},
	} {
		if st, r := h.completeEdit(id, tc.body); st != 400 || h.num(r, "extendedResultCode") != tc.ext || h.str(r, "reason") != tc.reason {
			t.Fatalf("want %s: %d %s", tc.reason, st, compact(r))
		}
	}
	// The seeded original payment is real at the provider: refund against it.
	if _, err := h.pay.Refund("pi_seed100002", refund, "edit-"+id); err != nil {
		t.Fatalf("refund of seeded payment: %v", err)
	}
	st, r := h.completeEdit(id, map[string]any{"refundPayments": map[string]any{"externalPayments": []any{extPay(refund, "pi_seed100002")}}})
	if st != 200 {
		t.Fatalf("complete-edit refund: %d %s", st, compact(r))
	}
	b := h.booking("0001", 100002)
	if len(h.list(b, "Booking.Tickets")) != 1 || h.num(b, "Booking.TotalValueCents") != 1250+75 {
		t.Fatalf("booking after refund: %s", compact(b))
	}
	if h.num(b, "Booking.Payments.1.OrderPaymentAmount") != -refund || h.str(b, "Booking.Payments.1.PaymentId") != "2" {
		t.Fatalf("refund record: %s", compact(b))
	}
	if h.seatStatus("0001", 1113, "F15") != seatEmpty {
		t.Fatal("F15 not released after the edit")
	}
}

func TestEditFeeRuleChanged(t *testing.T) {
	h := newHarness(t)
	e := h.startEdit("0001", "BK0186B2") // 2 adults, bought at 50 per ticket; the fee is 75 now
	if h.num(e, "order.orderTotalValueInCents") != 50 || h.num(e, "order.bookingFeeTotalValueInCents") != 50 {
		t.Fatalf("fee change not shown at once: %s", compact(e))
	}
	fees := h.list(e, "order.bookingFees")
	var removed, added int64
	for _, f := range fees {
		m := f.(map[string]any)
		switch m["bookingStatus"] {
		case float64(statusRemoved):
			removed += int64(m["finalPriceInCents"].(float64))
		case float64(statusAdded):
			added += int64(m["finalPriceInCents"].(float64))
		}
	}
	if removed != 100 || added != 150 {
		t.Fatalf("fee items removed %d added %d: %s", removed, added, compact(e))
	}
	id := h.str(e, "order.userSessionId")
	// A booking fee override locks the fee at the old price.
	j := h.post("/RESTTicketing.svc/order/tickets", map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": "1113",
		"TicketTypes": []any{map[string]any{"TicketTypeCode": "0002"}}, "BookingFeeOverride": map[string]any{"FeeInCents": 50}, "ReturnOrder": true})
	h.wantOK(j)
	if h.num(j, "Order.TotalValueCents") != 850+50 || h.num(j, "Order.BookingFeeValueCents") != 50 {
		t.Fatalf("with override: %s", compact(j))
	}
	// Unchanged booking with the fee difference: the balance must be paid.
	h.wantOK(h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id, "TicketRemovals": []any{map[string]any{"Tickets": []string{"3"}}}}))
	if st, r := h.completeEdit(id, map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(1, "p")}}}); st != 400 || h.str(r, "reason") != "amount_mismatch" {
		t.Fatalf("override keeps zero balance: %d %s", st, compact(r))
	}
	if st, r := h.completeEdit(id, map[string]any{}); st != 200 {
		t.Fatalf("zero balance complete: %d %s", st, compact(r))
	}
}

func TestEditUnpaidBooking(t *testing.T) {
	h := newHarness(t)
	e := h.startEdit("0001", "BK0186AA") // reservation E11, E12
	id := h.str(e, "order.userSessionId")
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0003"}))
	if st, r := h.completeEdit(id, map[string]any{"payments": map[string]any{"externalPayments": []any{extPay(1025, "p")}}}); st != 400 || h.str(r, "reason") != "unpaid_requires_no_payment" {
		t.Fatalf("payments on unpaid: %d %s", st, compact(r))
	}
	if st, r := h.completeEdit(id, map[string]any{}); st != 200 {
		t.Fatalf("unpaid complete: %d %s", st, compact(r))
	}
	b := h.booking("0001", 100010)
	if len(h.list(b, "Booking.Tickets")) != 3 || h.val(b, "Booking.IsPaid") != false || len(h.list(b, "Booking.Payments")) != 0 {
		t.Fatalf("unpaid booking after edit: %s", compact(b))
	}
	label := h.str(b, "Booking.Tickets.2.SeatRowId") + h.str(b, "Booking.Tickets.2.SeatNumber")
	if h.seatStatus("0001", 1113, label) != seatReserved {
		t.Fatalf("new seat %s of a reservation must be reserved", label)
	}
}

func TestEditCancelRestoresBooking(t *testing.T) {
	h := newHarness(t)
	before := h.booking("0001", 100003)
	e := h.startEdit("0001", "BK0186A3") // G11, G12
	id := h.str(e, "order.userSessionId")
	h.wantOK(h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "SessionId": "1113", "SelectedSeats": []any{h.seat(1113, "M15"), h.seat(1113, "M16")}}))
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}))
	h.wantOK(h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id, "TicketRemovals": []any{map[string]any{"Tickets": []string{"1"}}}}))
	if h.seatStatus("0001", 1113, "M16") != seatReserved || h.seatStatus("0001", 1113, "G12") != seatSold {
		t.Fatal("holds during edit")
	}
	// A second edit of the same booking is refused while this one lives.
	if st, r := h.call("POST", "/cinemas/0001/bookings/BK0186A3/edit", nil); st != 400 || h.str(r, "reason") != "already_in_edit" {
		t.Fatalf("second edit: %d %s", st, compact(r))
	}
	h.wantOK(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": id}))
	after := h.booking("0001", 100003)
	if compact(before) != compact(after) {
		t.Fatalf("cancel changed the booking:\n%s\n%s", compact(before), compact(after))
	}
	if h.seatStatus("0001", 1113, "M16") != seatEmpty || h.seatStatus("0001", 1113, "G12") != seatSold {
		t.Fatal("holds after cancel")
	}
	h.wantCodes(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), 4, extOrderNotFound)
	h.startEdit("0001", "BK0186A3")
}

func TestEditExpiryIsCancel(t *testing.T) {
	h := newHarness(t)
	e := h.startEdit("0001", "BK0186A4")
	id := h.str(e, "order.userSessionId")
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}))
	h.clock.Advance(10*time.Minute + time.Second)
	h.wantCodes(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), 4, extOrderExpired)
	if st, r := h.completeEdit(id, map[string]any{}); st != 410 || h.num(r, "extendedResultCode") != extOrderExpired {
		t.Fatalf("complete after expiry: %d %s", st, compact(r))
	}
	b := h.booking("0001", 100004)
	if len(h.list(b, "Booking.Tickets")) != 3 {
		t.Fatalf("booking after expired edit: %s", compact(b))
	}
	h.startEdit("0001", "BK0186A4")
}

func TestEditMoveSeatsAndComplete(t *testing.T) {
	h := newHarness(t)
	e := h.startEdit("0001", "BK0186A6") // small screen D7, D8
	id := h.str(e, "order.userSessionId")
	// D8 stays, D7 moves to E1; a seat of another booking is refused.
	j := h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "SessionId": "1123", "SelectedSeats": []any{h.seat(1123, "D8"), h.seat(1123, "E1")}, "ReturnOrder": true})
	h.wantOK(j)
	if h.num(j, "Order.TotalValueCents") != 0 {
		t.Fatalf("moving seats costs nothing: %s", compact(j))
	}
	other := newID()
	h.wantOK(h.addTickets(other, "0001", 1123, []string{"0001"}, "E2"))
	h.wantCodes(h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "SessionId": "1123", "SelectedSeats": []any{h.seat(1123, "D8"), h.seat(1123, "E2")}}), resUnexpected, 0)
	if st, r := h.completeEdit(id, map[string]any{}); st != 200 {
		t.Fatalf("complete zero-balance edit of a paid booking: %d %s", st, compact(r))
	}
	b := h.booking("0001", 100006)
	var got []string
	for _, tk := range h.list(b, "Booking.Tickets") {
		m := tk.(map[string]any)
		got = append(got, m["SeatRowId"].(string)+m["SeatNumber"].(string))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"D8", "E1"}) {
		t.Fatalf("booking seats %v", got)
	}
	if h.seatStatus("0001", 1123, "D7") != seatEmpty || h.seatStatus("0001", 1123, "E1") != seatSold {
		t.Fatal("seat plan after the move")
	}
}

// A booking whose session has begun can be neither edited nor swapped.
func TestEditAndSwapRefusedOnceTheSessionStarted(t *testing.T) {
	const (
		edit = "/cinemas/0001/bookings/BK0186A1/edit"
		swap = "/cinemas/0001/bookings/BK0186A1/swap-seats"
	)
	cases := []struct {
		name   string
		at     time.Duration // relative to the showtime of session 1113
		path   string
		status int
		ext    int64
		reason string
	}{
		{"edit a minute before", -time.Minute, edit, 200, 0, ""},
		{"edit at the start", 0, edit, 400, extEditRefused, "session_started"},
		{"edit an hour after", time.Hour, edit, 400, extEditRefused, "session_started"},
		{"swap a minute before", -time.Minute, swap, 200, 0, ""},
		{"swap at the start", 0, swap, 400, extSwapRefused, "session_started"},
		{"swap a day after", 24 * time.Hour, swap, 400, extSwapRefused, "session_started"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.clock.Set(h.srv.sessions[1113].showtime.Add(tc.at))
			var body any
			if tc.path == swap {
				body = h.swapBody(1113, swapSpec{seq: 1, seat: "B1"})
			}
			st, j := h.call("POST", tc.path, body)
			if st != tc.status || h.num(j, "extendedResultCode") != tc.ext {
				t.Fatalf("got %d %s, want %d ext %d", st, compact(j), tc.status, tc.ext)
			}
			if tc.reason == "" {
				return
			}
			if h.str(j, "reason") != tc.reason || !strings.Contains(h.str(j, "errorDescription"), "started at 2026-11-23 20:30") {
				t.Fatalf("refusal: %s", compact(j))
			}
		})
	}
}
