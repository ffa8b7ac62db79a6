package settlement

import (
	"context"
	"errors"
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

// CounterPayment is money taken at the box office (a card terminal or cash).
type CounterPayment struct {
	Tender    string // the tender category the ticketing API records it under
	Reference string // the terminal's reference for the payment
	CardType  string
}

// RecordCounterPayment writes the edit's payment taken at the counter by c.Actor: it goes
// straight to paid, and Advance applies it with complete-edit as it does a provider's payment.
// recorded says this call took it (a repeated press finds the entry already paid), so the
// caller audits the money once.
func (st *Settler) RecordCounterPayment(ctx context.Context, c Change, amount cinema.Money, p CounterPayment) (e ledger.Entry, recorded bool, err error) {
	en := c.entry(ledger.KindPayment, fmt.Sprintf("edit-counter:%s:%d", c.EditSessionID, amount.Cents), amount)
	en.Tender = p.Tender
	e, _, err = st.ledger.Create(ctx, en)
	if err != nil {
		return e, false, fmt.Errorf("write the counter payment: %w", err)
	}
	if e.State != ledger.StateCreated {
		return e, false, nil
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StatePaid,
		fmt.Sprintf("taken at the counter by %s (%s)", c.Actor, p.CardType), func(x *ledger.Entry) {
			x.ProviderReference, x.CardType = p.Reference, p.CardType
		})
	if err != nil && !errors.Is(err, ledger.ErrStateChanged) {
		return e, false, fmt.Errorf("mark the counter payment paid: %w", err)
	}
	return e, true, nil
}
