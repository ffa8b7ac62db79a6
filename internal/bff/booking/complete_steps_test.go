package booking

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestCompletionFor: what an edit needs of money follows from whether the booking was paid,
// the balance and where it is completed. A booking not paid before never moves money here (the
// difference is settled at the cinema), a counter takes more money itself, and a refund is a
// refund wherever it is asked for.
func TestCompletionFor(t *testing.T) {
	eur := func(cents int64) cinema.Money { return cinema.Money{Cents: cents, Currency: "EUR"} }
	cases := []struct {
		name      string
		paid      bool
		balance   cinema.Money
		atCounter bool
		want      completion
	}{
		{"paid, nothing to pay", true, eur(0), false, completeWithoutMoney},
		{"paid, nothing to pay, at the counter", true, eur(0), true, completeWithoutMoney},
		{"not paid, more to pay", false, eur(650), false, completeWithoutMoney},
		{"not paid, less to pay", false, eur(-650), false, completeWithoutMoney},
		{"not paid, more to pay, at the counter", false, eur(650), true, completeWithoutMoney},
		{"paid, more to pay", true, eur(650), false, completeWithPayment},
		{"paid, more to pay, at the counter", true, eur(650), true, completeAtCounter},
		{"paid, less to pay", true, eur(-650), false, completeWithRefund},
		{"paid, less to pay, at the counter", true, eur(-650), true, completeWithRefund},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := completionFor(tc.paid, tc.balance, tc.atCounter); got != tc.want {
				t.Errorf("completionFor(paid %v, %v, counter %v) = %d, want %d", tc.paid, tc.balance.Cents, tc.atCounter, got, tc.want)
			}
		})
	}
}

// TestCompleteButton: the edit page's Complete button says what pressing it does with money:
// a booking paid before pays or is refunded (at a counter, by the clerk); one not paid before
// settles the difference at the cinema, at a counter too when it comes to less.
func TestCompleteButton(t *testing.T) {
	en, _ := webtest.Localizers(t)
	eur := func(cents int64) cinema.Money { return cinema.Money{Cents: cents, Currency: "EUR"} }
	cases := []struct {
		name       string
		paid       bool
		balance    cinema.Money
		counter    bool
		wantKind   string
		wantAmount string
		wantLabel  string
	}{
		{"paid, more", true, eur(650), false, "pay", "€6.50", "Pay €6.50 and confirm"},
		{"paid, less", true, eur(-650), false, "refund", "€6.50", "Confirm and refund €6.50"},
		{"not paid, more", false, eur(650), false, "pay", "€6.50", "Confirm changes (€6.50 more to pay at the cinema)"},
		{"not paid, less", false, eur(-650), false, "refund", "€6.50", "Confirm changes (€6.50 less to pay at the cinema)"},
		{"nothing", true, eur(0), false, "none", "€0.00", "Confirm changes"},
		{"counter, paid, more", true, eur(650), true, "pay", "€6.50", "Take payment: €6.50"},
		{"counter, not paid, more", false, eur(650), true, "pay", "€6.50", "Take payment: €6.50"},
		{"counter, paid, less", true, eur(-650), true, "refund", "€6.50", "Refund €6.50 to the customer's card"},
		{"counter, not paid, less", false, eur(-650), true, "refund", "€6.50", "Confirm changes (€6.50 less to pay at the cinema)"},
		{"counter, nothing", false, eur(0), true, "none", "€0.00", "Confirm changes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kind, amount, label := completeButton(en, tc.paid, tc.balance, tc.counter)
			if kind != tc.wantKind || amount != tc.wantAmount || label != tc.wantLabel {
				t.Errorf("completeButton = %q, %q, %q; want %q, %q, %q", kind, amount, label, tc.wantKind, tc.wantAmount, tc.wantLabel)
			}
		})
	}
}
