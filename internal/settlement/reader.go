package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Card-present payments on the device's card reader (the box office, the kiosk). The entry is
// written first; Advance makes the payment at the provider with the exact amount and hands it
// to the reader (redirected: the reader asks for the card); the provider's answer alone says
// it was paid (the payment intent, its amount and status). A declined card, a stopped reader
// or nobody at the reader ends the entry with nothing taken; a paid one is applied with
// complete-edit like a payment on the provider's page, and refunded to itself.

var (
	// ErrNoReaders: card-present payments were asked for, and no provider readers are set up.
	ErrNoReaders = errors.New("settlement: no card readers")
	// ErrNotAtReader: CancelAtReader of an entry that is no card-present payment under way.
	ErrNotAtReader = errors.New("settlement: not a payment on a card reader")
)

// ReaderWait is how long a reader asks for a card before the payment is given up: the
// customer stood at the reader, and a payment started for nobody must not wait there.
const ReaderWait = 3 * time.Minute

// readerStartWait is how long after it was written a card-reader payment may still be handed
// to the reader: the request that wrote it does so at once.
const readerStartWait = time.Minute

// StartReaderPayment writes the edit's card-present payment of amount on the reader readerID,
// under tender (the tender category complete-edit records). A press at the same moment gets
// the same entry; a new attempt after a declined card gets a new one. It moves no money:
// Advance hands it to the reader.
func (st *Settler) StartReaderPayment(ctx context.Context, c Change, amount cinema.Money, readerID, tender string) (ledger.Entry, error) {
	if st.readers == nil {
		return ledger.Entry{}, ErrNoReaders
	}
	key, err := st.editKey(ctx, "edit-reader:", c.EditSessionID, amount.Cents)
	if err != nil {
		return ledger.Entry{}, err
	}
	en := c.entry(ledger.KindPayment, key, amount)
	en.ReaderID, en.Tender = readerID, tender
	e, _, err := st.ledger.Create(ctx, en)
	if err != nil {
		return e, fmt.Errorf("write the edit's card-reader payment: %w", err)
	}
	return e, nil
}

// startAtReader is the step of a card-reader payment just written: the provider makes the
// payment and the reader asks for the card. A reader that cannot take it (offline, busy) ends
// the entry at once, nothing taken, and the error says why; the step is never retried later
// by the reconciler, which would set a reader asking for a card with nobody there.
func (st *Settler) startAtReader(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if st.readers == nil {
		return st.endAtReader(ctx, e, "no card readers configured", ErrNoReaders)
	}
	if st.now().Sub(e.CreatedAt) > readerStartWait {
		// Left by a crash or a lost request: nobody is waiting at the reader any more.
		return st.endAtReader(ctx, e, whyNotHanded, nil)
	}
	words := st.words
	if l := i18n.FromContext(ctx); l != nil {
		words = l
	}
	r := upstream.ReaderPaymentRequest{ReaderID: e.ReaderID, AmountCents: e.AmountCents, Currency: e.Currency, IdempotencyKey: e.IdempotencyKey,
		Description: words.T("booking.payment_description", "Number", e.BookingNumber),
		Metadata:    map[string]string{"booking": upstream.BookingRef(e.CinemaID, e.BookingNumber), "ledger_entry": e.ID}}
	if e.Kind == ledger.KindSale {
		// No booking yet: the order it completes.
		r.Description, r.Metadata = words.T("checkout.reader_description"), map[string]string{"order": e.EditSessionID, "ledger_entry": e.ID}
	}
	p, err := st.readers.StartReaderPayment(ctx, r)
	switch {
	case err == nil:
	case p.ID != "" && !errors.Is(err, upstream.ErrReaderOffline) && !errors.Is(err, upstream.ErrReaderBusy):
		// The payment exists and the reader may have it: follow the reader from here.
		st.log(ctx).Warn("card reader may not have taken the payment", "entry", e.ID, "payment", p.ID, "err", err)
	default:
		if p.ID != "" {
			if _, cerr := st.payments.CancelPayment(ctx, p.ID); cerr != nil {
				st.log(ctx).Warn("cancel the card-present payment the reader did not take", "payment", p.ID, "err", cerr)
			}
		}
		return st.endAtReader(ctx, e, notTakenWhy(err), err)
	}
	moved, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRedirected, "card reader asking for the card", func(x *ledger.Entry) {
		x.ProviderPaymentID = p.ID
	})
	if errors.Is(err, ledger.ErrStateChanged) {
		// Stopped while it was being handed over: the reader must not ask for it.
		st.withdrawFromReader(ctx, e, p.ID)
	}
	return moved, err == nil, err
}

// withdrawFromReader takes back a payment handed to the reader for an entry that was ended
// meanwhile: the reader stops asking and the payment is cancelled; a card paid in that instant
// is given straight back to itself, and the entry notes it.
func (st *Settler) withdrawFromReader(ctx context.Context, e ledger.Entry, paymentID string) {
	e.ProviderPaymentID = paymentID
	st.stopReader(ctx, e)
	p, err := st.payments.CancelPayment(ctx, paymentID)
	switch {
	case err != nil:
		st.forReview(ctx, e, "the card payment "+paymentID+" of a stopped reader payment could not be cancelled ("+err.Error()+"): check at the provider whether a card paid it")
		return
	case p.Status == cinema.PaymentCancelled:
		return
	case p.Status != cinema.PaymentPaid:
		// A card was being read: its answer comes after this entry ended, and nothing
		// follows an ended entry, so people must.
		st.forReview(ctx, e, "a card was being read as the payment "+paymentID+" was stopped: check at the provider whether it paid, and give it back if so")
		return
	}
	if _, err := st.payments.Refund(ctx, paymentID, p.Amount.Cents, "withdrawn:"+e.ID); err != nil {
		st.forReview(ctx, e, "a card paid "+paymentID+" as the payment was stopped; its refund failed ("+err.Error()+"): give it back by hand")
		return
	}
	note := "a card paid " + paymentID + " as the payment was stopped: refunded to it"
	st.log(ctx).Error("card paid for an ended reader payment", "entry", e.ID, "payment", paymentID, "note", note)
	if nerr := st.ledger.Note(ctx, e.ID, note); nerr != nil {
		st.log(ctx).Error("ledger note", "entry", e.ID, "err", nerr)
	}
}

// forReview puts an ended entry on staff's Needs attention with why (its payment recorded):
// money may have moved after it ended, which nothing else follows.
func (st *Settler) forReview(ctx context.Context, e ledger.Entry, why string) {
	st.log(ctx).Error("ended reader payment needs staff review", "entry", e.ID, "payment", e.ProviderPaymentID, "why", why)
	_, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateFailed}, ledger.StateFailed, "card payment after the entry ended: staff review", func(x *ledger.Entry) {
		x.ProviderPaymentID, x.LastError = e.ProviderPaymentID, why
	})
	if err != nil {
		st.log(ctx).Error("ledger entry not marked for staff review", "entry", e.ID, "err", err)
		_ = st.ledger.Note(ctx, e.ID, why)
	}
}

// endAtReader ends a card-reader payment that took nothing; cause (when not nil) is returned
// so the page can say why.
func (st *Settler) endAtReader(ctx context.Context, e ledger.Entry, why string, cause error) (ledger.Entry, bool, error) {
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{e.State}, ledger.StateFailed, why, func(x *ledger.Entry) {
		x.LastError = why
	})
	if err != nil {
		return e, false, err
	}
	if cause != nil {
		return e, false, cause
	}
	return e, true, nil
}

// followReader is the step of a card-reader payment the reader has: paid when the provider
// says so; ended (the payment cancelled at the provider) when the reader's action failed (a
// declined card, the customer or the clerk stopped it), when the reader moved on, or when
// nobody presented a card within ReaderWait; otherwise it waits.
func (st *Settler) followReader(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if st.readers == nil {
		return e, false, ErrNoReaders
	}
	p, err := st.payments.GetPayment(ctx, e.ProviderPaymentID)
	if err != nil {
		return e, false, fmt.Errorf("read card-present payment: %w", err)
	}
	if moved, done, err := st.paymentOutcome(ctx, e, p); done {
		return moved, err == nil, err
	}
	r, err := st.readers.GetReader(ctx, e.ReaderID)
	if err != nil {
		return e, false, fmt.Errorf("read card reader: %w", err)
	}
	why := st.readerGaveUp(ctx, e, r.Action)
	if why == "" {
		return e, false, nil // the reader is asking for the card
	}
	moved, done, err := st.giveUpAtReader(ctx, e, why)
	if errors.Is(err, ErrReaderReading) {
		return e, false, nil // a card is being read: its answer decides
	}
	return moved, done, err
}

// readerGaveUp says why the reader no longer asks for e's payment ("" while it asks): the
// card declined, the customer's Cancel on the reader, another payment on the reader, the reader
// reset, or nobody there within ReaderWait (the reader is then stopped here).
func (st *Settler) readerGaveUp(ctx context.Context, e ledger.Entry, a upstream.ReaderAction) string {
	if why := actionFailedWhy(e, a); why != "" {
		return why
	}
	switch {
	case a.PaymentID != e.ProviderPaymentID && a.State != upstream.ReaderIdle:
		return whyMovedOn
	case a.State == upstream.ReaderIdle:
		return whyIdle
	case st.now().Sub(e.CreatedAt) >= ReaderWait:
		if _, cerr := st.readers.CancelReaderAction(ctx, e.ReaderID); cerr != nil {
			st.log(ctx).Warn("stop the card reader", "reader", e.ReaderID, "err", cerr)
		}
		return whyNobody
	}
	return ""
}

// actionFailedWhy says why the reader's action for e's payment failed: the customer's Cancel
// on the reader, or the card declined; "" when the action is another's or did not fail.
func actionFailedWhy(e ledger.Entry, a upstream.ReaderAction) string {
	if a.PaymentID != e.ProviderPaymentID || a.State != upstream.ReaderFailed {
		return ""
	}
	reason := cmp.Or(a.FailureMessage, a.FailureCode, "no reason given")
	if a.Cancelled {
		return whyCustomerCancelled + reason
	}
	return whyDeclined + reason
}

// paymentOutcome moves a card-reader payment the provider has decided: paid (the same amount,
// or it waits for people, as on the provider's page), or failed (cancelled). done is false
// while the provider has not decided.
func (st *Settler) paymentOutcome(ctx context.Context, e ledger.Entry, p upstream.Payment) (ledger.Entry, bool, error) {
	switch {
	case p.Status == cinema.PaymentPaid:
		if err := paidAsEntered(p, e); err != nil {
			st.logger.Warn("card-present payment differs from its ledger entry", "entry", e.ID, "payment", p.ID, "err", err)
			return e, true, err
		}
		e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StatePaid, "provider says paid on the card reader", func(x *ledger.Entry) {
			x.ProviderReference, x.CardMasked, x.CardType = cmp.Or(p.ProviderReference, p.ID), p.CardNumberMasked, p.CardType
		})
		return e, true, err
	case p.Status.Failed():
		why := st.providerEndedWhy(ctx, e, p)
		e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StateFailed, "provider says "+p.Status.String(), func(x *ledger.Entry) {
			x.LastError = why
		})
		return e, true, err
	}
	return e, false, nil
}

// providerEndedWhy says why the provider ended a card-reader payment: when it was cancelled
// after the reader's own outcome (the reader page's step and the provider's event race for
// it), the reader still says which (declined, cancelled on the reader).
func (st *Settler) providerEndedWhy(ctx context.Context, e ledger.Entry, p upstream.Payment) string {
	why := whyProviderEnded + p.Status.String()
	if st.readers == nil {
		return why
	}
	if r, err := st.readers.GetReader(ctx, e.ReaderID); err == nil {
		why = cmp.Or(actionFailedWhy(e, r.Action), why)
	}
	return why
}

// giveUpAtReader cancels the payment at the provider and ends the entry, nothing taken; a
// payment made at the last moment is taken as paid instead. A payment the provider would not
// cancel and has not decided (a card being read at that moment) is left as it is:
// ErrReaderReading, and the reader's answer decides.
func (st *Settler) giveUpAtReader(ctx context.Context, e ledger.Entry, why string) (ledger.Entry, bool, error) {
	p, err := st.payments.CancelPayment(ctx, e.ProviderPaymentID)
	if err != nil {
		return e, false, fmt.Errorf("cancel card-present payment: %w", err)
	}
	switch {
	case p.Status == cinema.PaymentPaid:
		moved, _, err := st.paymentOutcome(ctx, e, p)
		return moved, err == nil, err
	case !p.Status.Failed():
		return e, false, ErrReaderReading
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StateFailed, why, func(x *ledger.Entry) {
		x.LastError = why
	})
	return e, err == nil, err
}

// CancelAtReader stops a card-reader payment under way (the clerk's or the guest's Cancel):
// StopAtReader with StopCancelled.
func (st *Settler) CancelAtReader(ctx context.Context, id string) (ledger.Entry, error) {
	return st.StopAtReader(ctx, id, StopCancelled)
}

// StopReason says why a card-reader payment is stopped here; the ledger keeps it.
type StopReason string

const (
	// StopCancelled: Cancel on the device's page.
	StopCancelled StopReason = "cancelled at the reader"
	// StopOrderChanged: the order changed while the reader asked for the amount before.
	StopOrderChanged StopReason = "cancelled at the reader: the order changed"
	// StopGivenUp: the device let go of the order (Start over, the idle reset, the end of the
	// visit, the next customer).
	StopGivenUp StopReason = "cancelled at the reader: the order was given up"
	// StopLeft: the device left the reader's page (Back, a link): the reader asks only while
	// its page is on screen.
	StopLeft StopReason = "cancelled at the reader: its page was left"
)

// StopAtReader stops a card-reader payment under way: the reader stops asking, the payment is
// cancelled at the provider and the entry ends, nothing taken, with why. While the reader is
// reading a card the provider cannot cancel it: its answer is awaited (readerAnswerWait), and a
// card paid at that moment makes the entry paid instead (the entry says which). An entry
// already decided is returned as it is; one still undecided when the wait ends comes back with
// ErrReaderReading.
func (st *Settler) StopAtReader(ctx context.Context, id string, why StopReason) (ledger.Entry, error) {
	e, err := st.ledger.Get(ctx, id)
	if err != nil {
		return e, err
	}
	if !e.AtReader() || e.Kind == ledger.KindRefund {
		return e, ErrNotAtReader
	}
	switch e.State {
	case ledger.StateCreated:
		// The reason first, so that it is what the person is told (ReaderEndOf), whenever it was.
		e, _, err = st.endAtReader(ctx, e, string(why)+" ("+whyCancelledEarly+")", nil)
		if errors.Is(err, ledger.ErrStateChanged) {
			return st.StopAtReader(ctx, id, why) // handed to the reader meanwhile
		}
		return e, err
	case ledger.StateRedirected:
	default:
		return e, nil
	}
	st.stopReader(ctx, e)
	e, err = st.awaitGiveUp(ctx, e, string(why))
	if errors.Is(err, ledger.ErrStateChanged) {
		return st.ledger.Get(ctx, id)
	}
	return e, err
}

// stopReader ends the reader's action when it is asking for e's payment.
func (st *Settler) stopReader(ctx context.Context, e ledger.Entry) {
	if st.readers == nil {
		return
	}
	r, err := st.readers.GetReader(ctx, e.ReaderID)
	if err != nil || r.Action.PaymentID != e.ProviderPaymentID || r.Action.State != upstream.ReaderInProgress {
		return
	}
	if _, err := st.readers.CancelReaderAction(ctx, e.ReaderID); err != nil {
		// Busy reading a card: cancelling the payment below waits for its answer.
		st.log(ctx).Warn("stop the card reader", "reader", e.ReaderID, "err", err)
	}
}

// awaitGiveUp is giveUpAtReader, asked again every readerAnswerPoll while the reader reads a
// card, for at most readerAnswerWait.
func (st *Settler) awaitGiveUp(ctx context.Context, e ledger.Entry, why string) (ledger.Entry, error) {
	deadline := time.Now().Add(st.answerWait)
	for {
		moved, _, err := st.giveUpAtReader(ctx, e, why)
		if !errors.Is(err, ErrReaderReading) || !time.Now().Before(deadline) {
			return moved, err
		}
		select {
		case <-ctx.Done():
			return e, fmt.Errorf("wait for the card reader's answer: %w", ctx.Err())
		case <-time.After(readerAnswerPoll):
		}
	}
}

// AbandonAtReader stops the card-reader payment of an order the device lets go of (Start over,
// the idle reset, the end of the visit, the next customer), as StopAtReader with StopGivenUp.
// A card paid at that moment is given back at once, since nobody is left to take what it paid
// for: the entry is reversed, and says so (SaleGivenUp). An entry already being applied (its
// booking being made) is left to finish, and returned as it is.
func (st *Settler) AbandonAtReader(ctx context.Context, id string) (ledger.Entry, error) {
	e, err := st.StopAtReader(ctx, id, StopGivenUp)
	if err != nil || e.State != ledger.StatePaid {
		return e, err
	}
	_, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StatePaid}, ledger.StateRefundRequested,
		"order given up at the device as the card paid: reversing payment", func(x *ledger.Entry) {
			x.LastError = whyGivenUpPaid
		})
	switch {
	case err == nil:
		st.log(ctx).Warn("card paid as its order was given up: reversing", "entry", e.ID, "payment", e.ProviderPaymentID)
	case !errors.Is(err, ledger.ErrStateChanged):
		return e, err
	}
	return st.Advance(ctx, id) // the reversal, or whatever another worker moved it to
}
