package settlement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Money at the box office. A payment taken at the counter (card terminal or cash) is recorded
// in the box office's register under its reference, once, and goes through the ledger like a
// provider's payment. It is given back the way it was taken: a refund's part that falls on it
// is not made through the payment provider but handed back at the counter (cash from the till,
// a card-terminal payment on the terminal), and the clerk confirms it (GiveBackAtBoxOffice).

var (
	// ErrProviderReference: a terminal reference that the online payment provider knows as a
	// payment of its own. A refund later sent "to that reference" would move the money of
	// whoever made that payment, so it is refused at entry.
	ErrProviderReference = errors.New("settlement: the reference is a payment of the online payment provider")
	// ErrRefundAtBoxOffice: part of the refund falls on money taken at the box office, which
	// only the box office can give back; nothing was written.
	ErrRefundAtBoxOffice = errors.New("settlement: part of the refund must be given back at the box office")
	// ErrNotAtBoxOffice: GiveBackAtBoxOffice of an entry that is no box office refund waiting.
	ErrNotAtBoxOffice = errors.New("settlement: not a refund waiting at the box office")
)

// CounterPayment is money taken at the box office (a card terminal or cash).
type CounterPayment struct {
	Method    boxoffice.Tender
	Tender    string // the tender category the ticketing API records it under
	Reference string // the terminal's reference for the payment; ours for cash
	CardType  string
}

// CheckCounterReference refuses a card-terminal reference the online payment provider knows
// as one of its payments (ErrProviderReference). A provider that cannot be asked right now
// does not stop the counter: the box office's own register still refuses a reused reference,
// and a refund never goes to a box office payment through the provider.
func (st *Settler) CheckCounterReference(ctx context.Context, reference string) error {
	if st.payments == nil {
		return nil
	}
	p, err := st.payments.GetPayment(ctx, strings.TrimSpace(reference))
	switch {
	case err == nil && p.ID != "":
		st.log(ctx).Warn("counter reference refused: it is a payment of the online provider", "reference", reference)
		return ErrProviderReference
	case err != nil && !errors.Is(err, upstream.ErrNotFound):
		st.log(ctx).Warn("counter reference not checked with the payment provider", "reference", reference, "err", err)
	}
	return nil
}

// RecordCounterPayment writes the edit's payment taken at the counter by c.Actor: its
// reference goes into the box office's register (refused with boxoffice.ErrReferenceUsed when
// another payment has it), then the ledger entry goes straight to paid, and Advance applies it
// with complete-edit as it does a provider's payment. recorded says this call took it (a
// repeated press finds the entry already paid), so the caller audits the money once.
func (st *Settler) RecordCounterPayment(ctx context.Context, c Change, amount cinema.Money, p CounterPayment) (e ledger.Entry, recorded bool, err error) {
	en := c.entry(ledger.KindPayment, fmt.Sprintf("edit-counter:%s:%d", c.EditSessionID, amount.Cents), amount)
	en.Tender, en.ByHand = p.Tender, true
	if st.boxOffice != nil {
		if _, err := st.boxOffice.Record(ctx, boxoffice.Payment{Reference: p.Reference, Tender: p.Method, AmountCents: amount.Cents,
			Currency: amount.Currency, CinemaID: c.CinemaID, BookingNumber: c.BookingNumber, Owner: en.IdempotencyKey, Actor: c.Actor}); err != nil {
			return ledger.Entry{}, false, fmt.Errorf("record the counter payment's reference: %w", err)
		}
	}
	e, _, err = st.ledger.Create(ctx, en)
	if err != nil {
		return e, false, fmt.Errorf("write the counter payment: %w", err)
	}
	if e.State != ledger.StateCreated {
		return e, false, nil
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StatePaid,
		fmt.Sprintf("taken at the counter by %s (%s)", c.Actor, p.CardType), func(x *ledger.Entry) {
			x.ProviderReference, x.CardType = strings.TrimSpace(p.Reference), p.CardType
		})
	if err != nil && !errors.Is(err, ledger.ErrStateChanged) {
		return e, false, fmt.Errorf("mark the counter payment paid: %w", err)
	}
	return e, true, nil
}

// GiveBackAtBoxOffice records that actor handed back a refund's part that falls on a box
// office payment (cash from the till, or a refund on the card terminal): the part is then
// refunded, and once every part is, the change is completed with all of them. The edit is
// renewed first: money goes out only for a change that can still take it (the part fails,
// nothing given back, when it is gone). A part already given back is returned as it is.
func (st *Settler) GiveBackAtBoxOffice(ctx context.Context, id, actor string) (ledger.Entry, error) {
	e, err := st.ledger.Get(ctx, id)
	if err != nil {
		return e, err
	}
	if e.Kind != ledger.KindRefund || !e.AtBoxOffice() {
		return e, ErrNotAtBoxOffice
	}
	if e.State != ledger.StateCreated {
		return e, nil
	}
	if e, ended, err := st.partMayGoOut(ctx, e, "given back"); ended || err != nil {
		return e, err
	}
	return st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRefunded,
		fmt.Sprintf("given back at the box office by %s (%s)", actor, e.CardType), func(x *ledger.Entry) {
			x.ProviderReference = "BO-" + strings.ToUpper(x.ID[:12]) // the refund's own reference, for complete-edit
			x.RefundID = x.ProviderReference
		})
}

// source says where a booking payment's money can go back to.
type source struct {
	payment   cinema.BookingPayment
	boxOffice *boxoffice.Payment // taken at the box office: given back there
}

// refundSources sorts the booking's payments (oldest first, as the booking lists them) into
// those a refund can go back to: the box office's (its register says so), and the provider's
// that the provider knows and that do not belong to another booking. A reference the
// provider does not know as a payment, or one it says was taken for another booking, is
// never refunded (logged: the booking record carries money that is not its own).
func (st *Settler) refundSources(ctx context.Context, b cinema.Booking) ([]source, error) {
	taken := map[string]boxoffice.Payment{}
	if st.boxOffice != nil {
		list, err := st.boxOffice.ForBooking(ctx, b.CinemaID, b.Number)
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			taken[boxoffice.Key(p.Reference)] = p
		}
	}
	var out []source
	for _, p := range b.Payments {
		// The real API does not say whether a payment was external: unless it says it was not,
		// a payment with a provider reference is a candidate, and the upstream has the last word.
		if !(p.External || !p.ExternalKnown) || p.ProviderReference == "" || p.Amount.Cents <= 0 {
			continue
		}
		if bp, ok := taken[boxoffice.Key(p.ProviderReference)]; ok {
			out = append(out, source{payment: p, boxOffice: &bp})
			continue
		}
		out = append(out, source{payment: p})
	}
	return out, nil
}

// boxOfficeWait is how long a refund's part waits for the box office to hand it back before it
// is given up and listed for staff: the customer stood at the counter, and the change it
// belongs to has long expired.
const boxOfficeWait = time.Hour

// waitAtBoxOffice is the step of a box office part not handed back yet: it waits, fails with
// its siblings, or after boxOfficeWait goes to staff review (nothing was recorded as given).
func (st *Settler) waitAtBoxOffice(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if e, ended, err := st.endWithSibling(ctx, e, "given back"); ended || err != nil {
		return e, ended && err == nil, err
	}
	if st.now().Sub(e.CreatedAt) < boxOfficeWait {
		return e, false, nil
	}
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed,
		"not handed back at the box office in time: staff review", func(x *ledger.Entry) {
			x.LastError = "nobody confirmed handing this money back at the box office within an hour; the change was not completed"
		})
	return e, err == nil, err
}
