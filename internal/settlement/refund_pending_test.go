package settlement_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
)

// TestPendingRefundIsFollowed: a refund the provider accepts as pending keeps its part
// waiting with the refund's id, and is never asked for again (a repeat of the request would
// replay the first answer for a day, then make a second refund): later steps read that refund
// until it succeeds (the change is completed with it) or fails (the part fails, counted as
// nothing sent).
func TestPendingRefundIsFollowed(t *testing.T) {
	for _, final := range []struct {
		status    string
		want      ledger.State
		completes int
	}{
		{"succeeded", ledger.StateApplied, 1},
		{"failed", ledger.StateFailed, 0},
	} {
		for name, w := range worlds(t) {
			t.Run(final.status+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				w.provider.answer = "pending"
				w.ticketing.booking = cinema.Booking{CinemaID: "0001", Number: 100017, Payments: []cinema.BookingPayment{
					{Amount: eur(2650), ProviderReference: "pi_own"}}}
				parts, err := w.st.StartRefund(ctx, withoutCounter(clerk), eur(1200), w.ticketing.booking)
				if err != nil || len(parts) != 1 {
					t.Fatalf("parts %+v, %v", parts, err)
				}
				for range 3 { // the first step, then the status page's and the reconciler's
					if _, err := w.st.AdvanceGroup(ctx, parts[0]); err != nil {
						t.Fatal(err)
					}
				}
				got, _ := w.ledger.Get(ctx, parts[0].ID)
				if got.State != ledger.StateRefundRequested || got.RefundID == "" || !settlement.PartSent(got) {
					t.Fatalf("pending at the provider: %s, refund %q, sent %v; want refund_requested with the refund's id, sent", got.State, got.RefundID, settlement.PartSent(got))
				}
				if n := w.provider.asked[parts[0].IdempotencyKey]; n != 1 {
					t.Errorf("the refund was asked for %d times, want once (then read by its id)", n)
				}
				if len(w.ticketing.completed) != 0 {
					t.Fatalf("the change was completed before the refund went through: %+v", w.ticketing.completed)
				}
				w.provider.made[got.RefundID].Status = final.status
				if _, err := w.st.AdvanceGroup(ctx, parts[0]); err != nil {
					t.Fatal(err)
				}
				got, _ = w.ledger.Get(ctx, parts[0].ID)
				if got.State != final.want || len(w.ticketing.completed) != final.completes || w.provider.asked[parts[0].IdempotencyKey] != 1 {
					t.Fatalf("refund %s: part %s, %d complete-edits, asked %d times; want %s, %d, once", final.status, got.State,
						len(w.ticketing.completed), w.provider.asked[parts[0].IdempotencyKey], final.want, final.completes)
				}
				if final.want == ledger.StateFailed && (settlement.PartSent(got) || !strings.Contains(got.LastError, "no money went back")) {
					t.Errorf("a failed refund: sent %v, last error %q; want not sent, said so", settlement.PartSent(got), got.LastError)
				}
			})
		}
	}
}
