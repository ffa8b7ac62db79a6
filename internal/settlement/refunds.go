package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/refunds"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Refunds across several payments. A negative balance goes back over the booking's external
// payments, the newest first, never more than a payment can still give back (internal/refunds
// plans it). Every part is its own ledger entry with its own idempotency key and its own
// provider refund, made by the settler independently of the others: if one part fails, the
// others stay done and the reconciler retries the failing one. complete-edit is called once,
// with every part, when all of them are refunded; the parts move to "applying" together in one
// compare-and-set, so two parts finishing at the same moment call it once.

// ErrRefundNotPlanned wraps the reason a refund could not be planned over the booking's
// payments (refunds.ErrInvalidAmount, refunds.ErrExceedsPayments): no money moved, and the
// refund is written for staff review (RefundNotPlannedError).
var ErrRefundNotPlanned = errors.New("refund cannot be planned")

// RefundNotPlannedError is a refund no payment of the booking can take through the provider
// (the provider does not know them, they were taken for another booking or already given
// back): nothing moved, and Review is the refund's ledger entry, failed for staff review, so it
// is listed under Needs attention. errors.Is ErrRefundNotPlanned and the planner's reason.
type RefundNotPlannedError struct {
	Review ledger.Entry
	Cause  error
}

func (e *RefundNotPlannedError) Error() string {
	return fmt.Sprintf("%v (entry %s): %v", ErrRefundNotPlanned, e.Review.ID, e.Cause)
}

func (e *RefundNotPlannedError) Unwrap() []error { return []error{ErrRefundNotPlanned, e.Cause} }

// StartRefund plans the refund of amount over the booking's payments (b is the booking as the
// ticketing API has it now) and writes one ledger entry per part; it returns the parts, the
// lead first. It moves no money: AdvanceGroup makes the provider's parts, and a part that
// falls on money taken at the box office waits for the clerk to hand it back
// (GiveBackAtBoxOffice). Away from a box office (c.AtBoxOffice false) only the provider's
// payments take a refund: when they cannot cover it, ErrRefundAtBoxOffice and nothing is
// written. A repeated press finds the same parts (the first part's idempotency key does not
// depend on the plan) and never refunds twice.
func (st *Settler) StartRefund(ctx context.Context, c Change, amount cinema.Money, b cinema.Booking) ([]ledger.Entry, error) {
	key, err := st.editKey(ctx, "edit-refund:", c.EditSessionID, amount.Cents)
	if err != nil {
		return nil, err
	}
	if b.CinemaID == "" {
		b.CinemaID = c.CinemaID
	}
	if b.Number == 0 {
		b.Number = c.BookingNumber
	}
	payments, boxOffice, skipped, err := st.refundablePayments(ctx, b, c.AtBoxOffice)
	if err != nil {
		return nil, err
	}
	plan, err := refunds.Plan(amount.Cents, payments)
	if err != nil {
		st.log(ctx).Warn("refund cannot be planned", "booking", c.BookingNumber, "err", err)
		if skipped && errors.Is(err, refunds.ErrExceedsPayments) {
			return nil, fmt.Errorf("%w: %w", ErrRefundAtBoxOffice, err)
		}
		if lead, lerr := st.ledger.ByKey(ctx, key+":part1"); lerr == nil {
			// Another press wrote this refund a moment ago and the provider is giving it back
			// now, which is why the payments hold less: the same parts.
			return st.ledger.Group(ctx, lead)
		}
		review, rerr := st.refundForReview(ctx, c, amount, len(payments), err)
		if rerr != nil {
			return nil, rerr
		}
		return nil, &RefundNotPlannedError{Review: review, Cause: err}
	}
	tmpl := c.entry(ledger.KindRefund, key, amount)
	parts := make([]ledger.Entry, len(plan))
	for i, p := range plan {
		en := tmpl
		en.IdempotencyKey = fmt.Sprintf("%s:part%d", key, i+1)
		en.AmountCents = p.AmountCents
		en.ProviderPaymentID = p.Payment.Reference
		en.CardMasked, en.CardType = p.Payment.CardMasked, p.Payment.CardType
		if bp, ok := boxOffice[p.Payment.Reference]; ok {
			// Given back the way it was taken, under the tender it was taken with.
			en.Tender, en.CardType, en.ByHand = bp.tender, bp.cardType, true
		}
		parts[i] = en
	}
	group, _, err := st.ledger.CreateGroup(ctx, parts)
	if err != nil {
		return nil, fmt.Errorf("write the refund's parts: %w", err)
	}
	return group, nil
}

// refundForReview writes the refund of amount that the booking's payments cannot take (usable
// of them the provider knows as this booking's; cause is why the plan failed) as a ledger entry failed for staff
// review: nothing moved, and Needs attention lists it with why until a supervisor resolves
// it. Pressing again finds the same entry.
func (st *Settler) refundForReview(ctx context.Context, c Change, amount cinema.Money, usable int, cause error) (ledger.Entry, error) {
	en := c.entry(ledger.KindRefund, fmt.Sprintf("edit-refund-review:%s:%d", c.EditSessionID, amount.Cents), amount)
	e, created, err := st.ledger.Create(ctx, en)
	if err != nil {
		return e, fmt.Errorf("write the refund for staff review: %w", err)
	}
	if !created || e.State != ledger.StateCreated {
		return e, nil
	}
	why := fmt.Sprintf("the payment provider cannot give back %d.%02d %s on this booking's payments (%d of them it knows as this booking's: %v); nothing was refunded and the change was not completed",
		amount.Cents/100, amount.Cents%100, amount.Currency, usable, cause)
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "refund cannot be made through the payment provider: staff review",
		func(x *ledger.Entry) { x.LastError = why })
	if err != nil {
		return e, fmt.Errorf("mark the refund for staff review: %w", err)
	}
	return e, nil
}

// boxOfficeSource is how a box office payment is given back: its tender category upstream and
// the words for it (stored data, English: "Cash", "Card terminal").
type boxOfficeSource struct{ tender, cardType string }

// refundablePayments lists the booking's payments a refund can go back to, oldest first, with
// what can still be given back of each (unknown when the provider cannot be read), and the
// box office's among them by reference. Box office payments are listed only atBoxOffice
// (skipped says one was left out); the provider's only when the provider knows them as its
// payments and does not say they were taken for another booking.
func (st *Settler) refundablePayments(ctx context.Context, b cinema.Booking, atBoxOffice bool) (out []refunds.Payment, boxOffice map[string]boxOfficeSource, skipped bool, err error) {
	sources, err := st.refundSources(ctx, b)
	if err != nil {
		return nil, nil, false, err
	}
	boxOffice = map[string]boxOfficeSource{}
	for _, src := range sources {
		p := src.payment
		rp := refunds.Payment{Reference: p.ProviderReference, CardType: p.CardType, CardMasked: p.CardNumberMasked,
			PaidCents: p.Amount.Cents, RefundableCents: -1}
		if bp := src.boxOffice; bp != nil {
			if !atBoxOffice {
				skipped = true
				continue
			}
			given, err := st.ledger.GivenBack(ctx, p.ProviderReference)
			if err != nil {
				return nil, nil, false, err
			}
			rp.PaidCents = min(p.Amount.Cents, bp.AmountCents)
			rp.RefundableCents = max(rp.PaidCents-given, 0)
			how := boxOfficeSource{tender: cmp.Or(p.TenderCategory, st.tender), cardType: "Card terminal"}
			if bp.Tender == boxoffice.TenderCash {
				how.cardType = "Cash"
			}
			boxOffice[p.ProviderReference] = how
			out = append(out, rp)
			continue
		}
		if st.payments != nil {
			pp, err := st.payments.GetPayment(ctx, p.ProviderReference)
			switch {
			case errors.Is(err, upstream.ErrNotFound):
				st.log(ctx).Error("a booking payment the payment provider does not know is not refunded through it", "booking", b.Number, "payment", p.ProviderReference)
				continue
			case err != nil:
				st.log(ctx).Info("refundable amount unknown: the payment's own amount is the limit", "payment", p.ProviderReference, "err", err)
			case pp.Booking != "" && pp.Booking != upstream.BookingRef(b.CinemaID, b.Number):
				st.log(ctx).Error("a booking payment the provider took for another booking is not refunded", "booking", b.Number, "payment", p.ProviderReference, "taken_for", pp.Booking)
				continue
			default:
				rp.RefundableCents = pp.Refundable().Cents
			}
		}
		out = append(out, rp)
	}
	return out, boxOffice, skipped, nil
}

// AdvanceGroup advances every unfinished part of e's refund and returns the parts as they
// stand; the first error is returned after all were tried (one part failing leaves the
// others going).
func (st *Settler) AdvanceGroup(ctx context.Context, e ledger.Entry) ([]ledger.Entry, error) {
	parts, err := st.ledger.Group(ctx, e)
	if err != nil {
		return nil, err
	}
	var first error
	for _, p := range parts {
		if p.State.Terminal(p.Kind) {
			continue
		}
		if _, err := st.Advance(ctx, p.ID); err != nil && first == nil {
			first = err
		}
	}
	parts, err = st.ledger.Group(ctx, e)
	if err != nil {
		return nil, err
	}
	return parts, first
}

func entryIDs(parts []ledger.Entry) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.ID
	}
	return out
}

// pick returns the entry with id from out (a TransitionAll answer), or e.
func pick(out []ledger.Entry, e ledger.Entry) ledger.Entry {
	for _, x := range out {
		if x.ID == e.ID {
			return x
		}
	}
	return e
}

// partMayGoOut checks, before a refund's part goes out (through the provider, or from the box
// office: how is "refunded" or "given back"), that it still may. Money goes out only for an edit
// that can still take it, or the customer would keep the money and the unchanged booking:
// renewing the edit's hold checks that and gives complete-edit its full time. A part whose
// sibling failed does not go out either: the change can no longer be completed. ended reports
// that the part was failed instead, nothing sent; err that it could not be checked now.
func (st *Settler) partMayGoOut(ctx context.Context, e ledger.Entry, how string) (out ledger.Entry, ended bool, err error) {
	if e, ended, err := st.endWithSibling(ctx, e, how); ended || err != nil {
		return e, ended, err
	}
	if _, err := st.ticketing.ResetOrderExpiry(ctx, e.EditSessionID); err != nil {
		if errors.Is(err, upstream.ErrOrderExpired) || errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrOrderClosed) {
			e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "edit gone before the refund: nothing "+how, func(x *ledger.Entry) {
				x.LastError = "the change ended before this part of the refund went out; nothing was " + how
			})
			return e, true, err
		}
		return e, false, fmt.Errorf("check the edit before the refund: %w", err)
	}
	return e, false, nil
}

// endWithSibling fails a part not sent yet (how: "refunded", "given back") when another part
// of its refund failed; ended reports that it did.
func (st *Settler) endWithSibling(ctx context.Context, e ledger.Entry, how string) (out ledger.Entry, ended bool, err error) {
	failed, err := st.siblingFailed(ctx, e)
	if err != nil || !failed {
		return e, false, err
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "another part of the refund failed: nothing "+how, func(x *ledger.Entry) {
		x.LastError = "another part of the refund could not be made, so this part was not " + how
	})
	return e, true, err
}

// siblingFailed reports whether another part of e's refund failed: a part not yet asked for
// is then not paid out either, since the change can no longer be completed with it.
func (st *Settler) siblingFailed(ctx context.Context, e ledger.Entry) (bool, error) {
	if e.RefundGroup == "" {
		return false, nil
	}
	parts, err := st.ledger.Group(ctx, e)
	if err != nil {
		return false, err
	}
	for _, p := range parts {
		if p.ID != e.ID && p.State == ledger.StateFailed {
			return true, nil
		}
	}
	return false, nil
}

// applyRefund is the step of a refund part the provider has refunded: once every part is
// refunded, one worker claims them all and calls complete-edit once with every part.
func (st *Settler) applyRefund(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	parts, err := st.ledger.Group(ctx, e)
	if err != nil {
		return e, false, err
	}
	waiting, failed, between := tallyParts(parts)
	switch {
	case between:
		// Applying or applied while this part is still refunded: parts move together, so
		// this is a read between two writes; the next pass sees them settled.
		return e, false, nil
	case waiting > 0:
		return e, false, nil // the other parts are made on their own (and retried by the reconciler)
	case failed > 0:
		return st.refundPartlyIssued(ctx, e, parts)
	}
	ids := entryIDs(parts)
	if slices.ContainsFunc(parts, func(p ledger.Entry) bool { return p.Attempts > 0 }) {
		// An earlier attempt may have gone through without us hearing the answer.
		applied, err := st.refundsOnBooking(ctx, parts)
		if err != nil {
			return e, false, err
		}
		if applied {
			out, err := st.ledger.TransitionAll(ctx, ids, []ledger.State{ledger.StateRefunded}, ledger.StateApplied, "found on the booking", nil)
			return pick(out, e), err == nil, err
		}
	}
	if _, err := st.ledger.TransitionAll(ctx, ids, []ledger.State{ledger.StateRefunded}, ledger.StateApplying, "calling complete-edit", nil); err != nil {
		return e, false, err // ErrStateChanged: another worker claimed the refund
	}
	return st.completeEditWithRefund(ctx, e, parts, ids)
}

// tallyParts counts the parts of a refund still to be made (waiting) and those that could not
// be made (failed); between reports a part already claimed or applied.
func tallyParts(parts []ledger.Entry) (waiting, failed int, between bool) {
	for _, p := range parts {
		switch p.State {
		case ledger.StateRefunded:
		case ledger.StateFailed:
			failed++
		case ledger.StateCreated, ledger.StateRefundRequested:
			waiting++
		default:
			return waiting, failed, true
		}
	}
	return waiting, failed, false
}

// refundPartlyIssued ends the parts that went out when another part could not be made: the
// change cannot be completed with only some of the refund, and the money of the parts that
// went out must not be forgotten.
func (st *Settler) refundPartlyIssued(ctx context.Context, e ledger.Entry, parts []ledger.Entry) (ledger.Entry, bool, error) {
	var sent []string
	for _, p := range parts {
		if p.State == ledger.StateRefunded {
			sent = append(sent, p.ID)
		}
	}
	st.logger.Error("refund partly issued, another part failed: the edit is not applied, needs staff review", "entry", e.ID, "booking", e.BookingNumber)
	out, err := st.ledger.TransitionAll(ctx, sent, []ledger.State{ledger.StateRefunded}, ledger.StateFailed, "refund part issued, another part failed: staff review", func(x *ledger.Entry) {
		x.LastError = "this part was refunded, but another part of the refund could not be made, so the booking change was not completed"
	})
	return pick(out, e), err == nil, err
}

// completeEditWithRefund calls complete-edit once with every part of a claimed refund and
// settles the parts by its answer.
func (st *Settler) completeEditWithRefund(ctx context.Context, e ledger.Entry, parts []ledger.Entry, ids []string) (ledger.Entry, bool, error) {
	items := make([]upstream.ExternalPayment, len(parts))
	for i, p := range parts {
		items[i] = upstream.ExternalPayment{AmountCents: p.AmountCents, ProviderReference: p.ProviderReference,
			TenderCategory: cmp.Or(p.Tender, st.tender), CardNumberMasked: p.CardMasked, CardType: p.CardType}
	}
	_, cerr := st.ticketing.CompleteEditBooking(ctx, e.EditSessionID, upstream.CompleteEditWithRefunds(items...))
	if cerr == nil {
		out, err := st.ledger.TransitionAll(ctx, ids, []ledger.State{ledger.StateApplying}, ledger.StateApplied, "complete-edit accepted", nil)
		return pick(out, e), err == nil, err
	}
	return st.refundNotApplied(ctx, e, parts, ids, cerr)
}

// refundNotApplied settles a claimed refund complete-edit answered with an error (cerr): not
// applied, or not known, so the booking tells before anything is decided.
func (st *Settler) refundNotApplied(ctx context.Context, e ledger.Entry, parts []ledger.Entry, ids []string, cerr error) (ledger.Entry, bool, error) {
	applied, verr := st.refundsOnBooking(ctx, parts)
	switch {
	case verr != nil || errors.Is(cerr, upstream.ErrUnavailable):
		// Try again later (the reconciler does); give the claim back.
		if _, terr := st.ledger.TransitionAll(ctx, ids, []ledger.State{ledger.StateApplying}, ledger.StateRefunded, "complete-edit failed, will retry", func(x *ledger.Entry) {
			x.Attempts++
			x.LastError = cerr.Error()
		}); terr != nil {
			return e, false, terr
		}
		return e, false, fmt.Errorf("complete-edit: %w", cerr)
	case applied:
		out, err := st.ledger.TransitionAll(ctx, ids, []ledger.State{ledger.StateApplying}, ledger.StateApplied, "found on the booking", nil)
		return pick(out, e), err == nil, err
	default:
		// The refund was paid out but the edit could not take it: people must look at this.
		st.logger.Error("refund issued but the edit could not be completed: needs staff review", "entry", e.ID, "booking", e.BookingNumber, "parts", len(parts), "err", cerr)
		out, err := st.ledger.TransitionAll(ctx, ids, []ledger.State{ledger.StateApplying}, ledger.StateFailed, "refund issued, edit not applied: staff review", func(x *ledger.Entry) {
			x.LastError = "refund issued but the booking change could not be completed: " + cerr.Error()
		})
		return pick(out, e), err == nil, err
	}
}

// resolveStaleRefund ends a claim on a refund left by a crash: the booking tells whether
// complete-edit went through.
func (st *Settler) resolveStaleRefund(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	parts, err := st.ledger.Group(ctx, e)
	if err != nil {
		return e, false, err
	}
	applied, err := st.refundsOnBooking(ctx, parts)
	if err != nil {
		return e, false, err
	}
	var claimed []string
	for _, p := range parts {
		if p.State == ledger.StateApplying {
			claimed = append(claimed, p.ID)
		}
	}
	back := ledger.StateRefunded
	if applied {
		back = ledger.StateApplied
	}
	out, err := st.ledger.TransitionAll(ctx, claimed, []ledger.State{ledger.StateApplying}, back, "stale claim resolved", nil)
	return pick(out, e), err == nil, err
}

// refundsOnBooking reports whether the booking already carries every part of the refund
// (complete-edit takes all of them or none).
func (st *Settler) refundsOnBooking(ctx context.Context, parts []ledger.Entry) (bool, error) {
	for _, p := range parts {
		if p.ProviderReference == "" {
			return false, nil
		}
	}
	b, err := st.ticketing.GetSingleBooking(ctx, parts[0].CinemaID, parts[0].BookingNumber)
	if err != nil {
		return false, fmt.Errorf("read booking to verify: %w", err)
	}
	// A part is on the booking when its own reference is there with its amount (a reference
	// alone is not the refund).
	on := map[string][]int64{}
	for _, bp := range b.Payments {
		on[bp.ProviderReference] = append(on[bp.ProviderReference], bp.Amount.Abs().Cents)
	}
	found := 0
	for _, p := range parts {
		if slices.Contains(on[p.ProviderReference], p.AmountCents) {
			found++
		}
	}
	if found > 0 && found < len(parts) {
		st.logger.Error("only some parts of a refund are on the booking", "entry", parts[0].ID, "found", found, "parts", len(parts))
	}
	return found == len(parts), nil
}

// PartsTotal is the money of every part of a refund together.
func PartsTotal(parts []ledger.Entry) cinema.Money {
	var m cinema.Money
	for _, p := range parts {
		m = cinema.Money{Cents: m.Cents + p.AmountCents, Currency: p.Currency}
	}
	return m
}

// PartSent reports whether the provider has paid the part out.
func PartSent(p ledger.Entry) bool {
	switch p.State {
	case ledger.StateRefunded, ledger.StateApplying, ledger.StateApplied:
		return true
	}
	return p.RefundID != ""
}
