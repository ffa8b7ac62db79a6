package settlement

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// A sale paid on a card reader (a walk-in at the counter, a guest at the kiosk): the
// card-present payment is taken first, exactly as for a change (StartReaderSale, then the same
// reader steps), and once the provider says paid the order is completed with CompleteOrder and
// that payment. A payment the order cannot take (expired, refused) is given back to the card;
// an answer lost on the way is found in the order's details before anything is done twice.

// Sales are the purchase records of the orders sold this way (internal/purchases): who buys,
// and where the completed booking is recorded (its confirmation and e-mail follow from it).
type Sales interface {
	// Buyer is the name and e-mail the order is completed with ("" for none: a walk-in).
	Buyer(ctx context.Context, orderSessionID string) (name, email string, err error)
	// Completed records that the order became booking number.
	Completed(ctx context.Context, orderSessionID string, number int64) error
}

// SaleTicketing is what a sale needs from the ticketing API.
type SaleTicketing interface {
	CompleteOrder(ctx context.Context, r upstream.CompleteOrderRequest) (cinema.OrderDetails, error)
	GetOrderDetails(ctx context.Context, userSessionID string) (cinema.OrderDetails, error)
}

// Sale is an order sold on a card reader.
type Sale struct {
	OrderSessionID string
	CinemaID       string
	Actor          string // the staff member at the counter; "" at a kiosk
}

// ErrNoSales says a sale on a card reader was asked for and the settler has no Sales.
var ErrNoSales = errors.New("settlement: sales are not set up")

// StartReaderSale writes the order's card-present payment of amount on readerID under tender.
// A press at the same moment gets the same entry; a new attempt after a declined card a new
// one. Advance hands it to the reader.
func (st *Settler) StartReaderSale(ctx context.Context, s Sale, amount cinema.Money, readerID, tender string) (ledger.Entry, error) {
	if st.readers == nil {
		return ledger.Entry{}, ErrNoReaders
	}
	if st.sales == nil || st.saleTicketing == nil {
		return ledger.Entry{}, ErrNoSales
	}
	key, err := st.editKey(ctx, "sale-reader:", s.OrderSessionID, amount.Cents)
	if err != nil {
		return ledger.Entry{}, err
	}
	e, _, err := st.ledger.Create(ctx, ledger.Entry{Kind: ledger.KindSale, IdempotencyKey: key, AmountCents: amount.Cents, Currency: amount.Currency,
		CinemaID: s.CinemaID, EditSessionID: s.OrderSessionID, Actor: s.Actor, ReaderID: readerID, Tender: tender})
	if err != nil {
		return e, fmt.Errorf("write the sale's card-reader payment: %w", err)
	}
	return e, nil
}

// applySale completes the order of a paid sale with its payment. The claim (applying) makes
// it happen once; a lost answer is looked up in the order's details before a retry.
func (st *Settler) applySale(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if st.sales == nil || st.saleTicketing == nil {
		return e, false, ErrNoSales
	}
	from := e.State
	if e.Attempts > 0 {
		if moved, done, err := st.saleFoundCompleted(ctx, e, from); done || err != nil {
			return moved, done, err
		}
		if st.now().Sub(e.CreatedAt) > saleWait {
			// The order's hold is long gone: the money goes back to the card.
			e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{from}, ledger.StateRefundRequested, "order not completed in time: reversing payment", nil)
			return e, err == nil, err
		}
	}
	name, email, err := st.sales.Buyer(ctx, e.EditSessionID)
	if err != nil {
		return e, false, fmt.Errorf("read the sale's buyer: %w", err)
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{from}, ledger.StateApplying, "calling complete-order", nil)
	if err != nil {
		return e, false, err
	}
	d, cerr := st.saleTicketing.CompleteOrder(ctx, upstream.CompleteOrderRequest{UserSessionID: e.EditSessionID, CustomerName: name, CustomerEmail: email,
		BookingMode: upstream.BookingModeSale, PerformPayment: true, GeneratePrintStream: true, ReturnPrintStream: true,
		Payment: &upstream.OrderPayment{AmountCents: e.AmountCents, TenderCategory: e.Tender, CardNumber: e.CardMasked, CardType: e.CardType}})
	if cerr == nil && d.Completed && d.BookingNumber != 0 {
		return st.saleApplied(ctx, e, d.BookingNumber, "complete-order accepted")
	}
	if cerr == nil {
		// An answer that names no booking: the order's details say whether it completed,
		// before any money goes back to the card.
		if moved, done, err := st.saleFoundCompleted(ctx, e, ledger.StateApplying); done || err != nil {
			return moved, done, err
		}
		cerr = errors.New("the ticketing system did not confirm the sale")
	}
	if errors.Is(cerr, upstream.ErrUnavailable) {
		// Not known whether it went through: give the claim back; the next pass looks.
		_, terr := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, from, "complete-order failed, will look and retry", func(x *ledger.Entry) {
			x.Attempts++
			x.LastError = cerr.Error()
		})
		if terr != nil {
			return e, false, terr
		}
		return e, false, fmt.Errorf("complete-order: %w", cerr)
	}
	// The order cannot take it (expired, refused): the money goes back to the card.
	st.logger.Warn("sale paid on the reader could not be completed: refunding", "entry", e.ID, "err", cerr)
	why := cerr.Error()
	if ue := (*upstream.Error)(nil); errors.As(cerr, &ue) && ue.ExtendedResultCode == upstream.ExtAmountMismatch {
		why = whyOrderChanged + why // a gift card or points applied, or tickets changed, after the reader asked
	}
	e, err = st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StateRefundRequested, "order refused the sale: reversing payment", func(x *ledger.Entry) {
		x.LastError = why
	})
	return e, err == nil, err
}

// saleFoundCompleted ends a sale whose order completed although its answer was lost. done is
// false when the order is not completed (or cannot be read: err).
func (st *Settler) saleFoundCompleted(ctx context.Context, e ledger.Entry, from ledger.State) (ledger.Entry, bool, error) {
	d, err := st.saleTicketing.GetOrderDetails(ctx, e.EditSessionID)
	if err != nil {
		return e, false, fmt.Errorf("read the order to verify: %w", err)
	}
	if !d.Completed || d.BookingNumber == 0 {
		return e, false, nil
	}
	e.State = from
	return st.saleApplied(ctx, e, d.BookingNumber, "found completed")
}

// saleApplied records the completed booking on the entry and on the purchase record.
func (st *Settler) saleApplied(ctx context.Context, e ledger.Entry, number int64, note string) (ledger.Entry, bool, error) {
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{e.State}, ledger.StateApplied, note, func(x *ledger.Entry) {
		x.BookingNumber = number
	})
	if err != nil {
		return e, false, err
	}
	if err := st.sales.Completed(ctx, e.EditSessionID, number); err != nil {
		// The money and the booking are right; the purchase page and its e-mail wait for the
		// next look (the reconciler does not come back to an applied entry: log it loudly).
		st.log(ctx).Error("sale completed but its purchase record not marked", "entry", e.ID, "booking", number, "err", err)
	}
	return e, true, nil
}

// resolveStaleSale ends a claim on a sale left by a crash: the order's details tell whether
// complete-order went through.
func (st *Settler) resolveStaleSale(ctx context.Context, e ledger.Entry) (ledger.Entry, bool, error) {
	if moved, done, err := st.saleFoundCompleted(ctx, e, ledger.StateApplying); done || err != nil {
		return moved, done, err
	}
	e, err := st.ledger.Transition(ctx, e.ID, []ledger.State{ledger.StateApplying}, ledger.StatePaid, "stale claim resolved", func(x *ledger.Entry) {
		x.Attempts++
	})
	return e, err == nil, err
}

// SoldAtBoxOffice reports whether this site sold the booking at its box office or a kiosk: a
// sale on a card reader (the ledger) or in cash or on a card terminal (the box office's
// register). Such a booking was completed with the cinema's own payment (CompleteOrder), and
// the ticketing system changes only bookings paid through an external payment provider.
func (st *Settler) SoldAtBoxOffice(ctx context.Context, cinemaID string, number int64) (bool, error) {
	if st.ledger != nil {
		if sold, err := st.ledger.SoldOnReader(ctx, cinemaID, number); err != nil || sold {
			return sold, err
		}
	}
	if st.boxOffice == nil {
		return false, nil
	}
	return st.boxOffice.SoldHere(ctx, cinemaID, number)
}

// saleWait bounds how long a reconciler retries the completion of a paid sale before the
// money goes back: the order's hold is gone by then.
const saleWait = 30 * time.Minute
