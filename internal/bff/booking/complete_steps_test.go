package booking

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
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
