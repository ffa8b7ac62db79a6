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
	// ErrProviderReference: a terminal reference that names a payment of the payment provider
	// which is not this counter's card payment of the amount taken (ReferenceError says why). A
	// refund later sent "to that reference" would move the money of whoever made that payment,
	// so it is refused at entry.
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

// CheckCounterReference checks a card terminal's typed reference for use (the money to
// record now) and returns the reference to record. A reference that names a payment of the
// payment provider (a charge ch_… or a payment intent pi_…, as a card receipt prints it) is
// accepted only when the provider says it is a card-present payment (a card held to a reader
// or terminal) that was paid, is not refunded, is of the amount taken, and belongs to no other
// booking (neither by what it was taken for nor in the ledger): it is then recorded under its
// payment intent, so the charge and the intent cannot be recorded twice. Such a reference the
// provider cannot be asked about now is refused too. Any other reference the provider knows as
// one of its payments is refused; one it does not know is the terminal's own, and a provider
// that cannot be asked does not stop the counter (the register still refuses a reused one).
// A refusal is a *ReferenceError (errors.Is ErrProviderReference).
func (st *Settler) CheckCounterReference(ctx context.Context, reference string, use ReferenceUse) (string, error) {
	reference = strings.TrimSpace(reference)
	if st.payments == nil {
		return reference, nil
	}
	if !NamesProviderPayment(reference) {
		return reference, st.checkTerminalReference(ctx, reference)
	}
	p, err := st.payments.GetPayment(ctx, reference)
	if err != nil {
		problem := RefUnchecked
		if errors.Is(err, upstream.ErrNotFound) {
			problem = RefUnknown
		}
		st.log(ctx).Warn("counter reference refused: the provider's payment could not be read", "reference", reference, "err", err)
		return reference, &ReferenceError{Problem: problem, Reference: reference}
	}
	problem, err := st.providerPaymentProblem(ctx, p, use)
	if err != nil {
		return reference, err
	}
	if problem != "" {
		st.log(ctx).Warn("counter reference refused", "reference", reference, "payment", p.ID, "problem", problem)
		return reference, &ReferenceError{Problem: problem, Reference: reference, Amount: p.Amount}
	}
	return p.ID, nil
}

// checkTerminalReference refuses a reference of the terminal's own that the provider knows as
// one of its payments (an online payment's session).
func (st *Settler) checkTerminalReference(ctx context.Context, reference string) error {
	p, err := st.payments.GetPayment(ctx, reference)
	switch {
	case err == nil && p.ID != "":
		st.log(ctx).Warn("counter reference refused: it is a payment of the online provider", "reference", reference)
		return &ReferenceError{Problem: RefOnline, Reference: reference}
	case err != nil && !errors.Is(err, upstream.ErrNotFound):
		st.log(ctx).Warn("counter reference not checked with the payment provider", "reference", reference, "err", err)
	}
	return nil
}

// providerPaymentProblem is why provider payment p cannot be recorded for use ("" when it can).
func (st *Settler) providerPaymentProblem(ctx context.Context, p upstream.Payment, use ReferenceUse) (ReferenceProblem, error) {
	switch {
	case !p.CardPresent:
		return RefOnline, nil
	case p.Status != cinema.PaymentPaid || p.Refunded.Cents > 0:
		return RefNotPaid, nil
	case p.Amount.Cents != use.Amount.Cents || !strings.EqualFold(p.Amount.Currency, use.Amount.Currency):
		return RefAmount, nil
	case p.Booking != "" && (use.BookingNumber == 0 || p.Booking != upstream.BookingRef(use.CinemaID, use.BookingNumber)):
		return RefTaken, nil
	}
	if st.ledger == nil {
		return "", nil
	}
	entries, err := st.ledger.Naming(ctx, p.ID)
	if err != nil {
		return "", fmt.Errorf("look the provider payment up in the ledger: %w", err)
	}
	for _, e := range entries {
		if use.EditSessionID == "" || e.IdempotencyKey != counterKey(use.EditSessionID, use.Amount.Cents) {
			return RefTaken, nil // another payment of ours already stands for it
		}
	}
	return "", nil
}

// NamesProviderPayment reports whether a typed reference names a payment of the payment
// provider: a charge (ch_…) or a payment intent (pi_…), in any case.
func NamesProviderPayment(reference string) bool {
	r := strings.ToLower(strings.TrimSpace(reference))
	return strings.HasPrefix(r, "ch_") || strings.HasPrefix(r, "pi_")
}

// ReferenceUse is what a typed counter reference is to record: the amount taken now, and the
// booking and edit of a change (both zero for a sale, whose booking does not exist yet).
type ReferenceUse struct {
	Amount        cinema.Money
	CinemaID      string
	BookingNumber int64
	EditSessionID string
}

// ReferenceProblem says why a counter reference was refused.
type ReferenceProblem string

const (
	RefOnline    ReferenceProblem = "online"    // a payment the provider took online, not on a card reader or terminal
	RefUnknown   ReferenceProblem = "unknown"   // names a provider payment the provider does not have
	RefUnchecked ReferenceProblem = "unchecked" // names a provider payment, and the provider could not be asked now
	RefNotPaid   ReferenceProblem = "not_paid"  // the provider's payment was not paid, or was refunded
	RefAmount    ReferenceProblem = "amount"    // the provider's payment is of another amount or currency
	RefTaken     ReferenceProblem = "taken"     // the provider's payment belongs to another booking or payment
)

// ReferenceError is a refused counter reference: errors.Is ErrProviderReference.
type ReferenceError struct {
	Problem   ReferenceProblem
	Reference string
	Amount    cinema.Money // the provider's payment's amount, when it was read
}

func (e *ReferenceError) Error() string {
	return fmt.Sprintf("%v: %s (%s)", ErrProviderReference, e.Reference, e.Problem)
}

func (e *ReferenceError) Unwrap() error { return ErrProviderReference }

// counterKey is the ledger idempotency key of an edit's payment of cents taken at the counter.
func counterKey(editSessionID string, cents int64) string {
	return fmt.Sprintf("edit-counter:%s:%d", editSessionID, cents)
}

// RecordCounterPayment writes the edit's payment taken at the counter by c.Actor: its
// reference goes into the box office's register (refused with boxoffice.ErrReferenceUsed when
// another payment has it), then the ledger entry goes straight to paid, and Advance applies it
// with complete-edit as it does a provider's payment. recorded says this call took it (a
// repeated press finds the entry already paid), so the caller audits the money once.
func (st *Settler) RecordCounterPayment(ctx context.Context, c Change, amount cinema.Money, p CounterPayment) (e ledger.Entry, recorded bool, err error) {
	en := c.entry(ledger.KindPayment, counterKey(c.EditSessionID, amount.Cents), amount)
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
