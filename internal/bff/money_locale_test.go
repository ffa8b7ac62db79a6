package bff

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// TestMoneyLinesFollowTheCinemaLocale: the booking page's payment and refund lines are written
// in the cinema's locale, as checkout, the counter and the mail are, never in a second format.
func TestMoneyLinesFollowTheCinemaLocale(t *testing.T) {
	pay := cinema.BookingPayment{Amount: cinema.Money{Cents: 1325, Currency: "EUR"}, CardType: "VISA", CardNumberMasked: "****4242"}
	for _, c := range []struct{ locale, want string }{
		{"de-DE", "13,25\u00a0€ paid by VISA ****4242"},
		{"en-IE", "€13.25 paid by VISA ****4242"},
	} {
		if got := paymentText(pay, c.locale); got != c.want {
			t.Errorf("paymentText in %s = %q, want %q", c.locale, got, c.want)
		}
	}
	parts := []ledger.Entry{
		{AmountCents: 900, Currency: "EUR", CardType: "PAYPAL"},
		{AmountCents: 425, Currency: "EUR", CardType: "VISA", CardMasked: "****4242"},
	}
	if got, want := refundSummary(parts, "en-IE"), "Refunded €13.25: €9.00 back to PAYPAL, €4.25 back to VISA ****4242."; got != want {
		t.Errorf("refundSummary = %q, want %q", got, want)
	}
	if got, want := refundSummary(parts[:1], "de-DE"), "Refunded 9,00\u00a0€ to PAYPAL."; got != want {
		t.Errorf("refundSummary = %q, want %q", got, want)
	}
}
