package settlement

import (
	"context"
	"fmt"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// Change is the edit of a booking that money is moved for.
type Change struct {
	EditSessionID string // the edit's user session at the ticketing API
	CinemaID      string
	BookingID     string
	BookingNumber int64
	Notice        string // the customer's message about the change, as JSON, sent once it is applied
	Actor         string // the staff member doing it; "" for the customer
	// AtBoxOffice: the change is made at a box office counter, which can hand back money
	// taken there (a refund's part on it waits for the clerk); elsewhere only the provider's
	// payments can take a refund.
	AtBoxOffice bool
}

// entry is the ledger entry of kind for c, before it is written.
func (c Change) entry(kind ledger.Kind, key string, amount cinema.Money) ledger.Entry {
	return ledger.Entry{Kind: kind, IdempotencyKey: key, AmountCents: amount.Cents, Currency: amount.Currency,
		CinemaID: c.CinemaID, BookingID: c.BookingID, BookingNumber: c.BookingNumber, EditSessionID: c.EditSessionID,
		Notice: c.Notice, Actor: c.Actor}
}

// editKey is the idempotency key of the edit's next payment or refund of cents. A new attempt
// after a declined or cancelled payment needs its own key; presses at the same moment (two
// tabs) share one, so they share one entry and one provider payment.
func (st *Settler) editKey(ctx context.Context, prefix, editSessionID string, cents int64) (string, error) {
	previous, err := st.ledger.ForEdit(ctx, editSessionID)
	if err != nil {
		return "", fmt.Errorf("read the edit's ledger entries: %w", err)
	}
	failed := 0
	for _, p := range previous {
		if p.State == ledger.StateFailed {
			failed++
		}
	}
	return fmt.Sprintf("%s%s:%d:%d", prefix, editSessionID, cents, failed), nil
}

// StartPayment writes the ledger entry of the edit's payment of amount on the provider's page
// and returns it; a press at the same moment gets the same entry. It does not ask the provider
// yet: Advance does, as a money step the page can wait for.
func (st *Settler) StartPayment(ctx context.Context, c Change, amount cinema.Money) (ledger.Entry, error) {
	key, err := st.editKey(ctx, "edit-pay:", c.EditSessionID, amount.Cents)
	if err != nil {
		return ledger.Entry{}, err
	}
	e, _, err := st.ledger.Create(ctx, c.entry(ledger.KindPayment, key, amount))
	if err != nil {
		return e, fmt.Errorf("write the edit's payment: %w", err)
	}
	return e, nil
}

// PaymentNotCreated ends a payment entry the provider never created a payment for, so the
// edit can be paid again with a new key. An entry that moved on meanwhile is left as it is.
func (st *Settler) PaymentNotCreated(ctx context.Context, id string) {
	_, _ = st.ledger.Transition(ctx, id, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "provider payment not created", nil)
}
