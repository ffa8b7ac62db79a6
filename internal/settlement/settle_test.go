package settlement

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestPaidAsEntered(t *testing.T) {
	e := ledger.Entry{AmountCents: 1325, Currency: "EUR"}
	for _, tc := range []struct {
		cents    int64
		currency string
		ok       bool
	}{
		{1325, "EUR", true},
		{1325, "eur", true},
		{1325, "USD", false},
		{1325, "", false},
		{1324, "EUR", false},
	} {
		p := upstream.Payment{ID: "cs_1", Amount: cinema.Money{Cents: tc.cents, Currency: tc.currency}}
		if err := paidAsEntered(p, e); (err == nil) != tc.ok {
			t.Errorf("%d %q: %v, want ok=%v", tc.cents, tc.currency, err, tc.ok)
		}
	}
}
