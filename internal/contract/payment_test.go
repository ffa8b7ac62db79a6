package contract

import (
	"errors"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestRedirectPaymentWithGiftCardAndLoyalty(t *testing.T) {
	e := newEnv(t, envOptions{})
	o, _ := e.newOrder(2)

	g, err := e.client.ApplyGiftCard(e.ctx, o.UserSessionID, "6000000000000002", "2222", nil)
	noErr(t, err)
	if g.Applied.Cents != 1000 || g.BalanceRemaining.Cents != 0 || g.ToPay.Cents != o.Total.Cents-1000 {
		t.Errorf("gift card %+v (total %v)", g, o.Total)
	}
	l, err := e.client.ApplyLoyaltyPointsPayment(e.ctx, o.UserSessionID, "7000000000000001", "1815", ptr(int64(200)))
	noErr(t, err)
	if l.Applied.Cents != 200 || l.BalanceRemaining.Cents != 9800 || l.ToPay.Cents != o.Total.Cents-1200 {
		t.Errorf("loyalty %+v", l)
	}
	got, err := e.client.GetOrder(e.ctx, o.UserSessionID)
	noErr(t, err)
	if len(got.AppliedPayments) != 2 || got.ToPay().Cents != o.Total.Cents-1200 {
		t.Errorf("order applied %+v to pay %v", got.AppliedPayments, got.ToPay())
	}

	redirect, err := e.client.ExternalPaymentStarting(e.ctx, upstream.ExternalPaymentRequest{
		UserSessionID: o.UserSessionID, ReturnURL: "http://bff.example/return", PaymentMethod: "sandbox",
		CustomerName: "Ada Lovelace", CustomerEmail: "ada@example.com", PrintStreamType: "HTML", GeneratePrintStream: true,
	})
	noErr(t, err)
	if !strings.HasPrefix(redirect, e.srv.URL+"/pay/checkout/") {
		t.Fatalf("redirect %q", redirect)
	}
	// While the payment is pending the order cannot change.
	_, err = e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{UserSessionID: o.UserSessionID, CinemaID: berlin, SessionID: bigSession, Tickets: []upstream.TicketRequest{{TypeCode: "0001"}}})
	wantErr(t, err, upstream.ErrOrderClosed)
	d, err := e.client.GetOrderDetails(e.ctx, o.UserSessionID)
	noErr(t, err)
	if d.Completed || d.WebPayment == nil || d.WebPayment.Status != cinema.PaymentPending {
		t.Errorf("pending details %+v %+v", d, d.WebPayment)
	}

	back := e.decide(redirect, "pay")
	token := back.Query().Get("token")
	if back.Host != "bff.example" || token == "" {
		t.Fatalf("return address %v", back)
	}
	d = e.pollDetails(o.UserSessionID, func(d cinema.OrderDetails) bool { return d.Completed })
	if !d.Completed || d.BookingNumber == 0 || d.BookingID == "" || d.UserSessionID != o.UserSessionID || d.CinemaID != berlin {
		t.Fatalf("details %+v", d)
	}
	wp := d.WebPayment
	if wp == nil || wp.Status != cinema.PaymentPaid || wp.Token != token || wp.Amount.Cents != o.Total.Cents-1200 || wp.CardNumberMasked == "" || wp.CardType == "" {
		t.Errorf("web payment %+v (token %q)", wp, token)
	}
	if len(d.AdditionalPayments) != 2 || d.AdditionalPayments[0].Status != cinema.PaymentPaid || d.AdditionalPayments[0].Amount.Cents+d.AdditionalPayments[1].Amount.Cents != 1200 {
		t.Errorf("additional %+v", d.AdditionalPayments)
	}
	if len(d.PrintStreams) == 0 || d.PrintStreams[0].Data == "" {
		t.Errorf("print streams %+v", d.PrintStreams)
	}
	b, err := e.client.GetSingleBooking(e.ctx, berlin, d.BookingNumber)
	noErr(t, err)
	if !b.Paid || len(b.Tickets) != 2 {
		t.Errorf("booking %+v", b)
	}
	// Completed: no more changes.
	_, err = e.client.ExternalPaymentStarting(e.ctx, upstream.ExternalPaymentRequest{UserSessionID: o.UserSessionID, ReturnURL: "http://bff.example/return"})
	if err == nil {
		t.Error("second external payment on a completed order accepted")
	}
}

func TestRedirectPaymentDeclinedAndCancelled(t *testing.T) {
	for _, tc := range []struct {
		action string
		want   cinema.PaymentStatus
	}{{"decline", cinema.PaymentDeclined}, {"cancel", cinema.PaymentCancelled}} {
		t.Run(tc.action, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			o, _ := e.newOrder(1)
			redirect, err := e.client.ExternalPaymentStarting(e.ctx, upstream.ExternalPaymentRequest{UserSessionID: o.UserSessionID, ReturnURL: "http://bff.example/return", PaymentMethod: "sandbox"})
			noErr(t, err)
			e.decide(redirect, tc.action)
			d := e.pollDetails(o.UserSessionID, func(d cinema.OrderDetails) bool {
				return d.WebPayment != nil && d.WebPayment.Status != cinema.PaymentPending
			})
			if d.Completed || d.WebPayment.Status != tc.want {
				t.Errorf("details %+v web %+v", d, d.WebPayment)
			}
			// The order is ready for payment again.
			again, err := e.client.ExternalPaymentStarting(e.ctx, upstream.ExternalPaymentRequest{UserSessionID: o.UserSessionID, ReturnURL: "http://bff.example/return", PaymentMethod: "sandbox"})
			noErr(t, err)
			if again == redirect {
				t.Error("a retry reused the failed payment")
			}
		})
	}
}

func TestPaymentRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	o, _ := e.newOrder(1)
	_, err := e.client.ApplyGiftCard(e.ctx, o.UserSessionID, "6000000000000001", "0000", nil)
	er := wantErr(t, err, upstream.ErrPaymentDeclined)
	if er.ExtendedResultCode != upstream.ExtGiftCardRejected {
		t.Errorf("error %#v", er)
	}
	_, err = e.client.ApplyGiftCard(e.ctx, o.UserSessionID, "6000000000000003", "3333", ptr(int64(100)))
	wantErr(t, err, upstream.ErrInsufficientBalance)
	_, err = e.client.ApplyLoyaltyPointsPayment(e.ctx, o.UserSessionID, "7000000000000002", "1906", ptr(int64(1000)))
	wantErr(t, err, upstream.ErrInsufficientBalance)
	wantErr(t, err, upstream.ErrPaymentDeclined)
	_, err = e.client.ApplyLoyaltyPointsPayment(e.ctx, o.UserSessionID, "7999999999999999", "1906", nil)
	if err == nil {
		t.Error("unknown loyalty card accepted")
	}
	var unknown *upstream.Error
	if !errors.As(err, &unknown) {
		t.Fatalf("unknown loyalty card: %v", err)
	}
	// The member's card without the member's PIN reads like an unknown card.
	for _, pin := range []string{"", "0000"} {
		_, err = e.client.ApplyLoyaltyPointsPayment(e.ctx, o.UserSessionID, "7000000000000002", pin, nil)
		var er *upstream.Error
		if !errors.As(err, &er) || er.Result != unknown.Result || er.ExtendedResultCode != unknown.ExtendedResultCode || er.Description != unknown.Description {
			t.Errorf("PIN %q: %v, an unknown card: %v", pin, err, unknown)
		}
	}
	_, err = e.client.ExternalPaymentStarting(e.ctx, upstream.ExternalPaymentRequest{UserSessionID: upstream.NewUserSessionID(), ReturnURL: "http://x"})
	wantErr(t, err, upstream.ErrNotFound)
}

func TestCompleteOrderAsReservation(t *testing.T) {
	e := newEnv(t, envOptions{})
	o, _ := e.newOrder(2)
	d, err := e.client.CompleteOrder(e.ctx, upstream.CompleteOrderRequest{
		UserSessionID: o.UserSessionID, CustomerName: "Hedy Lamarr", CustomerEmail: "hedy@example.com", BookingMode: upstream.BookingModeReservation,
	})
	noErr(t, err)
	if !d.Completed || d.BookingNumber == 0 {
		t.Fatalf("details %+v", d)
	}
	b, err := e.client.GetSingleBooking(e.ctx, berlin, d.BookingNumber)
	noErr(t, err)
	if b.Paid || len(b.Tickets) != 2 || b.CustomerEmail != "hedy@example.com" {
		t.Errorf("booking %+v", b)
	}
	_, err = e.client.CompleteOrder(e.ctx, upstream.CompleteOrderRequest{UserSessionID: o.UserSessionID, BookingMode: upstream.BookingModeReservation})
	if err == nil {
		t.Error("completing twice accepted")
	}

	// A paid completion with the wrong amount is refused.
	o2, _ := e.newOrder(1)
	_, err = e.client.CompleteOrder(e.ctx, upstream.CompleteOrderRequest{UserSessionID: o2.UserSessionID, BookingMode: upstream.BookingModeSale, PerformPayment: true,
		Payment: &upstream.OrderPayment{AmountCents: 1, TenderCategory: "CREDITCARD", CardNumber: "4242424242424242", CardType: "VISA"}})
	wantErr(t, err, upstream.ErrInvalidRequest)
	d2, err := e.client.CompleteOrder(e.ctx, upstream.CompleteOrderRequest{UserSessionID: o2.UserSessionID, CustomerEmail: "x@example.com", BookingMode: upstream.BookingModeSale, PerformPayment: true,
		Payment: &upstream.OrderPayment{AmountCents: o2.Total.Cents, TenderCategory: "CREDITCARD", CardNumber: "4242424242424242", CardType: "VISA"}})
	noErr(t, err)
	if !d2.Completed {
		t.Errorf("paid completion %+v", d2)
	}
}

// TestPaymentProvider drives the Stripe adapter against the sandbox's Stripe subset: the
// behaviour (state) that stripe-mock does not have.
func TestPaymentProvider(t *testing.T) {
	e := newEnv(t, envOptions{})
	req := upstream.PaymentRequest{AmountCents: 500, Currency: "EUR", ReturnURL: "http://bff.example/paid", IdempotencyKey: "edit-1", Reference: "ledger-1", Description: "Booking edit"}
	p, err := e.pay.CreatePayment(e.ctx, req)
	noErr(t, err)
	if !strings.HasPrefix(p.ID, "cs_") || p.Status != cinema.PaymentPending || p.Amount != (cinema.Money{Cents: 500, Currency: "EUR"}) || p.HostedURL == "" || p.Reference != "ledger-1" || p.CreatedAt.IsZero() {
		t.Fatalf("payment %+v", p)
	}
	again, err := e.pay.CreatePayment(e.ctx, req)
	noErr(t, err)
	if again.ID != p.ID {
		t.Errorf("same idempotency key gave %s and %s", p.ID, again.ID)
	}
	_, err = e.pay.Refund(e.ctx, p.ID, 100, "rf-0")
	wantErr(t, err, upstream.ErrPaymentNotPaid)

	if back := e.decide(p.HostedURL, "decline"); back != nil {
		t.Fatalf("a declined card left the page: %v", back)
	}
	if still, err := e.pay.GetPayment(e.ctx, p.ID); err != nil || still.Status != cinema.PaymentPending {
		t.Fatalf("after a decline: %+v %v", still, err)
	}
	back := e.decide(p.HostedURL, "pay")
	paid, err := e.pay.GetPayment(e.ctx, p.ID)
	noErr(t, err)
	if paid.Status != cinema.PaymentPaid || paid.Token != back.Query().Get("token") || paid.CardNumberMasked == "" || paid.Refundable().Cents != 500 || !strings.HasPrefix(paid.ProviderReference, "pi_") {
		t.Errorf("paid %+v, return %v", paid, back)
	}
	rf, err := e.pay.Refund(e.ctx, p.ID, 300, "rf-1")
	noErr(t, err)
	if !strings.HasPrefix(rf.ID, "re_") || rf.PaymentID != paid.ProviderReference || rf.Amount != 300 || !rf.Succeeded() {
		t.Errorf("refund %+v", rf)
	}
	rf2, err := e.pay.Refund(e.ctx, paid.ProviderReference, 300, "rf-1")
	noErr(t, err)
	if rf2.ID != rf.ID {
		t.Error("refund repeat with the same key refunded twice")
	}
	_, err = e.pay.Refund(e.ctx, p.ID, 300, "rf-2")
	wantErr(t, err, upstream.ErrRefundExceedsRefundable)
	part, err := e.pay.GetPayment(e.ctx, p.ID)
	noErr(t, err)
	if part.Status != cinema.PaymentPartiallyRefunded || part.Refunded.Cents != 300 || part.Refundable().Cents != 200 {
		t.Errorf("partially refunded %+v", part)
	}
	// The booking's original payment is a payment intent the sandbox knows.
	orig, err := e.pay.GetPayment(e.ctx, "pi_seed100001")
	if err != nil || orig.Status != cinema.PaymentPaid || orig.CardType == "" {
		t.Errorf("seeded intent %+v %v", orig, err)
	}
	// A checkout the customer turned back from is ended.
	other, err := e.pay.CreatePayment(e.ctx, upstream.PaymentRequest{AmountCents: 700, Currency: "EUR", ReturnURL: "http://bff.example/paid", IdempotencyKey: "edit-2", Reference: "ledger-2", Description: "Booking edit"})
	noErr(t, err)
	if c, err := e.pay.CancelPayment(e.ctx, other.ID); err != nil || c.Status != cinema.PaymentCancelled {
		t.Errorf("cancelled %+v %v", c, err)
	}
	_, err = e.pay.GetPayment(e.ctx, "cs_test_doesnotexist")
	wantErr(t, err, upstream.ErrNotFound)
	_, err = e.pay.Refund(e.ctx, "pi_doesnotexist", 1, "k")
	wantErr(t, err, upstream.ErrNotFound)
	_, err = e.pay.CreatePayment(e.ctx, upstream.PaymentRequest{AmountCents: -5, Currency: "EUR", ReturnURL: "http://x"})
	wantErr(t, err, upstream.ErrInvalidRequest)
	_, err = e.pay.CreatePayment(e.ctx, upstream.PaymentRequest{AmountCents: 25, Currency: "EUR", ReturnURL: "http://x"})
	wantErr(t, err, upstream.ErrAmountTooSmall)
}

func ptr[T any](v T) *T { return &v }
