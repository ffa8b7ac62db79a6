package visit

import (
	"context"
	"errors"
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Ending a visit and letting go of what it holds upstream: the kiosk's idle reset, "Start
// over" and "Done", forgetting a booking, signing out, the next customer at the counter.

// ResetVisit ends the visit: the kiosk's idle reset (app.js posts here when the warning's
// countdown runs out), "Start over" and "Done". The card reader stops asking for the visit's
// order, the order is cancelled upstream, which releases its seats, the server session is
// destroyed, and the start screen comes back. The device cookie stays.
func (v *Visits) ResetVisit(c echo.Context) error {
	if err := v.EndVisit(c); err != nil {
		return err
	}
	return web.Redirect(c, v.kernel.URL("home"))
}

// EndVisit releases what the visit holds upstream and destroys it. A card-reader payment of
// its orders is stopped first: the reader never asks for an order nobody is there for. An
// order whose payment is under way on the provider's page is left alone: the payment's watcher
// finishes it whether anybody waits or not. Cancelling is best effort: an order the upstream
// cannot cancel now releases its seats when its hold expires, and the next guest must not
// inherit this visit either way. What the person at the device must know (a card paid as the
// order was let go) is the next page's message.
func (v *Visits) EndVisit(c echo.Context) error {
	notice := v.ReleaseOpenOrders(c)
	if err := v.kernel.Sessions.Destroy(c.Request().Context()); err != nil {
		return fmt.Errorf("end visit: %w", err)
	}
	if notice != "" {
		v.kernel.Flash(c, notice)
	}
	return nil
}

// ReleaseOpenOrders cancels upstream the orders this visit holds and nobody will finish: the
// purchase order and the edit order (ReleaseBuy, ReleaseEdit). Used wherever a visit lets go
// of what it holds: the kiosk's reset, signing out, the next customer. It returns what the
// person at the device must be told ("" when nothing).
func (v *Visits) ReleaseOpenOrders(c echo.Context) string {
	buy := v.ReleaseBuy(c)
	edit := v.ReleaseEdit(c)
	return LetGoNotice(web.Loc(c), buy, edit)
}

// LetGo is what letting go of one of the visit's orders came to.
type LetGo struct {
	// Busy is a payment or refund of the edit still under way: the edit order is kept, and its
	// status page says where the money stands.
	Busy *ledger.Entry
	// Paid is the card-reader payment a card paid as its order was let go: given back at once,
	// or (when its booking was already being made) booked after all.
	Paid *ledger.Entry
	// Unanswered: the reader's payment could not be stopped (no answer from the provider, or a
	// card read past the wait); its order was cancelled all the same, so a payment that
	// arrives later cannot book it and goes back to the card.
	Unanswered bool
	// Change: what was let go is an edit order (the notice speaks of a change, not a purchase).
	Change bool
}

// ReleaseBuy cancels the visit's purchase order upstream, which frees its seats and whatever
// gift card or points it holds. A card-reader payment of it is stopped first
// (StopReaderSale); when the reader does not answer, the order is cancelled all the same: the
// reconciler follows the payment, and one that arrives later is refused by the cancelled order
// and given back. An order whose payment is under way on the provider's page is left to its
// watcher.
func (v *Visits) ReleaseBuy(c echo.Context) LetGo {
	if v.kernel.Ticketing == nil {
		return LetGo{}
	}
	buy, ok := v.CurrentBuy(c)
	if !ok {
		return LetGo{}
	}
	ctx := c.Request().Context()
	log := web.LoggerFrom(ctx, v.kernel.Logger)
	paid, err := v.StopReaderSale(ctx, buy.UserSessionID)
	switch {
	case err != nil:
		log.Warn("visit let go of a purchase whose card reader did not answer: order cancelled, a late payment goes back", "err", err)
		v.CancelAbandoned(ctx, "purchase", buy.UserSessionID)
		return LetGo{Unanswered: true}
	case paid != nil && paid.State != ledger.StateRefundRequested && paid.State != ledger.StateRefunded:
		log.Info("visit let go of a purchase the card paid: its booking is made", "entry", paid.ID)
		return LetGo{Paid: paid}
	}
	if rec, busy := v.BuyPaymentUnderWay(c, buy); busy {
		log.Info("visit let go of a purchase with a payment under way: order kept", "ref", rec.ID)
		return LetGo{Paid: paid}
	}
	v.CancelAbandoned(ctx, "purchase", buy.UserSessionID)
	return LetGo{Paid: paid}
}

// StopReaderSale stops the card-reader payment of the order if one is under way (the reader
// stops asking, its payment is cancelled, a card being read is waited for) and ends the
// order's purchase record when nothing is left to book. It returns the entry when a card paid
// (nil when nothing was taken or there was no payment), and an error when the reader's answer
// is not known.
func (v *Visits) StopReaderSale(ctx context.Context, orderSessionID string) (*ledger.Entry, error) {
	e, ok := v.ReaderSaleUnderWay(ctx, orderSessionID)
	if !ok {
		return nil, nil
	}
	dctx, cancel := v.Detached(ctx) // a money step: never cut off halfway
	defer cancel()
	e, err := v.settler.AbandonAtReader(dctx, e.ID)
	if err != nil {
		return nil, fmt.Errorf("stop the card reader: %w", err)
	}
	if e.State == ledger.StateFailed || e.State == ledger.StateRefundRequested || e.State == ledger.StateRefunded {
		v.endSaleRecord(ctx, orderSessionID, "card reader: "+e.LastError)
	}
	if e.State == ledger.StateFailed {
		return nil, nil
	}
	return &e, nil
}

// endSaleRecord ends the order's purchase record that a card-reader payment left starting.
func (v *Visits) endSaleRecord(ctx context.Context, orderSessionID, why string) {
	if v.purchases == nil {
		return
	}
	rec, err := v.purchases.Active(ctx, orderSessionID)
	if err != nil {
		return
	}
	if _, err := v.purchases.MarkStartFailed(ctx, rec.ID, why); err != nil {
		web.LoggerFrom(ctx, v.kernel.Logger).Warn("end the purchase record of a stopped card-reader payment", "ref", rec.ID, "err", err)
	}
}

// ReaderSaleUnderWay is the order's card-reader payment not decided yet, if any.
func (v *Visits) ReaderSaleUnderWay(ctx context.Context, orderSessionID string) (ledger.Entry, bool) {
	if v.ledger == nil || v.settler == nil {
		return ledger.Entry{}, false
	}
	entries, err := v.ledger.ForEdit(ctx, orderSessionID)
	if err != nil {
		return ledger.Entry{}, false
	}
	for _, e := range entries {
		if e.Kind == ledger.KindSale && !e.State.Terminal(e.Kind) {
			return e, true
		}
	}
	return ledger.Entry{}, false
}

// ReleaseEdit cancels the visit's edit order (the original booking stays as it was). A
// card-reader payment of the change that the reader still asks for is stopped first, as for a
// purchase; a payment or refund of the change otherwise under way keeps the edit order, and is
// returned as Busy, so a caller that must not let go of it (the next customer at the counter)
// can say so.
func (v *Visits) ReleaseEdit(c echo.Context) LetGo {
	if v.kernel.Ticketing == nil {
		return LetGo{}
	}
	e, ok := v.CurrentEdit(c)
	if !ok {
		return LetGo{}
	}
	ctx := c.Request().Context()
	log := web.LoggerFrom(ctx, v.kernel.Logger)
	paid, err := v.stopEditReader(ctx, e)
	if err != nil {
		// The reader may still take a card, and the next person's tap must not pay this
		// change: its edit order is cancelled, so a payment that arrives later cannot be
		// applied and goes back to the card (the settler reverses it).
		log.Warn("visit let go of an edit whose card reader did not answer: edit order cancelled", "booking", e.BookingNumber, "err", err)
		v.CancelAbandoned(ctx, "edit", e.UserSessionID)
		return LetGo{Unanswered: true, Change: true}
	}
	entry, err := v.BlockingEntry(ctx, e)
	switch {
	case err != nil:
		log.Warn("visit let go of an edit whose payment state is unknown: edit order kept", "booking", e.BookingNumber, "err", err)
	case entry != nil:
		log.Info("visit let go of an edit with a payment under way: edit order kept", "booking", e.BookingNumber, "entry", entry.ID)
	default:
		v.CancelAbandoned(ctx, "edit", e.UserSessionID)
	}
	return LetGo{Busy: entry, Paid: paid}
}

// stopEditReader stops the edit's card-reader payment while the reader asks for it; it
// returns the entry when a card paid at that moment (given back, or being saved).
func (v *Visits) stopEditReader(ctx context.Context, e Edit) (*ledger.Entry, error) {
	entry, err := v.BlockingEntry(ctx, e)
	if err != nil || entry == nil || entry.Kind == ledger.KindRefund || !entry.ReaderAsking() {
		return nil, nil
	}
	dctx, cancel := v.Detached(ctx)
	defer cancel()
	stopped, err := v.settler.AbandonAtReader(dctx, entry.ID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("stop the card reader: %w", err)
	case stopped.State == ledger.StateFailed:
		return nil, nil
	}
	return &stopped, nil
}

// CancelAbandoned cancels an order nobody will finish; an order already gone is fine.
func (v *Visits) CancelAbandoned(ctx context.Context, what, userSessionID string) {
	err := v.kernel.Ticketing.CancelOrder(ctx, userSessionID)
	switch {
	case err == nil:
		web.LoggerFrom(ctx, v.kernel.Logger).Info("abandoned order cancelled", "what", what)
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrOrderExpired):
	default:
		web.LoggerFrom(ctx, v.kernel.Logger).Warn("abandoned order not cancelled: its seats are released when its hold expires", "what", what, "err", err)
	}
}

// staffKeys are the visit's values that belong to the staff member and the browser, not to the
// customer being served: the sign-in, the language, the CSRF secret, the session's freshness.
var staffKeys = map[string]bool{
	web.SessStaffUser: true, web.SessStaffName: true, web.SessStaffEpoch: true, web.SessStaffSeen: true,
	web.SessStaffPINWarning: true, web.SessLang: true, web.SessCSRF: true, web.SessTouched: true,
}

// ForgetCustomer removes from the visit everything of the customer served: whatever a flow
// keeps for them (the booking, an edit, a purchase and its pages, a collection, notices) is
// every key but the staff member's own, so a value a flow adds later is forgotten too. Orders
// it held upstream are let go first (ReleaseOpenOrders).
func (v *Visits) ForgetCustomer(c echo.Context) {
	ctx := c.Request().Context()
	for _, k := range v.kernel.Sessions.Keys(ctx) {
		if !staffKeys[k] {
			v.kernel.Sessions.Remove(ctx, k)
		}
	}
}

// PaymentElsewhere is the answer to a payment's page (the provider's way back, its status)
// opened outside the visit that started the payment: another browser, a link passed on, the
// next customer at a counter. The provider's ids are in the payment page's address and are no
// secret, so holding one proves nothing: the page names nothing of the booking, changes
// nothing, and tells the owner where to look.
func (v *Visits) PaymentElsewhere(c echo.Context) error {
	l := web.Loc(c)
	return &web.Error{Code: web.ENotFound, Heading: l.T("common.payment_elsewhere_heading"), Message: l.T("common.payment_elsewhere_text"),
		BackURL: v.kernel.URL("booking.find"), BackLabel: l.T("common.find_booking")}
}
