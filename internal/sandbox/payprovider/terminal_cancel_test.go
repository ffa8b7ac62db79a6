package payprovider

import (
	"errors"
	"slices"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// TestTerminalCustomerCancelsOnReader: the customer presses Cancel on the reader's screen. The
// action fails with its own code (not a decline), the intent is not charged and stays payable,
// terminal.reader.action_failed goes out, and a tap afterwards takes nothing. A reader that
// asks for nothing, is offline or unknown refuses the press.
func TestTerminalCustomerCancelsOnReader(t *testing.T) {
	e := newEnv(t)
	r := e.reader("Kiosk 1")
	pi := e.terminalIntent(2650, "")
	if _, err := e.process(r.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.p.CancelOnReader(r.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.sc.V1TerminalReaders.Retrieve(ctx, r.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Action; a == nil || a.Status != stripe.TerminalReaderActionStatusFailed || a.FailureCode != CustomerCancelledCode || a.FailureCode == "card_declined" {
		t.Fatalf("the reader's action after the customer's Cancel: %+v", a)
	}
	if after := e.intentWithCharge(pi.ID); after.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || after.LatestCharge != nil {
		t.Fatalf("the intent after the customer's Cancel: %+v", after)
	}
	if got := e.eventTypes(); !slices.Equal(got, []string{EventTerminalReaderActionFailed}) {
		t.Errorf("events %v", got)
	}
	if _, err := e.present(r.ID, ""); err == nil {
		t.Error("a tap after the customer's Cancel went through")
	}
	for _, tc := range []struct {
		name, reader string
		offline      bool
		want         error
	}{
		{"no action", r.ID, false, ErrNoReaderAction},
		{"unknown", "tmr_nope", false, ErrReaderNotFound},
		{"offline", r.ID, true, ErrReaderOffline},
	} {
		if tc.offline {
			if _, err := e.process(r.ID, pi.ID); err != nil {
				t.Fatal(err)
			}
			_ = e.p.SetReaderOffline(r.ID, true)
		}
		if err := e.p.CancelOnReader(tc.reader); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestTerminalCanceledIntentCannotBePaid: as at Stripe, a PaymentIntent cancelled while a reader
// asks for it clears the reader's action, and nothing can pay it afterwards: a tap finds nothing
// to pay, the reader cannot be given it again, and no charge is made.
func TestTerminalCanceledIntentCannotBePaid(t *testing.T) {
	e := newEnv(t)
	r := e.reader("Kiosk 1")
	pi := e.terminalIntent(2650, "")
	if _, err := e.process(r.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sc.V1PaymentIntents.Cancel(ctx, pi.ID, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := e.sc.V1TerminalReaders.Retrieve(ctx, r.ID, nil); err != nil || got.Action != nil {
		t.Fatalf("the reader after its intent was canceled: %+v %v", got, err)
	}
	if _, err := e.present(r.ID, "4242424242424242"); err == nil {
		t.Error("a tap after the intent was canceled went through")
	}
	if err := e.p.PresentPaymentMethod(r.ID, ""); !errors.Is(err, ErrNoReaderAction) {
		t.Errorf("a tap through the Go API: %v", err)
	}
	_, err := e.process(r.ID, pi.ID)
	if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != "payment_intent_unexpected_state" {
		t.Errorf("processing a canceled intent again: %+v", se)
	}
	if after := e.intentWithCharge(pi.ID); after.Status != stripe.PaymentIntentStatusCanceled || after.LatestCharge != nil || after.AmountReceived != 0 {
		t.Fatalf("the canceled intent: %+v", after)
	}
}
