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

// readerWait is how long a reader asks for a card before the payment is given up: the
// customer stood at the reader, and a payment started for nobody must not wait there.
const readerWait = 3 * time.Minute

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
		return st.endAtReader(ctx, e, "not handed to the reader in time", nil)
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
		return st.endAtReader(ctx, e, "the reader did not take the payment: "+err.Error(), err)
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRedirected, "card reader asking for the card", func(x *ledger.Entry) {
		x.ProviderPaymentID = p.ID
	})
	return e, err == nil, err
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
// nobody presented a card within readerWait; otherwise it waits.
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
	a := r.Action
	why := ""
	switch {
	case a.PaymentID == e.ProviderPaymentID && a.State == upstream.ReaderFailed:
		why = "declined or stopped at the reader: " + cmp.Or(a.FailureMessage, a.FailureCode, "no reason given")
	case a.PaymentID != e.ProviderPaymentID && a.State != upstream.ReaderIdle:
		why = "the reader moved on to another payment"
	case a.State == upstream.ReaderIdle:
		why = "the reader is not asking for this payment"
	case st.now().Sub(e.CreatedAt) >= readerWait:
		if _, cerr := st.readers.CancelReaderAction(ctx, e.ReaderID); cerr != nil {
			st.log(ctx).Warn("stop the card reader", "reader", e.ReaderID, "err", cerr)
		}
		why = "nobody presented a card in time"
	default:
		return e, false, nil // the reader is asking for the card
	}
	return st.giveUpAtReader(ctx, e, why)
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
		e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StateFailed, "provider says "+p.Status.String(), func(x *ledger.Entry) {
			x.LastError = "card-present payment " + p.Status.String()
		})
		return e, true, err
	}
	return e, false, nil
}

// giveUpAtReader cancels the payment at the provider and ends the entry, nothing taken; a
// payment made at the last moment is taken as paid instead.
func (st *Settler) giveUpAtReader(ctx context.Context, e ledger.Entry, why string) (ledger.Entry, bool, error) {
	p, err := st.payments.CancelPayment(ctx, e.ProviderPaymentID)
	if err != nil {
		return e, false, fmt.Errorf("cancel card-present payment: %w", err)
	}
	if p.Status == cinema.PaymentPaid {
		moved, _, err := st.paymentOutcome(ctx, e, p)
		return moved, err == nil, err
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateRedirected}, ledger.StateFailed, why, func(x *ledger.Entry) {
		x.LastError = why
	})
	return e, err == nil, err
}

// CancelAtReader stops a card-reader payment under way (the clerk's or the guest's Cancel):
// the reader stops asking, the payment is cancelled at the provider and the entry ends,
// nothing taken; a card presented at the same moment makes it paid instead (the entry says
// which). An entry already decided is returned as it is.
func (st *Settler) CancelAtReader(ctx context.Context, id string) (ledger.Entry, error) {
	e, err := st.ledger.Get(ctx, id)
	if err != nil {
		return e, err
	}
	if !e.AtReader() || e.Kind == ledger.KindRefund {
		return e, ErrNotAtReader
	}
	switch e.State {
	case ledger.StateCreated:
		e, _, err = st.endAtReader(ctx, e, "cancelled before the reader asked for the card", nil)
		return e, err
	case ledger.StateRedirected:
	default:
		return e, nil
	}
	if st.readers != nil {
		if r, err := st.readers.GetReader(ctx, e.ReaderID); err == nil && r.Action.PaymentID == e.ProviderPaymentID && r.Action.State == upstream.ReaderInProgress {
			if _, err := st.readers.CancelReaderAction(ctx, e.ReaderID); err != nil {
				st.log(ctx).Warn("stop the card reader", "reader", e.ReaderID, "err", err)
			}
		}
	}
	e, _, err = st.giveUpAtReader(ctx, e, "cancelled at the reader")
	if errors.Is(err, ledger.ErrStateChanged) {
		return st.ledger.Get(ctx, id)
	}
	return e, err
}
