package booking

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestMoneyLinesFollowTheLanguage: the booking page's payment and refund lines are written in
// the visitor's language, money included ("€13.25", "13,25 €" with a no-break space), never in
// a second format.
func TestMoneyLinesFollowTheLanguage(t *testing.T) {
	en, de := webtest.Localizers(t)
	pay := cinema.BookingPayment{Amount: cinema.Money{Cents: 1325, Currency: "EUR"}, CardType: "VISA", CardNumberMasked: "****4242"}
	if got, want := paymentText(en, pay), "€13.25 paid by VISA ****4242"; got != want {
		t.Errorf("paymentText in English = %q, want %q", got, want)
	}
	if got, want := paymentText(de, pay), "13,25\u00a0€ bezahlt mit VISA ****4242"; got != want {
		t.Errorf("paymentText in German = %q, want %q", got, want)
	}
	back := cinema.BookingPayment{Amount: cinema.Money{Cents: -900, Currency: "EUR"}, CardType: "PAYPAL"}
	if got, want := paymentText(de, back), "9,00\u00a0€ erstattet an PAYPAL"; got != want {
		t.Errorf("refund in German = %q, want %q", got, want)
	}
	parts := []ledger.Entry{
		{AmountCents: 900, Currency: "EUR", CardType: "PAYPAL"},
		{AmountCents: 425, Currency: "EUR", CardType: "VISA", CardMasked: "****4242"},
	}
	if got, want := refundSummary(en, parts), "Refunded €13.25: €9.00 back to PAYPAL, €4.25 back to VISA ****4242."; got != want {
		t.Errorf("refundSummary = %q, want %q", got, want)
	}
	if got, want := refundSummary(de, parts[:1]), "9,00\u00a0€ erstattet an PAYPAL."; got != want {
		t.Errorf("refundSummary = %q, want %q", got, want)
	}
	if got, want := refundSummary(de, []ledger.Entry{{AmountCents: 900, Currency: "EUR"}}), "9,00\u00a0€ erstattet an Ihre ursprüngliche Zahlungsart."; got != want {
		t.Errorf("refundSummary without a card = %q, want %q", got, want)
	}
}
