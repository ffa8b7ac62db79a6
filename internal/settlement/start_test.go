package settlement_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/refunds"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

var change = settlement.Change{EditSessionID: "abc", CinemaID: "0001", BookingID: "BK1", BookingNumber: 100001, Notice: "{}"}

func settlers(t *testing.T) map[string]*settlement.Settler {
	out := map[string]*settlement.Settler{}
	for name, db := range testenv.MigratedDatabases(t) {
		out[name] = settlement.New(settlement.Deps{Ledger: ledger.New(db.SQL)})
	}
	return out
}

// The entry points write what the handlers wrote before: a press at the same moment finds the
// same entry, a new attempt after a failed one gets its own key, a counter payment is paid and
// audited once, and a refund is split into parts with keys derived from the first.
func TestEntryPoints(t *testing.T) {
	eur := func(c int64) cinema.Money { return cinema.Money{Cents: c, Currency: "EUR"} }
	for name, st := range settlers(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			a, err := st.StartPayment(ctx, change, eur(1250))
			if err != nil {
				t.Fatal(err)
			}
			b, err := st.StartPayment(ctx, change, eur(1250))
			if err != nil || b.ID != a.ID || a.IdempotencyKey != "edit-pay:abc:1250:0" || a.State != ledger.StateCreated {
				t.Fatalf("second press: %+v, %v; first %+v", b, err, a)
			}
			st.PaymentNotCreated(ctx, a.ID)
			c, err := st.StartPayment(ctx, change, eur(1250))
			if err != nil || c.ID == a.ID || c.IdempotencyKey != "edit-pay:abc:1250:1" {
				t.Fatalf("after a failed payment: %+v, %v", c, err)
			}

			counter := change
			counter.EditSessionID, counter.Actor = "def", "clerk"
			p := settlement.CounterPayment{Method: boxoffice.TenderCash, Tender: "CASH", Reference: "T-1", CardType: "CASH"}
			e, recorded, err := st.RecordCounterPayment(ctx, counter, eur(900), p)
			if err != nil || !recorded || e.State != ledger.StatePaid || e.ProviderReference != "T-1" || e.Tender != "CASH" || e.Actor != "clerk" {
				t.Fatalf("counter payment: %+v, %v, %v", e, recorded, err)
			}
			if again, recorded, err := st.RecordCounterPayment(ctx, counter, eur(900), p); err != nil || recorded || again.ID != e.ID {
				t.Fatalf("repeated counter payment: %+v, %v, %v", again, recorded, err)
			}

			refund := change
			refund.EditSessionID = "ghi"
			booking := cinema.Booking{Payments: []cinema.BookingPayment{
				{Amount: eur(500), ProviderReference: "pi_1", External: true, ExternalKnown: true},
				{Amount: eur(1000), ProviderReference: "pi_2", External: true, ExternalKnown: true},
			}}
			parts, err := st.StartRefund(ctx, refund, eur(1200), booking)
			if err != nil || len(parts) != 2 {
				t.Fatalf("refund: %+v, %v", parts, err)
			}
			if parts[0].IdempotencyKey != "edit-refund:ghi:1200:0:part1" || settlement.PartsTotal(parts) != eur(1200) {
				t.Fatalf("refund parts: %+v", parts)
			}
			if _, err := st.StartRefund(ctx, refund, eur(2000), booking); !errors.Is(err, settlement.ErrRefundNotPlanned) || !errors.Is(err, refunds.ErrExceedsPayments) {
				t.Fatalf("refund of more than was paid: %v", err)
			}
		})
	}
}
