package sandbox

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// TestBookingPaidInTwoPayments: 100020 was paid by two external payments; the booking lists
// both (PaymentId 1 and 2, each with its amount and payment intent) and the provider knows both
// intents, so refunds against either work, each up to its own amount.
func TestBookingPaidInTwoPayments(t *testing.T) {
	h := newHarness(t)
	b := h.booking("0001", 100020)
	if h.num(b, "Booking.TotalValueCents") != 2900 || len(h.list(b, "Booking.Tickets")) != 3 || len(h.list(b, "Booking.Payments")) != 2 {
		t.Fatalf("100020: %s", compact(b))
	}
	for i, want := range []struct {
		id, ref, card, masked string
		amount                int64
	}{
		{"1", "pi_seed100020a", "VISA", "************4242", 2000},
		{"2", "pi_seed100020b", "PAYPAL", "", 900},
	} {
		p := "Booking.Payments." + string(rune('0'+i)) + "."
		if h.str(b, p+"PaymentId") != want.id || h.num(b, p+"OrderPaymentAmount") != want.amount || h.str(b, p+"BankReference") != want.ref ||
			h.str(b, p+"CardType") != want.card || h.str(b, p+"CardNumberMasked") != want.masked {
			t.Fatalf("payment %d: %s", i+1, compact(b))
		}
		pay, ok := h.pay.Get(want.ref)
		if !ok || pay.Status != payprovider.StatusPaid || pay.AmountInCents != want.amount || pay.Currency != "EUR" {
			t.Fatalf("provider intent %s: %+v %v", want.ref, pay, ok)
		}
	}
	if _, err := h.pay.Refund("pi_seed100020b", 901, "too-much"); err == nil {
		t.Fatal("refunded more than the second payment took")
	}
	if _, err := h.pay.Refund("pi_seed100020b", 900, "all-of-b"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.pay.Refund("pi_seed100020a", 975, "part-of-a"); err != nil {
		t.Fatal(err)
	}
	if a, _ := h.pay.Get("pi_seed100020a"); a.Status != payprovider.StatusPartiallyRefunded || a.RefundedInCents != 975 {
		t.Fatalf("first payment after a partial refund: %+v", a)
	}
}

func TestWorldPaymentsMustAddUp(t *testing.T) {
	world := func(payments ...map[string]any) []byte {
		m := map[string]any{
			"films": []any{map[string]any{"id": "F1", "title": "T"}},
			"cinemas": []any{map[string]any{
				"id": "0001", "name": "C", "currencyCode": "EUR", "timeZone": "UTC",
				"areaCategories": []any{map[string]any{"code": "S", "description": "Standard"}},
				"screens":        []any{map[string]any{"number": 1, "name": "S1", "areas": []any{map[string]any{"number": 1, "areaCategoryCode": "S", "rows": []any{map[string]any{"name": "A", "seats": "ssss"}}}}}},
				"ticketTypes":    []any{map[string]any{"code": "0001", "areaCategoryCode": "S", "description": "Adult", "priceInCents": 1000}},
				"sessions":       []any{map[string]any{"id": 1, "filmId": "F1", "screenNumber": 1, "startsIn": "1h"}},
				"bookings": []any{map[string]any{"number": 1, "id": "B1", "sessionId": 1, "paid": true, "payments": payments,
					"tickets": []any{map[string]any{"ticketTypeCode": "0001", "seats": []any{"A1"}}, map[string]any{"ticketTypeCode": "0001", "seats": []any{"A2"}}}}},
			}},
		}
		data, _ := json.Marshal(m)
		return data
	}
	p := func(ref string, amount int64) map[string]any {
		return map[string]any{"external": true, "providerReference": ref, "cardType": "VISA", "cardNumberMasked": "************4242", "amountInCents": amount}
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"do not add up", world(p("pi_a", 1500), p("pi_b", 400)), "add up to 1900"},
		{"no amount", world(p("pi_a", 2000), p("pi_b", 0)), "positive amountInCents"},
		{"adds up", world(p("pi_a", 1500), p("pi_b", 500)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := LoadWorld(bytes.NewReader(tc.data), testNow)
			if err != nil {
				t.Fatal(err)
			}
			prov := payprovider.New(payprovider.Options{PublicURL: "http://x/pay"})
			_, err = New(Options{World: w, Payments: prov})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if a, _ := prov.Get("pi_a"); a.AmountInCents != 1500 {
					t.Fatalf("pi_a seeded with %d", a.AmountInCents)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
}
