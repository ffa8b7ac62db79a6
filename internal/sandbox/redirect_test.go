package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

func startPayment(id, returnURL string, auto bool) map[string]any {
	return map[string]any{
		"UserSessionId":     id,
		"AutoCompleteOrder": auto,
		"ExternalPaymentInfo": map[string]any{
			"ReturnUrl": returnURL, "PaymentMethod": "SANDBOXPAY", "IsInAppPayment": false,
		},
		"OrderCompletionInfo": map[string]any{
			"CustomerInfo":  map[string]any{"Name": "Rosa Redirect", "Email": "rosa@example.com"},
			"PrintSettings": map[string]any{"PrintStreamType": "HTML", "GeneratePrintStream": true},
		},
	}
}

func (h *harness) details(id string) J {
	h.t.Helper()
	return h.get("/RESTTicketing.svc/order/details?userSessionId=" + id)
}

func TestRedirectPayment(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001", "0002"}, "N5", "N6"))

	// Details are available before any payment, in the full shape.
	d := h.details(id)
	h.wantOK(d)
	for _, k := range []string{"OrderIdentifiers", "OrderWebPaymentData", "AdditionalPayments", "MemberBalances", "Attachments", "PrintStreams"} {
		if _, ok := d[k]; !ok {
			t.Fatalf("order details without %s: %s", k, compact(d))
		}
	}
	if h.val(d, "OrderIdentifiers.IsCompletedOrder") != false || h.str(d, "OrderIdentifiers.UserSessionId") != id {
		t.Fatalf("details before payment: %s", compact(d))
	}

	h.wantCodes(h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/return", false)), 4, 0)
	h.wantCodes(h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "", true)), 4, 0)

	j := h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/return?visit=7", true))
	h.wantOK(j)
	redirect := h.str(j, "PaymentRedirectUrl")
	if !strings.HasPrefix(redirect, h.url+"/pay/checkout/pi_") {
		t.Fatalf("redirect %s", redirect)
	}
	payID := strings.TrimPrefix(redirect, h.url+"/pay/checkout/")
	pay, ok := h.pay.Get(payID)
	if !ok || pay.AmountInCents != 2250 || pay.Currency != "EUR" || pay.Reference != id || pay.ReturnURL != "https://bff.example/return?visit=7" {
		t.Fatalf("provider payment: %+v", pay)
	}
	if h.pay.HostedURL(payID) != redirect {
		t.Fatal("redirect is not the provider's hosted URL")
	}
	// A second start while awaiting payment answers the same address.
	again := h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/return?visit=7", true))
	h.wantOK(again)
	if h.str(again, "PaymentRedirectUrl") != redirect {
		t.Fatalf("second start made a new payment: %s", compact(again))
	}
	// While awaiting payment: no changes, no expiry (a cancel is allowed: TestCancelWhileAwaitingPayment).
	h.wantCodes(h.addTickets(id, "0001", 1113, []string{"0001"}), 4, extOrderCompleted)
	h.clock.Advance(30 * time.Minute)
	d = h.details(id)
	h.wantOK(d)
	if h.str(d, "OrderWebPaymentData.PaymentStatus") != payPending || h.str(d, "OrderWebPaymentData.Token") != pay.Token || h.num(d, "OrderWebPaymentData.AmountInCents") != 2250 {
		t.Fatalf("pending details: %s", compact(d))
	}
	if h.seatStatus("0001", 1113, "N5") != seatReserved {
		t.Fatal("seat released while awaiting payment")
	}

	back := h.payAtProvider(redirect, "pay")
	if back.Query().Get("token") != pay.Token || back.Query().Get("visit") != "7" {
		t.Fatalf("return address %s", back)
	}
	eventually(t, "IsCompletedOrder", func() bool {
		return h.details(id)["OrderIdentifiers"].(map[string]any)["IsCompletedOrder"] == true
	})
	d = h.details(id)
	if h.str(d, "OrderWebPaymentData.PaymentStatus") != payPaid || h.str(d, "OrderWebPaymentData.CardNumber") != payprovider.TestCardMasked ||
		h.str(d, "OrderWebPaymentData.CardType") != "VISA" || h.str(d, "OrderWebPaymentData.CustomerName") != "Rosa Redirect" || h.str(d, "OrderWebPaymentData.VistaTransRef") != payID {
		t.Fatalf("paid details: %s", compact(d))
	}
	if len(h.str(d, "OrderWebPaymentData.CardExpiryMonth")) != 2 || len(h.str(d, "OrderWebPaymentData.CardExpiryYear")) != 4 {
		t.Fatalf("card expiry: %s", compact(d))
	}
	streams := h.list(d, "PrintStreams")
	if len(streams) != 3 || !strings.Contains(h.str(d, "PrintStreams.0.PrintStream"), "Row N, Seat 5") {
		t.Fatalf("print streams: %s", compact(d))
	}
	number := h.num(d, "OrderIdentifiers.VistaBookingNumber")
	b := h.booking("0001", number)
	if h.str(b, "Booking.Payments.0.BankReference") != payID || h.str(b, "Booking.Payments.0.PaymentTenderCategory") != defaultTender ||
		h.num(b, "Booking.Payments.0.OrderPaymentAmount") != 2250 || h.str(b, "Booking.CustomerEmail") != "rosa@example.com" {
		t.Fatalf("booking after redirect: %s", compact(b))
	}
	if h.seatStatus("0001", 1113, "N5") != seatSold {
		t.Fatal("seat not sold after completion")
	}
	// A booking paid by redirect is editable (external payment).
	if st, e := h.call("POST", "/cinemas/0001/bookings/"+h.str(b, "Booking.BookingId")+"/edit", nil); st != 200 {
		t.Fatalf("edit of redirect-paid booking: %d %s", st, compact(e))
	}
	// After completion the start answers "completed".
	h.wantCodes(h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/return", true)), 4, extOrderCompleted)
}

func TestRedirectDeclineAndCancel(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "N12"))
	j := h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/r", true))
	h.wantOK(j)
	first := h.str(j, "PaymentRedirectUrl")
	h.clock.Advance(15 * time.Minute) // the customer is slow at the provider
	h.payAtProvider(first, "decline")
	d := h.details(id)
	if h.str(d, "OrderWebPaymentData.PaymentStatus") != payDeclined || h.val(d, "OrderIdentifiers.IsCompletedOrder") != false || h.num(d, "OrderWebPaymentData.AttemptNumber") != 1 {
		t.Fatalf("declined: %s", compact(d))
	}
	// Back to ready for payment: the hold is kept and the order is changeable again.
	if h.seatStatus("0001", 1113, "N12") != seatReserved {
		t.Fatal("hold lost after decline")
	}
	h.wantOK(h.post("/RESTTicketing.svc/order", map[string]any{"UserSessionId": id}))
	j = h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/r", true))
	h.wantOK(j)
	second := h.str(j, "PaymentRedirectUrl")
	if second == first {
		t.Fatal("a new attempt reused the declined payment")
	}
	h.payAtProvider(second, "cancel")
	d = h.details(id)
	if h.str(d, "OrderWebPaymentData.PaymentStatus") != payCancelled || h.num(d, "OrderWebPaymentData.AttemptNumber") != 2 {
		t.Fatalf("cancelled: %s", compact(d))
	}
	// Alive again: it expires 10 minutes after the decision, like any order.
	h.clock.Advance(11 * time.Minute)
	h.wantCodes(h.details(id), 4, extOrderExpired)
	if h.seatStatus("0001", 1113, "N12") != seatEmpty {
		t.Fatal("seat held after expiry")
	}
}

func TestCompletionNever(t *testing.T) {
	h := newHarness(t, withCompletionDelay(-1))
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "N14"))
	j := h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/r", true))
	h.payAtProvider(h.str(j, "PaymentRedirectUrl"), "pay")
	time.Sleep(50 * time.Millisecond)
	d := h.details(id)
	if h.str(d, "OrderWebPaymentData.PaymentStatus") != payPaid || h.val(d, "OrderIdentifiers.IsCompletedOrder") != false {
		t.Fatalf("with completion never: %s", compact(d))
	}

	// The admin fault switches completion back on for later payments.
	h.srv.Faults().SetCompletionDelay(time.Millisecond)
	id2 := newID()
	h.wantOK(h.addTickets(id2, "0001", 1113, []string{"0001"}, "N15"))
	j = h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id2, "https://bff.example/r", true))
	h.payAtProvider(h.str(j, "PaymentRedirectUrl"), "pay")
	eventually(t, "completion after the override", func() bool {
		return h.details(id2)["OrderIdentifiers"].(map[string]any)["IsCompletedOrder"] == true
	})
}

func TestGiftCardAndLoyaltyWithRedirect(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001", "0001"}, "L1", "L2")) // 2650 to pay

	gc := func(card, pin string, amount any) J {
		body := map[string]any{"UserSessionId": id, "CardNumber": card, "Pin": pin}
		if amount != nil {
			body["AmountInCents"] = amount
		}
		return h.post("/RESTTicketing.svc/order/giftcard", body)
	}
	h.wantCodes(gc("6000000000000001", "0000", nil), 4, extGiftCardUnknown)
	h.wantCodes(gc("6000000000009999", "1234", nil), 4, extGiftCardUnknown)
	h.wantCodes(gc("6000000000000101", "1234", nil), 4, extGiftCardUnknown) // GBP card in a EUR cinema
	h.wantCodes(gc("6000000000000003", "3333", nil), 4, extNoBalance)
	h.wantCodes(gc("6000000000000002", "2222", 1500), 4, extNoBalance)
	j := gc("6000000000000002", "2222", nil)
	h.wantOK(j)
	if h.num(j, "AmountAppliedInCents") != 1000 || h.num(j, "BalanceRemainingInCents") != 0 || h.num(j, "AmountToPayInCents") != 1650 {
		t.Fatalf("gift card: %s", compact(j))
	}
	if h.str(j, "Order.AppliedPayments.0.Kind") != "GiftCard" || h.str(j, "Order.AppliedPayments.0.MaskedCardNumber") != "************0002" {
		t.Fatalf("applied payments: %s", compact(j))
	}
	lp := func(card, pin string, amount any) J {
		body := map[string]any{"UserSessionId": id, "LoyaltyCardNumber": card}
		if pin != "" {
			body["Pin"] = pin
		}
		if amount != nil {
			body["AmountInCents"] = amount
		}
		return h.post("/RESTTicketing.svc/order/loyalty-points", body)
	}
	h.wantCodes(lp("7000000000000002", "1906", 500), resInsufficientPts, extNoBalance)
	h.wantCodes(lp("7000000000000001", "1815", 5000), 4, extAmountMismatch) // more than is left to pay
	j = lp("7000000000000001", "1815", 650)
	h.wantOK(j)
	if h.num(j, "AmountToPayInCents") != 1000 || h.num(j, "BalanceRemainingInCents") != 9350 {
		t.Fatalf("loyalty: %s", compact(j))
	}

	// Another order sees the reserved balance as gone.
	other := newID()
	h.wantOK(h.addTickets(other, "0001", 1113, []string{"0001"}, "L3"))
	h.wantCodes(h.post("/RESTTicketing.svc/order/giftcard", map[string]any{"UserSessionId": other, "CardNumber": "6000000000000002", "Pin": "2222"}), 4, extNoBalance)

	j = h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/r", true))
	h.wantOK(j)
	payID := strings.TrimPrefix(h.str(j, "PaymentRedirectUrl"), h.url+"/pay/checkout/")
	if p, _ := h.pay.Get(payID); p.AmountInCents != 1000 {
		t.Fatalf("redirect amount %d, want what remains after gift card and loyalty", p.AmountInCents)
	}
	d := h.details(id)
	if len(h.list(d, "AdditionalPayments")) != 2 || h.str(d, "AdditionalPayments.0.PaymentStatus") != payPending {
		t.Fatalf("additional payments before completion: %s", compact(d))
	}
	h.payAtProvider(h.str(j, "PaymentRedirectUrl"), "pay")
	eventually(t, "completion", func() bool {
		return h.details(id)["OrderIdentifiers"].(map[string]any)["IsCompletedOrder"] == true
	})
	d = h.details(id)
	for i, want := range []struct {
		amount   int64
		cardType string
	}{{1000, "GIFTCARD"}, {650, "LOYALTY"}} {
		p := h.val(d, "AdditionalPayments."+string(rune('0'+i))).(map[string]any)
		if p["PaymentStatus"] != payPaid || int64(p["AmountInCents"].(float64)) != want.amount || p["CardType"] != want.cardType || p["BilledAmountInCents"] != p["AmountInCents"] {
			t.Fatalf("additional payment %d: %v", i, p)
		}
	}
	if h.str(d, "OrderWebPaymentData.LoyaltyCardNumber") != "7000000000000001" || h.num(d, "MemberBalances.0.PointsRemaining") != 9350 {
		t.Fatalf("loyalty in details: %s", compact(d))
	}
	b := h.booking("0001", h.num(d, "OrderIdentifiers.VistaBookingNumber"))
	if len(h.list(b, "Booking.Payments")) != 3 {
		t.Fatalf("booking payments: %s", compact(b))
	}
	// Spent for good: the card is empty now.
	h.wantCodes(h.post("/RESTTicketing.svc/order/giftcard", map[string]any{"UserSessionId": other, "CardNumber": "6000000000000002", "Pin": "2222"}), 4, extNoBalance)
	j = h.post("/RESTTicketing.svc/order/loyalty-points", map[string]any{"UserSessionId": other, "LoyaltyCardNumber": "7000000000000001", "Pin": "1815"})
	h.wantOK(j)
	if h.num(j, "BalanceRemainingInCents") != 9350-1325 {
		t.Fatalf("loyalty after spend: %s", compact(j))
	}
	// Cancel gives a reservation back.
	h.wantOK(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": other}))
	third := newID()
	h.wantOK(h.addTickets(third, "0001", 1113, []string{"0001"}, "L4"))
	j = h.post("/RESTTicketing.svc/order/loyalty-points", map[string]any{"UserSessionId": third, "LoyaltyCardNumber": "7000000000000001", "Pin": "1815", "AmountInCents": 100})
	h.wantOK(j)
	if h.num(j, "BalanceRemainingInCents") != 9350-100 {
		t.Fatalf("loyalty after cancel: %s", compact(j))
	}
}

// TestLoyaltyNeedsTheMembersPin: a missing or wrong PIN is refused exactly like an unknown card
// (same Result, same description), and spends nothing; the right PIN spends the points.
func TestLoyaltyNeedsTheMembersPin(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0001"}, "L5"))
	lp := func(body map[string]any) J {
		body["UserSessionId"] = id
		return h.post("/RESTTicketing.svc/order/loyalty-points", body)
	}
	unknown := lp(map[string]any{"LoyaltyCardNumber": "7000000000000099", "Pin": "1906"})
	h.wantCodes(unknown, resMemberNotFound, 0)
	for _, tc := range []struct {
		name string
		body map[string]any
	}{
		{"no PIN", map[string]any{"LoyaltyCardNumber": "7000000000000002"}},
		{"empty PIN", map[string]any{"LoyaltyCardNumber": "7000000000000002", "Pin": ""}},
		{"wrong PIN", map[string]any{"LoyaltyCardNumber": "7000000000000002", "Pin": "1905"}},
		{"another member's PIN", map[string]any{"LoyaltyCardNumber": "7000000000000002", "Pin": "1815"}},
	} {
		j := lp(tc.body)
		h.wantCodes(j, resMemberNotFound, 0)
		if h.str(j, "ErrorDescription") != h.str(unknown, "ErrorDescription") {
			t.Errorf("%s: %q, an unknown card: %q", tc.name, h.str(j, "ErrorDescription"), h.str(unknown, "ErrorDescription"))
		}
	}
	if d := h.details(id); len(h.list(d, "AdditionalPayments")) != 0 {
		t.Fatalf("refused attempts applied points: %s", compact(d))
	}
	j := lp(map[string]any{"LoyaltyCardNumber": "7000000000000002", "Pin": "1906"})
	h.wantOK(j)
	if h.num(j, "AmountAppliedInCents") != 300 || h.num(j, "BalanceRemainingInCents") != 0 {
		t.Fatalf("the member's PIN: %s", compact(j))
	}
}

func TestFullyPaidByGiftCardUsesCompleteOrder(t *testing.T) {
	h := newHarness(t)
	id := newID()
	h.wantOK(h.addTickets(id, "0001", 1113, []string{"0002"}, "L20")) // 850 + 75
	h.wantOK(h.post("/RESTTicketing.svc/order/giftcard", map[string]any{"UserSessionId": id, "CardNumber": "6000000000000001", "Pin": "1234"}))
	h.wantCodes(h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/r", true)), 4, extAmountMismatch)
	j := h.post("/RESTTicketing.svc/order/payment", map[string]any{"UserSessionId": id, "CustomerName": "G", "CustomerEmail": "g@example.com", "BookingMode": 0})
	h.wantOK(j)
	if h.num(j, "VistaBookingNumber") == 0 {
		t.Fatalf("completion: %s", compact(j))
	}
	if d := h.details(id); h.str(d, "AdditionalPayments.0.PaymentStatus") != payPaid {
		t.Fatalf("gift card payment: %s", compact(d))
	}
	b := h.booking("0001", h.num(j, "VistaBookingNumber"))
	if h.str(b, "Booking.Payments.0.PaymentTenderCategory") != "GIFTCARD" || h.num(b, "Booking.Payments.0.OrderPaymentAmount") != 925 {
		t.Fatalf("gift card on the booking: %s", compact(b))
	}
}
