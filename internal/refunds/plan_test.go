package refunds

import (
	"errors"
	"reflect"
	"testing"
)

func pay(ref string, paid, refundable int64) Payment {
	return Payment{Reference: ref, CardType: "VISA", PaidCents: paid, RefundableCents: refundable}
}

type want struct {
	ref    string
	amount int64
}

func TestPlan(t *testing.T) {
	card, paypal := pay("pi_card", 2000, -1), pay("pi_paypal", 900, -1) // oldest first, as the booking lists them
	for _, tc := range []struct {
		name     string
		amount   int64
		payments []Payment
		want     []want
		err      error
	}{
		{name: "one payment is enough", amount: 1250, payments: []Payment{pay("pi_1", 2650, -1)}, want: []want{{"pi_1", 1250}}},
		{name: "the whole payment", amount: 2650, payments: []Payment{pay("pi_1", 2650, -1)}, want: []want{{"pi_1", 2650}}},
		{name: "the newest is enough alone", amount: 500, payments: []Payment{card, paypal}, want: []want{{"pi_paypal", 500}}},
		{name: "the newest exactly", amount: 900, payments: []Payment{card, paypal}, want: []want{{"pi_paypal", 900}}},
		{name: "spills over to the older, newest first", amount: 1875, payments: []Payment{card, paypal}, want: []want{{"pi_paypal", 900}, {"pi_card", 975}}},
		{name: "everything back", amount: 2900, payments: []Payment{card, paypal}, want: []want{{"pi_paypal", 900}, {"pi_card", 2000}}},
		{name: "three payments, stops when covered", amount: 1500, payments: []Payment{pay("a", 1000, -1), pay("b", 1000, -1), pay("c", 1000, -1)},
			want: []want{{"c", 1000}, {"b", 500}}},
		{name: "what was refunded already is not given again", amount: 1000, payments: []Payment{card, pay("pi_paypal", 900, 400)},
			want: []want{{"pi_paypal", 400}, {"pi_card", 600}}},
		{name: "a fully refunded payment is skipped", amount: 1000, payments: []Payment{card, pay("pi_paypal", 900, 0)}, want: []want{{"pi_card", 1000}}},
		{name: "refundable above paid is capped", amount: 1000, payments: []Payment{card, pay("pi_paypal", 900, 5000)}, want: []want{{"pi_paypal", 900}, {"pi_card", 100}}},
		{name: "no reference, no refund to it", amount: 300, payments: []Payment{card, pay("", 900, -1)}, want: []want{{"pi_card", 300}}},
		{name: "a reference listed twice counts once", amount: 2000, payments: []Payment{card, card}, want: []want{{"pi_card", 2000}}},
		{name: "exceeds the total", amount: 2901, payments: []Payment{card, paypal}, err: ErrExceedsPayments},
		{name: "exceeds what is left", amount: 2000, payments: []Payment{pay("pi_card", 2000, 1500), pay("pi_paypal", 900, 0)}, err: ErrExceedsPayments},
		{name: "a reference listed twice is not doubled", amount: 3000, payments: []Payment{card, card}, err: ErrExceedsPayments},
		{name: "no payments", amount: 100, payments: nil, err: ErrExceedsPayments},
		{name: "zero", amount: 0, payments: []Payment{card}, err: ErrInvalidAmount},
		{name: "negative", amount: -500, payments: []Payment{card}, err: ErrInvalidAmount},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := Plan(tc.amount, tc.payments)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || parts != nil {
					t.Fatalf("Plan(%d) = %+v, %v; want error %v", tc.amount, parts, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Plan(%d): %v", tc.amount, err)
			}
			var got []want
			var sum int64
			for _, p := range parts {
				got = append(got, want{p.Payment.Reference, p.AmountCents})
				sum += p.AmountCents
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Plan(%d) = %+v, want %+v", tc.amount, got, tc.want)
			}
			if sum != tc.amount {
				t.Fatalf("parts add up to %d, not %d", sum, tc.amount)
			}
		})
	}
}

func TestPlanSaysHowMuchThereIs(t *testing.T) {
	_, err := Plan(5000, []Payment{pay("a", 2000, -1), pay("b", 900, -1)})
	if err == nil || err.Error() != "refunds: the amount exceeds what the payments can give back: 5000 cents to refund, the payments can give back 2900" {
		t.Fatalf("error: %v", err)
	}
}

func TestPlanKeepsThePaymentDetails(t *testing.T) {
	pp := Payment{Reference: "pi_b", CardType: "PAYPAL", CardMasked: "", PaidCents: 900, RefundableCents: -1}
	parts, err := Plan(100, []Payment{pay("pi_a", 2000, -1), pp})
	if err != nil || len(parts) != 1 || parts[0].Payment != pp {
		t.Fatalf("parts %+v, %v", parts, err)
	}
}
