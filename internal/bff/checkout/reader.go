package checkout

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	purchases "github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/views/components"
	checkoutview "github.com/cinemabff/cinemabff/views/pages/checkout"
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
	if _, err := h.Kernel.Ticketing.ResetOrderExpiry(ctx, v.UserSessionID); err != nil {
		web.LoggerFrom(ctx, h.Kernel.Logger).Warn("reset expiry before a card-reader payment", "err", err)
	}
	entry, err := h.Visits.Settler.StartReaderSale(ctx, settlement.Sale{OrderSessionID: v.UserSessionID, CinemaID: v.CinemaID, Actor: actor},
		due, web.DeviceOf(c).ReaderID, tender)
	if err != nil {
		_, _ = st.store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("card reader: ", err))
		return err
	}
	// Handing the payment to the reader is a money step: never cut off halfway.
	entry, _, err = h.Visits.AdvanceWithin(ctx, entry.ID)
	if err != nil && entry.State == ledger.StateFailed {
		_, _ = st.store.MarkStartFailed(ctx, rec.ID, fmt.Sprint("card reader: ", err))
		return h.backToPay(c, visit.ReaderRefusal(web.Loc(c), err))
	}
	if err != nil {
		web.LoggerFrom(ctx, h.Kernel.Logger).Warn("card reader payment not started at once", "entry", entry.ID, "err", err)
	}
	return web.Redirect(c, h.Kernel.URL(web.RouteBuyReader, entry.ID))
}

// continueOnReader sends a second press of Pay to the reader payment already under way (or to
// the payment of another kind the order has).
func (h *Handler) continueOnReader(c echo.Context, rec purchases.Record) error {
	h.Visits.AddBuyRef(c, rec.ID)
	if e, ok := h.saleUnderWay(c, rec.UserSessionID); ok {
		return web.Redirect(c, h.Kernel.URL(web.RouteBuyReader, e.ID))
	}
	return h.continuePayment(c, rec)
}

// saleUnderWay is the order's card-reader payment not decided yet, if any.
func (h *Handler) saleUnderWay(c echo.Context, orderSessionID string) (ledger.Entry, bool) {
	entries, err := h.Visits.Ledger.ForEdit(c.Request().Context(), orderSessionID)
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
	moved, err := h.Visits.Settler.CancelAtReader(dctx, entry.ID)
	cancel()
	if err != nil && !errors.Is(err, settlement.ErrNotAtReader) {
		return h.Visits.FromUpstream(err, h.Kernel.URL(web.RouteBuyReader, entry.ID), web.Loc(c).T("booking.see_status"))
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
		return web.Redirect(c, h.Kernel.URL(web.RouteBuyReturn, rec.ID))
	case ledger.StateFailed:
		if rec.State.Active() {
			_, _ = st.store.MarkStartFailed(ctx, rec.ID, "card reader: "+entry.LastError)
		}
		return h.backToPay(c, visit.ReaderOutcome(l, entry))
	case ledger.StateRefundRequested, ledger.StateRefunded:
		// Paid, but the order could not take it (its hold ended): the card gets it back.
		if rec.State.Active() {
			_, _ = st.store.MarkStartFailed(ctx, rec.ID, "order refused the card-reader payment: "+entry.LastError)
		}
		if b, ok := h.Visits.CurrentBuy(c); ok && b.UserSessionID == rec.UserSessionID {
			h.Visits.ClearBuy(c)
		}
		amount := l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})
		return h.Kernel.Render(c, http.StatusOK, l.T("checkout.payment_ended_title"), checkoutview.Ended(checkoutview.EndedView{Heading: l.T("checkout.reader_not_booked"),
			Body: l.T("checkout.reader_not_booked_text", "Amount", amount), NextURL: h.Kernel.URL(web.RouteWhatsOn), Label: l.T("checkout.see_whatson")}))
	}
	amount := l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})
	v := checkoutview.ReaderView{State: string(entry.State), Amount: amount, PollURL: h.Kernel.URL(web.RouteBuyReader, entry.ID), Counter: h.Kernel.AtCounter(c)}
	switch entry.State {
	case ledger.StateCreated, ledger.StateRedirected:
		v.Kind, v.Waiting = components.NoticeInfo, true
		v.Heading, v.Body = l.T("booking.reader_waiting", "Amount", amount), l.T("booking.reader_waiting_text", "Amount", amount)
		v.CancelURL, v.CSRFToken = h.Kernel.URL(web.RouteBuyReaderCancel, entry.ID), web.CSRFToken(c)
	default: // paid, the order being completed
		v.Kind = components.NoticeSuccess
		v.Heading, v.Body = l.T("checkout.reader_paid", "Amount", amount), l.T("checkout.reader_paid_text")
	}
	// Money in motion: the kiosk does not start over while the reader or the booking runs.
	web.PauseIdleUntil(c, entry.CreatedAt.Add(readerPagePause))
	return h.Kernel.Render(c, http.StatusOK, l.T("checkout.reader_title"), checkoutview.ReaderPay(v))
}

// readerPagePause bounds how long a kiosk stays on the page of a reader payment: the reader
// gives up asking after three minutes, and the booking is made within seconds of the payment.
const readerPagePause = 5 * time.Minute

// saleOfVisit reads the sale entry of the route and checks that this visit made it: its order's
// purchase record is one the visit started. Anyone else gets PaymentElsewhere.
func (h *Handler) saleOfVisit(c echo.Context) (ledger.Entry, purchases.Record, error) {
	ctx := c.Request().Context()
	id := c.Param("entry")
	if len(id) > 64 || h.Visits.Ledger == nil || h.checkout() == nil {
		return ledger.Entry{}, purchases.Record{}, h.Visits.PaymentElsewhere(c)
	}
	entry, err := h.Visits.Ledger.Get(ctx, id)
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
	if h.Kernel.AtCounter(c) {
		h.Kernel.Flash(c, msg)
		return web.Redirect(c, h.Kernel.URL(web.RouteBuyCounterPay))
	}
	h.Kernel.Sessions.Put(c.Request().Context(), visit.SessBuyNotice, msg)
	return web.Redirect(c, h.Kernel.URL(web.RouteBuySummary))
}
