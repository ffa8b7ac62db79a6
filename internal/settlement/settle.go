package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// paidAsEntered checks that a paid provider payment is the entry's money: the same amount in
// the same currency (ISO codes, in whatever case the provider writes them).
func paidAsEntered(p upstream.Payment, e ledger.Entry) error {
	if p.Amount.Cents != e.AmountCents {
		return fmt.Errorf("provider payment %s is %d cents, ledger says %d", p.ID, p.Amount.Cents, e.AmountCents)
	}
	if !strings.EqualFold(strings.TrimSpace(p.Amount.Currency), strings.TrimSpace(e.Currency)) {
		return fmt.Errorf("provider payment %s is in %q, ledger says %q", p.ID, p.Amount.Currency, e.Currency)
	}
	return nil
}

// staleApplying is how long an "applying" claim may stand before it is taken for a crash.
const staleApplying = time.Minute

// Advance takes the entry as far as it can go now and returns it, also with an error (as the
// failed step left it). It is safe to call from several requests and the reconciler at once:
// every move is a compare-and-set.
func (st *Settler) Advance(ctx context.Context, id string) (ledger.Entry, error) {
	var e ledger.Entry
	var err error
	for range 8 { // each pass makes one step; a lost race just re-reads
		e, err = st.ledger.Get(ctx, id)
		if err != nil {
			return e, err
		}
		next, moved, err := st.step(ctx, e)
		if errors.Is(err, ledger.ErrStateChanged) {
			continue
		}
		if err != nil {
			return st.noteFailedStep(ctx, e, err)
		}
		if !moved {
			return next, nil
		}
	}
	return st.ledger.Get(ctx, id)
}

// noteFailedStep returns the entry as a failed step left it, with the step's error, which the
// ledger notes on an entry still under way (an ended one keeps the reason it ended with: a
// reader that refused the payment ends it).
func (st *Settler) noteFailedStep(ctx context.Context, e ledger.Entry, err error) (ledger.Entry, error) {
	if now, gerr := st.ledger.Get(ctx, e.ID); gerr == nil {
		e = now
	}
	if e.State.Terminal(e.Kind) {
		return e, err
	}
	if nerr := st.ledger.Note(ctx, e.ID, err.Error()); nerr != nil {
		st.logger.Error("ledger note", "entry", e.ID, "err", nerr)
	}
	return e, err
}

// step makes one move; moved=false means the entry waits (for the customer, the provider, or
// is finished). The state picks the move (stepFrom); within a state the kind and where the
// money is taken (a reader, the box office) decide, in the order the moves are listed there.
func (st *Settler) step(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if e.State.Terminal(e.Kind) {
		return e, false, nil
	}
	if move, ok := stepFrom[e.State]; ok {
		return move(st, ctx, e)
	}
	return noStep(e)
}

// stepFrom is the ledger's state machine: the move made from each state an entry can wait in.
// Applied and failed are terminal; refunded is terminal except for a refund (still to apply).
var stepFrom = map[ledger.State]func(*Settler, context.Context, ledger.Entry) (ledger.Entry, bool, error){
	ledger.StateCreated:         (*Settler).stepCreated,
	ledger.StateRedirected:      (*Settler).stepRedirected,
	ledger.StatePaid:            (*Settler).stepPaid,
	ledger.StateApplying:        (*Settler).stepApplying,
	ledger.StateRefundRequested: (*Settler).stepRefundRequested,
	ledger.StateRefunded:        (*Settler).stepRefunded,
}

// noStep is the error of an entry no move applies to: a kind in a state it never reaches.
func noStep(e ledger.Entry) (ledger.Entry, bool, error) {
	return e, false, fmt.Errorf("ledger entry %s: no step from %s/%s", e.ID, e.Kind, e.State)
}

// stepCreated starts an entry: a reader payment (or sale) on its reader, a payment at the
// provider, a refund part at the counter or towards the provider.
func (st *Settler) stepCreated(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	switch {
	case e.Kind != ledger.KindRefund && e.AtReader():
		return st.startAtReader(ctx, e)
	case e.Kind == ledger.KindPayment:
		return st.createProviderPayment(ctx, e)
	case e.Kind == ledger.KindRefund && e.AtBoxOffice():
		// Handed back at the counter, never through the provider: it waits for the clerk
		// (GiveBackAtBoxOffice), unless another part failed or nobody did it in time.
		return st.waitAtBoxOffice(ctx, e)
	case e.Kind == ledger.KindRefund:
		return st.requestRefund(ctx, e)
	}
	return noStep(e)
}

// stepRedirected follows a payment (or sale) under way: on its reader, or on the provider's
// page the customer was sent to.
func (st *Settler) stepRedirected(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	switch {
	case e.Kind != ledger.KindRefund && e.AtReader():
		return st.followReader(ctx, e)
	case e.Kind == ledger.KindPayment:
		return st.followProviderPayment(ctx, e)
	}
	return noStep(e)
}

// stepPaid applies money the provider took: a sale becomes a booking, a payment completes
// its edit.
func (st *Settler) stepPaid(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	switch e.Kind {
	case ledger.KindSale:
		return st.applySale(ctx, e)
	case ledger.KindPayment:
		return st.apply(ctx, e)
	}
	return noStep(e)
}

// stepRefunded applies a refund part the provider paid out.
func (st *Settler) stepRefunded(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if e.Kind != ledger.KindRefund {
		return noStep(e)
	}
	// A refund may be one part of several (one per payment it goes back to): complete-edit waits for all.
	return st.applyRefund(ctx, e)
}

// stepApplying waits for a worker applying the entry, or resolves the claim it left when it
// has stood too long (a crash).
func (st *Settler) stepApplying(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if st.now().Sub(e.UpdatedAt) < staleApplying {
		return e, false, nil // someone is applying it right now
	}
	switch e.Kind {
	case ledger.KindRefund:
		return st.resolveStaleRefund(ctx, e) // all parts of the refund were claimed together
	case ledger.KindSale:
		return st.resolveStaleSale(ctx, e)
	}
	return st.resolveStalePayment(ctx, e)
}

// stepRefundRequested asks the provider for the money back; box office money never goes
// through it.
func (st *Settler) stepRefundRequested(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if e.AtBoxOffice() {
		// Box office money is never refunded through the provider (to whatever reference it
		// was typed under): people must look at an entry that got here.
		return e, false, fmt.Errorf("ledger entry %s: box office money is not refunded through the payment provider", e.ID)
	}
	return st.refundAtProvider(ctx, e)
}

// createProviderPayment creates the provider payment the customer is sent to pay.
func (st *Settler) createProviderPayment(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	// The provider call may have happened before a crash: the idempotency key makes a
	// repeat return the same payment. The customer's page is in their language when the
	// step runs for their request (the reconciler's: the provider chooses).
	words, locale := st.words, ""
	if l := i18n.FromContext(ctx); l != nil {
		words, locale = l, l.Lang()
	}
	p, err := st.payments.CreatePayment(ctx, upstream.PaymentRequest{AmountCents: e.AmountCents, Currency: e.Currency,
		ReturnURL: st.returnURL(e.ID), IdempotencyKey: e.IdempotencyKey, Reference: e.ID,
		Description: words.T("booking.payment_description", "Number", e.BookingNumber), Locale: locale,
		Metadata: map[string]string{"booking": upstream.BookingRef(e.CinemaID, e.BookingNumber)}})
	if err != nil {
		return e, false, fmt.Errorf("create provider payment: %w", err)
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRedirected, "provider payment created", func(x *ledger.Entry) {
		x.ProviderPaymentID, x.HostedURL = p.ID, p.HostedURL
	})
	return e, err == nil, err
}

// followProviderPayment reads the provider payment: paid (as entered) or failed moves the
// entry; pending or unknown is never taken as paid.
func (st *Settler) followProviderPayment(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	p, err := st.payments.GetPayment(ctx, e.ProviderPaymentID)
	if err != nil {
		return e, false, fmt.Errorf("read provider payment: %w", err)
	}
	switch {
	case p.Status == cinema.PaymentPaid:
		return st.providerPaid(ctx, e, p)
	case p.Status.Failed():
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StateFailed, "provider says "+p.Status.String(), func(x *ledger.Entry) {
			x.LastError = "payment " + p.Status.String() + " at the provider"
		})
		return e, err == nil, err
	}
	return e, false, nil // pending or unknown: never taken as paid
}

// providerPaid takes a paid provider payment as the entry's money when it is what the entry
// says.
func (st *Settler) providerPaid(ctx context.Context, e ledger.Entry, p upstream.Payment) (ledger.Entry, bool, error) {
	if err := paidAsEntered(p, e); err != nil {
		// Never taken as paid: the entry waits, noted, and staff see it (it keeps failing).
		st.logger.Warn("provider payment differs from its ledger entry", "entry", e.ID, "payment", p.ID, "err", err)
		return e, false, err
	}
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StatePaid, "provider says paid", func(x *ledger.Entry) {
		// The provider's own reference for the money (Stripe's payment intent) is what
		// the ticketing API keeps; the hosted-page id only when there is no other.
		x.ProviderReference, x.CardMasked, x.CardType = cmp.Or(p.ProviderReference, p.ID), p.CardNumberMasked, p.CardType
	})
	return e, err == nil, err
}

// resolveStalePayment ends a claim on a payment left by a crash: the booking itself tells
// whether complete-edit went through.
func (st *Settler) resolveStalePayment(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	on, err := st.paymentOnBooking(ctx, e)
	if err != nil {
		return e, false, err
	}
	switch on {
	case unclear:
		return st.unclearOnBooking(ctx, e)
	case present:
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StateApplied, "stale claim resolved: found on the booking", nil)
	default:
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StatePaid, "stale claim resolved", nil)
	}
	return e, err == nil, err
}

// requestRefund moves a refund part towards the provider, unless it may not go out (another
// part failed).
func (st *Settler) requestRefund(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if e, ended, err := st.partMayGoOut(ctx, e, "refunded"); ended || err != nil {
		return e, ended && err == nil, err
	}
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRefundRequested, "asking the provider for the refund", nil)
	return e, err == nil, err
}

// refundAtProvider asks the provider (idempotently) to pay a refund part out, or to reverse a
// payment (or sale) that could not be applied.
func (st *Settler) refundAtProvider(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	key := e.IdempotencyKey
	if e.Kind != ledger.KindRefund {
		key = "reverse:" + e.ID // reversing a payment (or sale) that could not be applied
	}
	r, err := st.providerRefund(ctx, e, key)
	if e.Kind == ledger.KindRefund && refusedOutright(err) {
		// The provider refused outright: no money moved, and retrying cannot help.
		e, terr := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRefundRequested}, ledger.StateFailed, "provider refused the refund", func(x *ledger.Entry) {
			x.LastError = "the payment provider refused the refund: " + err.Error()
		})
		return e, terr == nil, terr
	}
	if err != nil {
		return e, false, fmt.Errorf("provider refund: %w", err)
	}
	switch {
	case r.Failed() && e.Kind == ledger.KindRefund:
		return st.refundFailed(ctx, e, r)
	case r.Failed():
		// A payment that could not be applied and could not be given back: it stays for
		// people to see (needs attention), noted with the provider's answer.
		return e, false, fmt.Errorf("provider refund %s is %q", r.ID, r.Status)
	case !r.Succeeded():
		return st.refundPending(ctx, e, r)
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRefundRequested}, ledger.StateRefunded, "provider refunded", func(x *ledger.Entry) {
		x.RefundID = r.ID
		if x.Kind == ledger.KindRefund {
			x.ProviderReference = r.ID
		}
	})
	return e, err == nil, err
}

// providerRefund asks the provider for the entry's refund, or reads the one it asked for
// before: the provider keeps an idempotency key for a day only, and a refund still pending
// after that would be made a second time if it were asked for again.
func (st *Settler) providerRefund(ctx context.Context, e ledger.Entry, key string) (upstream.Refund, error) {
	if e.RefundID != "" {
		return st.payments.GetRefund(ctx, e.RefundID)
	}
	return st.payments.Refund(ctx, e.ProviderPaymentID, e.AmountCents, key)
}

// refundPending keeps the entry waiting on a refund the provider accepted and has not paid
// out yet (a balance too low to cover it, a card network slow to answer), its id kept: the
// provider's refund event, the status page or the reconciler reads it again. The money is on
// its way back, so nothing may ask for it again.
func (st *Settler) refundPending(ctx context.Context, e ledger.Entry, r upstream.Refund) (ledger.Entry, bool, error) {
	if e.RefundID == r.ID {
		return e, false, nil
	}
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRefundRequested}, ledger.StateRefundRequested,
		"provider refund pending", func(x *ledger.Entry) { x.RefundID = r.ID })
	return e, false, err
}

// refundFailed ends the entry of a refund the provider gave up (no money went back); people
// must look at it.
func (st *Settler) refundFailed(ctx context.Context, e ledger.Entry, r upstream.Refund) (ledger.Entry, bool, error) {
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRefundRequested}, ledger.StateFailed, "provider refund failed", func(x *ledger.Entry) {
		x.LastError = fmt.Sprintf("the payment provider's refund %s %s: no money went back", r.ID, r.Status)
		x.RefundID = "" // nothing was sent (PartSent)
	})
	return e, err == nil, err
}

// refusedOutright reports a provider refund error after which no money moved and retrying
// cannot help.
func refusedOutright(err error) bool {
	return errors.Is(err, upstream.ErrRefundExceedsRefundable) || errors.Is(err, upstream.ErrPaymentNotPaid) || errors.Is(err, upstream.ErrNotFound)
}

// apply claims a payment entry and calls complete-edit with it. Refunds go through
// applyRefund, which claims every part of the refund at once.
func (st *Settler) apply(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	from := e.State
	if e.Attempts > 0 {
		// An earlier attempt may have gone through without us hearing the answer.
		switch on, err := st.paymentOnBooking(ctx, e); {
		case err != nil:
			return e, false, err
		case on == present:
			e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{from}, ledger.StateApplied, "found on the booking", nil)
			return e, err == nil, err
		case on == unclear:
			return st.unclearOnBooking(ctx, e)
		}
	}
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{from}, ledger.StateApplying, "calling complete-edit", nil)
	if err != nil {
		return e, false, err
	}
	item := upstream.ExternalPayment{AmountCents: e.AmountCents, ProviderReference: e.ProviderReference,
		TenderCategory: cmp.Or(e.Tender, st.tender), CardNumberMasked: e.CardMasked, CardType: e.CardType}
	_, cerr := st.ticketing.CompleteEditBooking(ctx, e.EditSessionID, upstream.CompleteEditWithPayments(item))
	if cerr == nil {
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StateApplied, "complete-edit accepted", nil)
		return e, err == nil, err
	}
	// Not applied, or not known: find out from the booking before deciding.
	on, verr := st.paymentOnBooking(ctx, e)
	switch {
	case verr != nil || errors.Is(cerr, upstream.ErrUnavailable):
		// Try again later (the reconciler does); give the claim back.
		_, terr := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, from, "complete-edit failed, will retry", func(x *ledger.Entry) {
			x.Attempts++
			x.LastError = cerr.Error()
		})
		if terr != nil {
			return e, false, terr
		}
		return e, false, fmt.Errorf("complete-edit: %w", cerr)
	case on == present:
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StateApplied, "found on the booking", nil)
		return e, err == nil, err
	case on == unclear:
		return st.unclearOnBooking(ctx, e)
	case e.AtBoxOffice():
		// Taken at the box office (terminal or cash): no provider can give it back. People must.
		st.logger.Warn("counter payment could not be applied: staff review", "entry", e.ID, "actor", e.Actor, "err", cerr)
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StateFailed,
			"counter payment not applied: give it back at the counter (staff review)", func(x *ledger.Entry) {
				x.LastError = "the change could not be completed (" + cerr.Error() + "); the money taken at the counter must be given back by hand"
			})
		return e, err == nil, err
	default:
		// The edit is gone (expired, cancelled) or refused the payment: give the money back.
		st.logger.Warn("edit payment could not be applied: refunding", "entry", e.ID, "err", cerr)
		e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StateRefundRequested, "edit gone: reversing payment", func(x *ledger.Entry) {
			x.LastError = cerr.Error()
		})
		return e, err == nil, err
	}
}

// presence is whether a booking carries a ledger entry's payment.
type presence int

const (
	absent  presence = iota
	present          // the booking carries it: same reference, same amount, not another entry's
	unclear          // the reference is there with another amount: people must look
)

// paymentOnBooking says whether the booking carries the payment of entry e: a payment with
// e's reference and e's amount that no other entry of ours accounts for. A reference alone is
// not the payment: a box office reference typed twice, or one borrowed from another payment,
// must not make an unapplied payment look applied. The reference on the booking with another
// amount only is unclear.
func (st *Settler) paymentOnBooking(ctx context.Context, e ledger.Entry) (presence, error) {
	if e.ProviderReference == "" {
		return absent, nil
	}
	b, err := st.ticketing.GetSingleBooking(ctx, e.CinemaID, e.BookingNumber)
	if err != nil {
		return absent, fmt.Errorf("read booking to verify: %w", err)
	}
	same, other := 0, 0
	for _, p := range b.Payments {
		if !strings.EqualFold(strings.TrimSpace(p.ProviderReference), strings.TrimSpace(e.ProviderReference)) {
			continue
		}
		if p.Amount.Cents == e.AmountCents {
			same++
		} else {
			other++
		}
	}
	if same > 0 {
		accounted, err := st.ledger.AppliedLike(ctx, e)
		if err != nil {
			return absent, err
		}
		if same > accounted {
			return present, nil
		}
	}
	if other > 0 && same == 0 {
		return unclear, nil
	}
	return absent, nil
}

// unclearOnBooking ends an entry whose payment the booking may or may not carry (its reference
// with another amount): it is neither applied nor given back by the machine, and Needs
// attention lists it for people to settle.
func (st *Settler) unclearOnBooking(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	st.log(ctx).Error("the booking carries this payment's reference with another amount: staff review", "entry", e.ID, "booking", e.BookingNumber)
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{e.State}, ledger.StateFailed, "reference on the booking with another amount: staff review", func(x *ledger.Entry) {
		x.LastError = "the booking shows this payment's reference with a different amount, so it is not known whether the change was paid; check the booking and settle the money by hand"
	})
	return e, err == nil, err
}

// Reconcile advances every unfinished entry once and returns how many moved. It runs at
// start and periodically, and finishes what a request could not (a crash, a failed call).
func (st *Settler) Reconcile(ctx context.Context) (advanced int) {
	entries, err := st.ledger.Unfinished(ctx)
	if err != nil {
		st.logger.Error("reconcile: list unfinished", "err", err)
		return 0
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return advanced
		}
		// A redirected payment waits for its customer; ask the provider only after a while.
		if e.State == ledger.StateRedirected && st.now().Sub(e.UpdatedAt) < 30*time.Second {
			continue
		}
		after, err := st.Advance(ctx, e.ID)
		if err != nil {
			st.logger.Warn("reconcile: entry not advanced", "entry", e.ID, "state", after.State, "err", err)
			continue
		}
		if after.State != e.State {
			advanced++
			st.logger.Info("reconcile: entry advanced", "entry", e.ID, "from", e.State, "to", after.State)
		}
	}
	return advanced
}
