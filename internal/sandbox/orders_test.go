package sandbox

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRegularOrderLifecycle(t *testing.T) {
	h := newHarness(t)
	id := newID()

	j := h.addTickets(id, "0001", 1113, []string{"0001", "0002"}, "K5", "K6")
	h.wantOK(j)
	if h.str(j, "Order.UserSessionId") != id || h.str(j, "Order.CinemaId") != "0001" {
		t.Fatalf("order ids: %s", compact(j))
	}
	// 1250 + 850 tickets, 2 x 75 fees.
	if h.num(j, "Order.TotalValueCents") != 2250 || h.num(j, "Order.BookingFeeValueCents") != 150 || h.num(j, "Order.TotalOrderCount") != 2 {
		t.Fatalf("values: %s", compact(j))
	}
	if h.num(j, "Order.TaxValueCents") != 200+136+2*12 || h.num(j, "Order.BookingFeeTaxValueCents") != 24 {
		t.Fatalf("tax: %s", compact(j))
	}
	if h.num(j, "Order.VistaBookingNumber") != 0 || h.num(j, "Order.VistaTransactionNumber") != 0 || h.num(j, "Order.AmountToPayInCents") != 2250 {
		t.Fatalf("not completed yet: %s", compact(j))
	}
	if got := h.seatLabels(j, "Order."); !slices.Equal(got, []string{"K5", "K6"}) {
		t.Fatalf("seats %v", got)
	}
	tk := h.val(j, "Order.Sessions.0.Tickets.0").(map[string]any)
	for k, want := range map[string]any{"Id": "1", "TicketTypeCode": "0001", "PriceCents": 1250.0, "SeatNumber": "5", "SeatRowId": "K",
		"SeatAreaCatCode": catStandard, "SeatAreaNumber": "1", "SeatRowIndex": 10.0, "SeatColumnIndex": 4.0, "FinalPriceCents": 1250.0,
		"TaxCents": 200.0, "DealDefinitionId": nil, "DealDescription": nil, "SeatData": "K5", "Description": "Adult"} {
		if tk[k] != want {
			t.Fatalf("ticket %s = %v, want %v (%v)", k, tk[k], want, tk)
		}
	}
	if len(h.list(j, "Order.SuggestedDeals")) < 2 || h.val(j, "Order.Sessions.0.SeatsAllocated") != true {
		t.Fatalf("deals / seats allocated: %s", compact(j))
	}
	if h.seatStatus("0001", 1113, "K5") != seatReserved {
		t.Fatal("K5 not held")
	}

	// Without ReturnOrder the envelope carries Order null.
	body := map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": 1113, "TicketTypes": []map[string]any{{"TicketTypeCode": "0003"}}}
	j = h.post("/RESTTicketing.svc/order/tickets", body)
	h.wantOK(j)
	if v, ok := j["Order"]; !ok || v != nil {
		t.Fatalf("Order should be null without ReturnOrder: %s", compact(j))
	}
	j = h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id})
	h.wantOK(j)
	if h.num(j, "Order.TotalOrderCount") != 3 {
		t.Fatalf("after auto-allocated add: %s", compact(j))
	}

	// Remove the child ticket (Id 2); PackageTicketIds (the SOAP form) is accepted and ignored.
	j = h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id, "TicketRemovals": []map[string]any{{"SessionId": "1113", "Tickets": []string{"2"},
		"PackageTicketIds": []any{"77", 78}}}, "ReturnOrder": true})
	h.wantOK(j)
	if h.num(j, "Order.TotalOrderCount") != 2 || h.seatStatus("0001", 1113, "K6") != seatEmpty {
		t.Fatalf("remove: %s", compact(j))
	}
	j = h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id, "TicketRemovals": []map[string]any{{"Tickets": []string{"99"}}}})
	h.wantCodes(j, 4, 0)

	// A seat someone else holds: the real service's Result 1; a house seat: Result 8.
	other := newID()
	h.wantOK(h.addTickets(other, "0001", 1113, []string{"0001"}, "M2"))
	for _, tc := range []struct {
		seat   string
		result int64
	}{{"M2", resUnexpected}, {"H11", resSeatsUnavailable}} {
		j = h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": "1113",
			"SelectedSeats": []any{h.seat(1113, tc.seat), h.seat(1113, "K5")}, "ReturnOrder": true})
		h.wantCodes(j, tc.result, 0)
		if tc.result == resUnexpected && h.str(j, "ErrorDescription") != seatTakenText {
			t.Fatalf("seat conflict: %s", compact(j))
		}
	}

	// Move both tickets.
	j = h.post("/RESTTicketing.svc/order/seats", map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": "1113",
		"SelectedSeats": []any{h.seat(1113, "M1"), h.seat(1113, "K5")}, "ReturnOrder": true})
	h.wantOK(j)
	got := h.seatLabels(j, "Order.")
	slices.Sort(got)
	if !slices.Equal(got, []string{"K5", "M1"}) {
		t.Fatalf("after SetSelectedSeats: %v", got)
	}
	if h.str(j, "Order.Sessions.0.Tickets.0.SeatData") != "K5" {
		t.Fatalf("a ticket already on a chosen seat keeps it: %s", compact(j))
	}

	// ResetOrderExpiry answers OrderLastUpdated and moves the expiry.
	h.clock.Advance(4 * time.Minute)
	j = h.post("/RESTTicketing.svc/order/reset-expiry", map[string]any{"UserSessionId": id})
	h.wantOK(j)
	if _, ok := j["OrderLastUpdated"].(string); !ok || h.str(j, "Order.ExpiryDateUtc") != "2026-11-22T09:14:00Z" {
		t.Fatalf("reset expiry: %s", compact(j))
	}

	// Cancel releases the seats; the order is gone.
	h.wantOK(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": id}))
	if h.seatStatus("0001", 1113, "K5") != seatEmpty || h.seatStatus("0001", 1113, "M1") != seatEmpty {
		t.Fatal("seats still held after cancel")
	}
	h.wantCodes(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), 4, extOrderNotFound)
	h.wantCodes(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": id}), 4, extOrderNotFound)
}

func TestAddTicketsRefusals(t *testing.T) {
	h := newHarness(t)
	held := newID()
	h.wantOK(h.addTickets(held, "0001", 1113, []string{"0001"}, "N10"))
	cases := []struct {
		name     string
		cinema   string
		session  int
		codes    []string
		seats    []string
		result   int64
		ext      int64
		override map[string]any
	}{
		// A seat someone else has answers like the real service: Result 1, "An unexpected error has occurred".
		{name: "sold seat", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"F11"}, result: resUnexpected},
		{name: "seat held by another order", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"N10"}, result: resUnexpected},
		{name: "reserved seat", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"E11"}, result: resUnexpected},
		{name: "house seat", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"H11"}, result: 8},
		{name: "broken seat", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"K22"}, result: 8},
		{name: "premium seat for a standard ticket", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"P3"}, result: 4},
		{name: "more seats than tickets", cinema: "0001", session: 1113, codes: []string{"0001"}, seats: []string{"N1", "N2"}, result: 4},
		{name: "same seat twice", cinema: "0001", session: 1113, codes: []string{"0001", "0001"}, seats: []string{"N1", "N1"}, result: 4},
		{name: "unknown ticket type", cinema: "0001", session: 1113, codes: []string{"9999"}, result: 4},
		{name: "premium ticket on a screen without premium", cinema: "0001", session: 1123, codes: []string{"0101"}, result: 4},
		{name: "session of another cinema", cinema: "0001", session: 2113, codes: []string{"0001"}, result: 4},
		{name: "unknown cinema", cinema: "0042", session: 1113, codes: []string{"0001"}, result: 4},
		{name: "bad booking mode", cinema: "0001", session: 1113, codes: []string{"0001"}, result: 4, override: map[string]any{"BookingMode": 7}},
		{name: "no ticket types", cinema: "0001", session: 1113, result: 4, override: map[string]any{"TicketTypes": []any{}}},
		{name: "quantity 0", cinema: "0001", session: 1113, result: 4, override: map[string]any{"TicketTypes": []any{map[string]any{"TicketTypeCode": "0001", "Qty": 0}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.t = t
			id := newID()
			var tts []map[string]any
			for _, c := range tc.codes {
				tts = append(tts, map[string]any{"TicketTypeCode": c})
			}
			body := map[string]any{"UserSessionId": id, "CinemaId": tc.cinema, "SessionId": strconv.Itoa(tc.session), "TicketTypes": tts, "ReturnOrder": true}
			if len(tc.seats) > 0 {
				var sel []any
				for _, s := range tc.seats {
					sel = append(sel, h.seat(tc.session, s))
				}
				body["SelectedSeats"] = sel
			}
			for k, v := range tc.override {
				body[k] = v
			}
			j := h.post("/RESTTicketing.svc/order/tickets", body)
			h.wantCodes(j, tc.result, tc.ext)
			if tc.result == resUnexpected && h.str(j, "ErrorDescription") != seatTakenText {
				t.Fatalf("seat conflict text: %s", compact(j))
			}
			// A refused first call creates no order.
			h.wantCodes(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}), 4, extOrderNotFound)
		})
	}
	h.t = t
	if h.seatStatus("0001", 1113, "N1") != seatEmpty {
		t.Fatal("a refused call held a seat")
	}
}

func TestAutoAllocation(t *testing.T) {
	h := newHarness(t)
	id := newID()
	j := h.post("/RESTTicketing.svc/order/tickets", map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": "1113",
		"TicketTypes": []any{map[string]any{"TicketTypeCode": "0001", "Qty": 3}, map[string]any{"TicketTypeCode": "0101"}}, "ReturnOrder": true})
	h.wantOK(j)
	tickets := h.list(j, "Order.Sessions.0.Tickets")
	if len(tickets) != 4 {
		t.Fatalf("tickets: %d", len(tickets))
	}
	row, cols := "", []int{}
	for i, tk := range tickets {
		m := tk.(map[string]any)
		if i < 3 {
			if m["SeatAreaCatCode"] != catStandard {
				t.Fatalf("standard ticket in %v", m["SeatAreaCatCode"])
			}
			if row != "" && m["SeatRowId"] != row {
				t.Fatalf("block split over rows: %v", tickets)
			}
			row = m["SeatRowId"].(string)
			cols = append(cols, int(m["SeatColumnIndex"].(float64)))
		} else if m["SeatAreaCatCode"] != catPremium {
			t.Fatalf("premium ticket in %v", m["SeatAreaCatCode"])
		}
	}
	if cols[1] != cols[0]+1 || cols[2] != cols[1]+1 {
		t.Fatalf("auto-allocated seats not side by side: %v", cols)
	}
	for _, l := range h.seatLabels(j, "Order.") {
		if h.seatStatus("0001", 1113, l) != seatReserved {
			t.Fatalf("%s not held", l)
		}
	}
	// The small screen runs out: 112 places, 4 of them wheelchair/companion.
	full := newID()
	var err bool
	for i := 0; i < 6; i++ {
		j := h.post("/RESTTicketing.svc/order/tickets", map[string]any{"UserSessionId": full, "CinemaId": "0001", "SessionId": "1121",
			"TicketTypes": []any{map[string]any{"TicketTypeCode": "0001", "Qty": 20}}})
		if h.num(j, "Result") == 8 {
			err = true
			break
		}
		h.wantOK(j)
	}
	if !err {
		t.Fatal("auto-allocation never ran out of seats")
	}
}

func TestOrderExpiry(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "J1"))
	h.clock.Advance(9 * time.Minute)
	h.wantOK(h.post("/RESTTicketing.svc/order/reset-expiry", map[string]any{"UserSessionId": id}))
	h.clock.Advance(9 * time.Minute)
	h.wantOK(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}))
	h.clock.Advance(61 * time.Second)
	// The seat is released as soon as time is up, before any call on the order.
	if h.seatStatus("0001", 1113, "J1") != seatEmpty {
		t.Fatal("expired order still holds its seat")
	}
	for _, path := range []string{"/RESTTicketing.svc/order", "/RESTTicketing.svc/order/reset-expiry", "/RESTTicketing.svc/order/cancel", "/RESTTicketing.svc/order/payment"} {
		h.wantCodes(h.post(path, map[string]any{"UserSessionId": id}), 4, extOrderExpired)
	}
	h.wantCodes(h.addTickets(id, "0001", 1113, []string{"0001"}, "J2"), 4, extOrderExpired)
	// Someone else can take the seat now.
	h.wantOK(h.addTickets(newID(), "0001", 1113, []string{"0001"}, "J1"))
}

func TestCompleteOrder(t *testing.T) {
	h := newHarness(t)

	t.Run("sale", func(t *testing.T) {
		h.t = t
		id := newID()
		h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001", "0001"}, "M5", "M6"))
		pay := map[string]any{"PaymentValueCents": 2650, "PaymentTenderCategory": "CREDITCARD", "CardNumber": "4111111111111111", "CardType": "VISA"}
		req := map[string]any{"UserSessionId": id, "CustomerName": "Sam", "CustomerEmail": "sam@example.com", "BookingMode": 0,
			"PerformPayment": true, "GeneratePrintStream": true, "ReturnPrintStream": true, "PaymentInfo": pay}
		bad := map[string]any{}
		for k, v := range req {
			bad[k] = v
		}
		bad["PaymentInfo"] = map[string]any{"PaymentValueCents": 100, "CardNumber": "4111111111111111"}
		h.wantCodes(h.post("/RESTTicketing.svc/order/payment", bad), 4, extAmountMismatch)
		bad["PaymentInfo"] = map[string]any{"PaymentValueCents": 2650, "CardNumber": declinedCard}
		h.wantCodes(h.post("/RESTTicketing.svc/order/payment", bad), resPaymentDeclined, 0)

		j := h.post("/RESTTicketing.svc/order/payment", req)
		h.wantOK(j)
		wantKeys(t, j, "Result", "ExtendedResultCode", "ErrorDescription", "VistaBookingNumber", "VistaBookingId", "VistaTransNumber", "PrintStream", "PrintStreamCollection")
		number := h.num(j, "VistaBookingNumber")
		if number == 0 || h.num(j, "VistaTransNumber") == 0 {
			t.Fatalf("completion: %s", compact(j))
		}
		streams := h.list(j, "PrintStreamCollection")
		if len(streams) != 3 || !strings.Contains(h.str(j, "PrintStreamCollection.0"), "Row M, Seat 5") ||
			h.str(j, "PrintStream") != h.str(j, "PrintStreamCollection.0")+h.str(j, "PrintStreamCollection.1")+h.str(j, "PrintStreamCollection.2") {
			t.Fatalf("print streams: %s", compact(j))
		}
		// GetOrderDetails keeps the contract's shape, with the Vista names.
		d := h.get("/RESTTicketing.svc/order/details?userSessionId=" + id)
		if h.val(d, "OrderIdentifiers.IsCompletedOrder") != true || h.num(d, "OrderIdentifiers.VistaBookingNumber") != number ||
			h.str(d, "OrderIdentifiers.VistaBookingId") != h.str(j, "VistaBookingId") || h.num(d, "OrderIdentifiers.VistaTransNumber") != h.num(j, "VistaTransNumber") {
			t.Fatalf("details after completion: %s", compact(d))
		}
		if len(h.list(d, "PrintStreams")) != 3 || h.num(d, "PrintStreams.0.PrintDocType") != printDocBookingVoucher || h.num(d, "PrintStreams.2.PrintDocType") != printDocReceipt {
			t.Fatalf("print streams in details: %s", compact(d))
		}
		b := h.booking("0001", number)
		if h.num(b, "Booking.TotalValueCents") != 2650 || h.val(b, "Booking.IsPaid") != true || h.str(b, "Booking.Payments.0.PaymentTenderCategory") != "CREDITCARD" ||
			!strings.HasPrefix(h.str(b, "Booking.Payments.0.BankReference"), "INT") {
			t.Fatalf("booking: %s", compact(b))
		}
		if h.str(b, "Booking.BookingId") != h.str(j, "VistaBookingId") || h.str(b, "Booking.CustomerEmail") != "sam@example.com" {
			t.Fatalf("booking ids: %s", compact(b))
		}
		if h.seatStatus("0001", 1113, "M5") != seatSold {
			t.Fatal("M5 not sold")
		}
		// The completed order stays readable and refuses changes.
		o := h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id})
		h.wantOK(o)
		if h.num(o, "Order.VistaBookingNumber") != number {
			t.Fatalf("completed order: %s", compact(o))
		}
		h.wantCodes(h.post("/RESTTicketing.svc/order/payment", req), 4, extOrderCompleted)
		h.wantCodes(h.addTickets(id, "0001", 1113, []string{"0001"}), 4, extOrderCompleted)
		h.wantCodes(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": id}), 4, extOrderCompleted)
		// A booking paid by the service's own processing cannot be edited.
		st, e := h.call("POST", "/cinemas/0001/bookings/"+h.str(b, "Booking.BookingId")+"/edit", nil)
		if st != 400 || h.str(e, "reason") != "non_external_payment" {
			t.Fatalf("edit of own-processing booking: %d %s", st, compact(e))
		}
	})
	t.Run("reservation", func(t *testing.T) {
		h.t = t
		id := newID()
		h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "M8"))
		j := h.post("/RESTTicketing.svc/order/payment", map[string]any{"UserSessionId": id, "CustomerName": "Res", "CustomerEmail": "res@example.com", "BookingMode": 1,
			"ReturnPrintStream": true})
		h.wantOK(j)
		if h.num(j, "VistaBookingNumber") == 0 || h.str(j, "VistaBookingId") == "" || h.num(j, "VistaTransNumber") != 0 ||
			h.str(j, "PrintStream") != "" || len(h.list(j, "PrintStreamCollection")) != 0 {
			t.Fatalf("reservation reply: %s", compact(j))
		}
		b := h.booking("0001", h.num(j, "VistaBookingNumber"))
		if h.val(b, "Booking.IsPaid") != false || len(h.list(b, "Booking.Payments")) != 0 {
			t.Fatalf("reservation: %s", compact(b))
		}
		if h.seatStatus("0001", 1113, "M8") != seatReserved {
			t.Fatal("reservation seat not reserved")
		}
	})
	t.Run("refusals", func(t *testing.T) {
		h.t = t
		empty := newID()
		h.wantOK(h.addTickets(empty, "0001", 1113, []string{"0001"}, "M10"))
		h.wantOK(h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": empty, "TicketRemovals": []any{map[string]any{"Tickets": []string{"1"}}}}))
		h.wantCodes(h.post("/RESTTicketing.svc/order/payment", map[string]any{"UserSessionId": empty, "BookingMode": 1}), 4, 0)
		id := newID()
		h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "M11"))
		h.wantCodes(h.post("/RESTTicketing.svc/order/payment", map[string]any{"UserSessionId": id, "BookingMode": 3}), 4, 0)
		h.wantCodes(h.post("/RESTTicketing.svc/order/payment", map[string]any{"UserSessionId": id, "BookingMode": 0}), 4, 0)
	})
}

func TestPackageTicketsMoveAndGoTogether(t *testing.T) {
	h := newHarness(t)
	id := newID()
	j := h.addTickets(id, "0001", 1113, []string{"0104"}, "S5", "S6")
	h.wantOK(j)
	if h.num(j, "Order.TotalValueCents") != 3000+150 || h.num(j, "Order.Sessions.0.Tickets.1.PackageGroupNumber") != 1 {
		t.Fatalf("package: %s", compact(j))
	}
	j = h.post("/RESTTicketing.svc/order/tickets/remove", map[string]any{"UserSessionId": id, "TicketRemovals": []any{map[string]any{"Tickets": []string{"2"}}}, "ReturnOrder": true})
	h.wantOK(j)
	if h.num(j, "Order.TotalOrderCount") != 0 || h.seatStatus("0001", 1113, "S5") != seatEmpty {
		t.Fatalf("removing one package ticket must remove the package: %s", compact(j))
	}
}

// wantKeys fails unless j has exactly these top-level keys.
func wantKeys(t *testing.T, j J, keys ...string) {
	t.Helper()
	if len(j) != len(keys) {
		t.Fatalf("want exactly the keys %v, got %s", keys, compact(j))
	}
	for _, k := range keys {
		if _, ok := j[k]; !ok {
			t.Fatalf("no %s in %s", k, compact(j))
		}
	}
}
