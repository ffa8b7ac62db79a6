// Package refunds plans how a refund goes back over the external payments a booking was paid
// with: the newest payment first, never more than a payment can still give back. It is pure
// arithmetic in cents; the BFF turns every part into its own ledger entry.
package refunds

import (
	"errors"
	"fmt"
)

// Payment is one external payment of a booking a refund can go back to.
type Payment struct {
	Reference  string // the provider's reference of the payment (Stripe: the payment intent)
	CardType   string // as the booking record shows it (VISA, PAYPAL, …)
	CardMasked string
	PaidCents  int64 // what the payment took
	// RefundableCents is what the provider says can still be refunded from the payment; a
	// negative value means it is not known, and PaidCents is the limit.
	RefundableCents int64
}

// Limit is the most a refund may take from the payment.
func (p Payment) Limit() int64 {
	if p.RefundableCents < 0 || p.RefundableCents > p.PaidCents {
		return max(p.PaidCents, 0)
	}
	return p.RefundableCents
}

// Part is the share of a refund that goes back to one payment.
type Part struct {
	Payment     Payment
	AmountCents int64
}

var (
	// ErrInvalidAmount: the amount to refund is zero or negative.
	ErrInvalidAmount = errors.New("refunds: the amount to refund must be positive")
	// ErrExceedsPayments: the payments cannot give back that much together.
	ErrExceedsPayments = errors.New("refunds: the amount exceeds what the payments can give back")
)

// Plan splits amountCents over payments, given oldest first (as a booking lists them). The
// newest payment gives back first, each at most its Limit, then the next older one, until the
// amount is covered. The parts come newest payment first. Payments without a reference or with
// nothing left to give are skipped; a reference listed twice counts once (its newest listing).
// Nothing is planned when the amount is not positive (ErrInvalidAmount) or more than the
// payments can give back together (ErrExceedsPayments, which says how much they can).
func Plan(amountCents int64, payments []Payment) ([]Part, error) {
	if amountCents <= 0 {
		return nil, fmt.Errorf("%w: %d cents", ErrInvalidAmount, amountCents)
	}
	seen := map[string]bool{}
	var parts []Part
	left, available := amountCents, int64(0)
	for i := len(payments) - 1; i >= 0; i-- {
		p := payments[i]
		if p.Reference == "" || seen[p.Reference] {
			continue
		}
		seen[p.Reference] = true
		limit := p.Limit()
		if limit <= 0 {
			continue
		}
		available += limit
		if left == 0 {
			continue // covered; go on only to say how much there is
		}
		take := min(left, limit)
		parts = append(parts, Part{Payment: p, AmountCents: take})
		left -= take
	}
	if left > 0 {
		return nil, fmt.Errorf("%w: %d cents to refund, the payments can give back %d", ErrExceedsPayments, amountCents, available)
	}
	return parts, nil
}
