package checkout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// Paying a purchase on the device's card reader (a walk-in at the counter, a guest at the
// kiosk): the purchase is recorded, the exact amount goes to the reader, and the page follows
// it; once the provider says paid, the settlement completes the order with that payment and
// the page moves on to the confirmation by itself. A declined card or a stopped reader leaves
// the order as it was, to pay again; an order that cannot take the payment gives it back.

// payBuyOnReader starts the purchase's card-present payment on this device's reader.
func (h *Handler) payBuyOnReader(c echo.Context, v visit.Buy, o cinema.Order, due cinema.Money, tender, actor string) error {
	ctx := c.Request().Context()
	st := h.checkout()
	rec, err := st.store.Create(ctx, purchases.Record{UserSessionID: v.UserSessionID, CinemaID: v.CinemaID, SessionID: v.SessionID,
		CustomerName: v.Name, CustomerEmail: v.Email, AmountCents: due.Cents, Currency: due.Currency, Summary: h.snapshotOf(ctx, v, o, nil)})
	if errors.Is(err, purchases.ErrActiveExists) {
		return h.continueOnReader(c, rec)
	}
	if err != nil {
		return err
	}
	h.Visits.AddBuyRef(c, rec.ID)
	// The hold must outlast the customer at the reader.
	if _, err := h.Ticketing.ResetOrderExpiry(ctx, v.UserSessionID); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("reset expiry before a card-reader payment", "err", err)
	}
	entry, err := h.Settler.StartReaderSale(ctx, settlement.Sale{OrderSessionID: v.UserSessionID, CinemaID: v.CinemaID, Actor: actor},
		due, web.DeviceOf(c).ReaderID, tender)
	if err != nil {
		_, _ = st.store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("card reader: ", err))
		return err
	}
	if now, changed := h.orderChanged(ctx, v, due); changed {
		// A gift card, points or seats landed since the amount was read: the reader asks for
		// nothing but the order as it is.
		return h.stopChangedSale(c, entry, now)
	}
	// Handing the payment to the reader is a money step: never cut off halfway.
	entry, _, err = h.Visits.AdvanceWithin(ctx, entry.ID)
	if err != nil && entry.State == ledger.StateFailed {
		_, _ = st.store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("card reader: ", err))
		return h.backToPay(c, visit.ReaderRefusal(web.Loc(c), err))
	}
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("card reader payment not started at once", "entry", entry.ID, "err", err)
	}
	return web.Redirect(c, h.Site.URL("buy.reader", entry.ID))
}

// orderChanged reads the order again and reports whether what it leaves to pay is no longer
// due (and what it is now). An order that cannot be read is taken as unchanged: the ticketing
// system refuses a payment of another amount, and the card gets it back.
func (h *Handler) orderChanged(ctx context.Context, v visit.Buy, due cinema.Money) (cinema.Money, bool) {
	o, err := h.Ticketing.GetOrder(ctx, v.UserSessionID)
	if err != nil {
		return due, false
	}
	now := o.ToPay()
	return now, now != due
}

// stopChangedSale stops the card-reader payment of an order that changed after its amount was
// read, and sends the buyer back to pay the order as it is now.
func (h *Handler) stopChangedSale(c echo.Context, entry ledger.Entry, now cinema.Money) error {
	ctx := c.Request().Context()
	dctx, cancel := h.Visits.Detached(ctx)
	stopped, err := h.Settler.StopAtReader(dctx, entry.ID, settlement.StopOrderChanged)
	cancel()
	if err != nil && !errors.Is(err, settlement.ErrNotAtReader) {
		return h.Visits.FromUpstream(err, h.Site.URL("buy.reader", entry.ID), web.Loc(c).T("booking.see_status"))
	}
	if stopped.State != ledger.StateFailed {
		return web.Redirect(c, h.Site.URL("buy.reader", entry.ID)) // a card paid all the same: its page says what follows
	}
	h.endPurchaseRecord(ctx, entry.EditSessionID, "card reader: "+stopped.LastError)
	return h.backToPay(c, web.Loc(c).T("checkout.reader_order_changed", "Amount", web.Loc(c).Money(now)))
}

// endPurchaseRecord ends the order's purchase record a stopped card-reader payment left active.
func (h *Handler) endPurchaseRecord(ctx context.Context, orderSessionID, why string) {
	if rec, err := h.checkout().store.Active(ctx, orderSessionID); err == nil {
		_, _ = h.checkout().store.MarkStartFailed(ctx, rec.ID, why)
	}
}

// refuseChangeWhilePaying refuses a change to the order (its tickets, seats, a gift card,
// points) while a payment of it is under way: the amount being taken must stay the order's.
// A card reader's payment is named, with the way to cancel it first. done is false when no
// payment is under way.
func (h *Handler) refuseChangeWhilePaying(c echo.Context, v visit.Buy) (done bool, err error) {
	rec, busy := h.Visits.BuyPaymentUnderWay(c, v)
	if !busy {
		return false, nil
	}
	l := web.Loc(c)
	if e, ok := h.Visits.ReaderSaleUnderWay(c.Request().Context(), v.UserSessionID); ok {
		amount := l.Money(cinema.Money{Cents: e.AmountCents, Currency: e.Currency})
		return true, &web.Error{Code: web.EConflict, Heading: l.T("checkout.reader_change_refused"), Message: l.T("checkout.reader_change_refused_text", "Amount", amount),
			BackURL: h.Site.URL("buy.reader", e.ID), BackLabel: l.T("checkout.see_card_payment")}
	}
	return true, &web.Error{Code: web.EConflict, Heading: l.T("checkout.payment_started"), Message: l.T("checkout.change_refused_paying"),
		BackURL: h.Site.URL("buy.return", rec.ID), BackLabel: l.T("checkout.see_payment")}
}

// stopStaleSale is the other half of refuseChangeWhilePaying, for a payment started in the
// instant between that check and the change: the reader's payment, now of an amount the order
// no longer has, is stopped, and the buyer is told to pay the new amount. A card paid in that
// instant is refused by the ticketing system and goes back to the card (its page says so).
func (h *Handler) stopStaleSale(c echo.Context, v visit.Buy) (string, bool) {
	e, ok := h.readerAsking(c, v)
	if !ok {
		return "", false
	}
	return h.stopSale(c, e, settlement.StopOrderChanged), true
}

// leaveReader stops the reader when its page was left for the order's summary or the
// counter's payment page (Back, a link): a reader asks only while its page is on screen, so a
// card presented afterwards pays nothing. It says what became of the payment: notice when the
// reader stopped asking, readerURL when a card paid (its page says what follows).
func (h *Handler) leaveReader(c echo.Context, v visit.Buy) (notice, readerURL string) {
	e, ok := h.Visits.ReaderSaleUnderWay(c.Request().Context(), v.UserSessionID)
	switch {
	case !ok:
		return "", ""
	case !e.ReaderAsking():
		return "", h.Site.URL("buy.reader", e.ID) // paid, the booking being made
	}
	if readerURL = h.stopSale(c, e, settlement.StopLeft); readerURL != "" {
		return "", readerURL
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionPayment, CinemaID: e.CinemaID, Currency: e.Currency,
		Detail: "card reader payment of a sale stopped as its page was left, nothing taken"})
	// Stopped here because its page was left, whichever answer reached the ledger first (the
	// provider's cancellation can): the person is told that reason.
	return web.Loc(c).T("booking.reader_left"), ""
}

// readerAsking is the order's card-reader payment while the reader asks (or is about to).
func (h *Handler) readerAsking(c echo.Context, v visit.Buy) (ledger.Entry, bool) {
	e, ok := h.Visits.ReaderSaleUnderWay(c.Request().Context(), v.UserSessionID)
	return e, ok && e.ReaderAsking()
}

// stopSale stops the reader's payment e for why and ends the order's purchase record. A card
// paid in that instant cannot be stopped: readerURL is then its page ("" when stopped).
func (h *Handler) stopSale(c echo.Context, e ledger.Entry, why settlement.StopReason) (readerURL string) {
	ctx := c.Request().Context()
	dctx, cancel := h.Visits.Detached(ctx)
	stopped, err := h.Settler.StopAtReader(dctx, e.ID, why)
	cancel()
	if err != nil || stopped.State != ledger.StateFailed {
		return h.Site.URL("buy.reader", e.ID)
	}
	h.endPurchaseRecord(ctx, e.EditSessionID, "card reader: "+stopped.LastError)
	return ""
}

// continueOnReader sends a second press of Pay to the reader payment already under way (or to
// the payment of another kind the order has).
func (h *Handler) continueOnReader(c echo.Context, rec purchases.Record) error {
	h.Visits.AddBuyRef(c, rec.ID)
	if e, ok := h.Visits.ReaderSaleUnderWay(c.Request().Context(), rec.UserSessionID); ok {
		return web.Redirect(c, h.Site.URL("buy.reader", e.ID))
	}
	return h.continuePayment(c, rec)
}

// showBuyReader follows the purchase's payment on the reader: the reader asking, then the
// booking being made, then the confirmation (or back to pay again, with the reason).
func (h *Handler) showBuyReader(c echo.Context) error {
	entry, rec, err := h.saleOfVisit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if !entry.State.Terminal(entry.Kind) {
		if moved, _, aerr := h.Visits.AdvanceWithin(ctx, entry.ID); aerr == nil || moved.ID != "" {
			entry = moved
		}
	}
	return h.readerAnswer(c, entry, rec)
}

// cancelBuyReader is Cancel while the reader asks: it stops asking and nothing is taken; a
// card presented at the same moment makes it paid (the page says so).
func (h *Handler) cancelBuyReader(c echo.Context) error {
	entry, rec, err := h.saleOfVisit(c)
	if err != nil {
		return err
	}
	dctx, cancel := h.Visits.Detached(c.Request().Context())
	moved, err := h.Settler.CancelAtReader(dctx, entry.ID)
	cancel()
	if err != nil && !errors.Is(err, settlement.ErrNotAtReader) {
		return h.Visits.FromUpstream(err, h.Site.URL("buy.reader", entry.ID), web.Loc(c).T("booking.see_status"))
	}
	if moved.ID != "" {
		entry = moved
	}
	if entry.State == ledger.StateFailed {
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionPayment, CinemaID: entry.CinemaID, Currency: entry.Currency,
			Detail: "card reader payment of a sale cancelled, nothing taken"})
	}
	return h.readerAnswer(c, entry, rec)
}

// readerAnswer is the page for where the sale's reader payment stands.
func (h *Handler) readerAnswer(c echo.Context, entry ledger.Entry, rec purchases.Record) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	st := h.checkout()
	switch entry.State {
	case ledger.StateApplied:
		if rec.State != purchases.StateCompleted {
			if err := st.store.Completed(ctx, rec.UserSessionID, entry.BookingNumber); err != nil {
				return err
			}
		}
		return web.Redirect(c, h.Site.URL("buy.return", rec.ID))
	case ledger.StateFailed:
		if rec.State.Active() {
			_, _ = st.store.MarkStartFailed(ctx, rec.ID, "card reader: "+entry.LastError)
		}
		return h.backToPay(c, visit.ReaderOutcome(l, entry))
	case ledger.StateRefundRequested, ledger.StateRefunded:
		// Paid, but the order could not take it (its hold ended, it changed): the card gets it back.
		if rec.State.Active() {
			_, _ = st.store.MarkStartFailed(ctx, rec.ID, "order refused the card-reader payment: "+entry.LastError)
		}
		if b, ok := h.Visits.CurrentBuy(c); ok && b.UserSessionID == rec.UserSessionID {
			h.clearBuy(c, b)
		}
		return h.Site.Render(c, http.StatusOK, l.T("checkout.payment_ended_title"), checkoutview.Ended(checkoutview.EndedView{Heading: l.T("checkout.reader_not_booked"),
			Body: visit.SaleReversalWords(l, entry), NextURL: h.Site.URL("whatson"), Label: l.T("checkout.see_whatson")}))
	}
	amount := l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})
	v := checkoutview.ReaderView{State: string(entry.State), Amount: amount, PollURL: h.Site.URL("buy.reader", entry.ID), Counter: h.Site.AtCounter(c)}
	switch entry.State {
	case ledger.StateCreated, ledger.StateRedirected:
		v.Kind, v.Waiting = components.NoticeInfo, true
		v.Heading, v.Body = l.T("booking.reader_waiting", "Amount", amount), l.T("booking.reader_waiting_text", "Amount", amount)
		v.CancelURL, v.CSRFToken = h.Site.URL("buy.readercancel", entry.ID), web.CSRFToken(c)
	default: // paid, the order being completed
		v.Kind = components.NoticeSuccess
		v.Heading, v.Body = l.T("checkout.reader_paid", "Amount", amount), l.T("checkout.reader_paid_text")
	}
	web.PauseIdleUntil(c, readerPauseEnd(entry))
	return h.Site.Render(c, http.StatusOK, l.T("checkout.reader_title"), checkoutview.ReaderPay(v))
}

// readerPagePause bounds how long a kiosk stays on the page of a reader payment that was paid:
// the booking is made within seconds of the payment.
const readerPagePause = 5 * time.Minute

// readerPauseEnd is how long the kiosk's idle reset waits on the page of a reader payment: while
// the reader asks, as long as it asks (nobody tapping, it gives up and the page moves on);
// once a card paid, while the booking is made. Money in motion is never cut off by a reset.
func readerPauseEnd(e ledger.Entry) time.Time {
	if e.ReaderAsking() {
		return e.CreatedAt.Add(settlement.ReaderWait)
	}
	return e.CreatedAt.Add(readerPagePause)
}

// saleOfVisit reads the sale entry of the route and checks that this visit made it: its order's
// purchase record is one the visit started. Anyone else gets PaymentElsewhere.
func (h *Handler) saleOfVisit(c echo.Context) (ledger.Entry, purchases.Record, error) {
	ctx := c.Request().Context()
	id := c.Param("entry")
	if len(id) > 64 || h.Ledger == nil || h.checkout() == nil {
		return ledger.Entry{}, purchases.Record{}, h.Visits.PaymentElsewhere(c)
	}
	entry, err := h.Ledger.Get(ctx, id)
	if err != nil || entry.Kind != ledger.KindSale {
		return ledger.Entry{}, purchases.Record{}, h.Visits.PaymentElsewhere(c)
	}
	rec, err := h.checkout().store.Latest(ctx, entry.EditSessionID)
	if err != nil || !slices.Contains(h.Visits.BuyRefs(c), rec.ID) {
		return ledger.Entry{}, purchases.Record{}, h.Visits.PaymentElsewhere(c)
	}
	return entry, rec, nil
}

// backToPay sends the buyer back to pay again with msg: the counter's payment page, or the
// order's summary (a kiosk).
func (h *Handler) backToPay(c echo.Context, msg string) error {
	if h.Site.AtCounter(c) {
		h.Site.Flash(c, msg)
		return web.Redirect(c, h.Site.URL("buy.counterpay"))
	}
	h.Sessions.Put(c.Request().Context(), visit.SessBuyNotice, msg)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}
