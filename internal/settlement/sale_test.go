package settlement_test

import (
	"context"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// orders is a settlement.SaleTicketing: CompleteOrder answers what the test says and the
// order's details say whether it completed.
type orders struct {
	answer    error // CompleteOrder's error; nil completes the order
	completes int   // CompleteOrder calls that completed
	calls     int
	done      bool // the order is completed upstream
	noNumber  bool // CompleteOrder completes the order but its answer names no booking
	got       upstream.CompleteOrderRequest
}

func (o *orders) CompleteOrder(_ context.Context, r upstream.CompleteOrderRequest) (cinema.OrderDetails, error) {
	o.calls++
	o.got = r
	if o.answer != nil {
		return cinema.OrderDetails{}, o.answer
	}
	o.completes++
	o.done = true
	if o.noNumber {
		return cinema.OrderDetails{Completed: true}, nil
	}
	return cinema.OrderDetails{Completed: true, BookingNumber: 100099}, nil
}

func (o *orders) GetOrderDetails(context.Context, string) (cinema.OrderDetails, error) {
	if o.done {
		return cinema.OrderDetails{Completed: true, BookingNumber: 100099}, nil
	}
	return cinema.OrderDetails{}, nil
}

// buyers is a settlement.Sales.
type buyers struct{ completed map[string]int64 }

func (b *buyers) Buyer(context.Context, string) (string, string, error) { return "", "", nil }
func (b *buyers) Completed(_ context.Context, usid string, number int64) error {
	b.completed[usid] = number
	return nil
}

// TestSaleOnTheReader: a sale paid on a card reader completes its order once with that
// payment; an answer lost on the way is found in the order, not completed twice; an order that
// refuses the payment gives it back to that card.
func TestSaleOnTheReader(t *testing.T) {
	for _, tc := range []struct {
		name          string
		answer        error
		doneMeanwhile bool // the lost answer's order completed all the same
		noNumber      bool // the answer names no booking, the order's details do
		want          ledger.State
		wantCompletes int
		wantRefund    int64
	}{
		{name: "completed", want: ledger.StateApplied, wantCompletes: 1},
		{name: "answer lost, order completed", answer: upstream.ErrUnavailable, doneMeanwhile: true, want: ledger.StateApplied},
		{name: "order expired", answer: upstream.ErrOrderExpired, want: ledger.StateRefunded, wantRefund: 2650},
		{name: "answered without a booking number", noNumber: true, want: ledger.StateApplied, wantCompletes: 1},
	} {
		for name, w := range worlds(t) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				o, b := &orders{answer: tc.answer, noNumber: tc.noNumber}, &buyers{completed: map[string]int64{}}
				w.provider.known["pi_sale"] = paid("pi_sale", "", 2650)
				st := settlement.New(settlement.Deps{Ledger: w.ledger, Payments: w.provider, Ticketing: w.ticketing, Sales: b, SaleTicketing: o})
				e, _, err := w.ledger.Create(ctx, ledger.Entry{Kind: ledger.KindSale, IdempotencyKey: "sale-" + tc.name, AmountCents: 2650, Currency: "EUR",
					CinemaID: "0001", EditSessionID: "order-1", ReaderID: "tmr_1", Tender: "CREDIT"})
				if err != nil {
					t.Fatal(err)
				}
				e, err = w.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StatePaid, "test: paid on the reader", func(x *ledger.Entry) {
					x.ProviderPaymentID, x.CardMasked, x.CardType = "pi_sale", "************4242", "VISA"
				})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := st.Advance(ctx, e.ID)
				if tc.doneMeanwhile {
					o.done = true // the lost call went through after all
					got, _ = st.Advance(ctx, e.ID)
				}
				if got.State != tc.want || o.completes != tc.wantCompletes || w.provider.refunded["pi_sale"] != tc.wantRefund {
					t.Fatalf("entry %s (%s), %d completions, refunded %d; want %s, %d, %d", got.State, got.LastError, o.completes,
						w.provider.refunded["pi_sale"], tc.want, tc.wantCompletes, tc.wantRefund)
				}
				if tc.want == ledger.StateApplied && (got.BookingNumber != 100099 || b.completed["order-1"] != 100099) {
					t.Fatalf("the booking is not recorded: entry %d, purchase %d", got.BookingNumber, b.completed["order-1"])
				}
				if o.calls > 0 && (o.got.Payment == nil || o.got.Payment.AmountCents != 2650 || o.got.Payment.CardNumber != "************4242") {
					t.Fatalf("complete-order was given %+v", o.got.Payment)
				}
			})
		}
	}
}
