package booking

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// Paying a change on the device's card reader (the box office, the kiosk): the exact amount
// goes to the reader, the page follows it ("Insert, tap or swipe the card") and moves on by
// itself when the provider says paid; a declined card or a stopped reader leaves the change
// open with the reason.

// payOnReader starts the change's card-present payment on this device's reader and shows it.
func (h *Handler) payOnReader(c echo.Context, e visit.Edit, change settlement.Change, due cinema.Money, tender string) error {
	ctx := c.Request().Context()
	st := h.Settler
	entry, err := st.StartReaderPayment(ctx, change, due, web.DeviceOf(c).ReaderID, tender)
	if err != nil {
		return err
	}
	e.Entry = entry.ID
	h.Visits.SaveEdit(c, e)
	if o, err := h.Ticketing.GetOrder(ctx, e.UserSessionID); err == nil && o.Total != due {
		// The change changed (another tab) since its amount was read: the reader asks for
		// nothing but the change as it is.
		return h.stopStaleReader(c, e, o.Total)
	}
	// Handing the payment to the reader is a money step: never cut off halfway.
	entry, _, err = h.Visits.AdvanceWithin(ctx, entry.ID)
	if err != nil && entry.State == ledger.StateFailed {
		h.Site.Flash(c, visit.ReaderRefusal(web.Loc(c), err))
		return web.Redirect(c, h.readerBack(c))
	}
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("card reader payment not started at once", "entry", entry.ID, "err", err)
	}
	return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
}

// cancelOnReader is Cancel on the reader's page: the reader stops asking, nothing is taken,
// and the change stays open for cash or another try. A card presented at the same moment
// makes it paid (the status says so).
func (h *Handler) cancelOnReader(c echo.Context) error {
	entry, e, ok, err := h.entryForVisit(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	dctx, cancel := h.Visits.Detached(ctx)
	entry, err = h.Settler.CancelAtReader(dctx, entry.ID)
	cancel()
	if errors.Is(err, settlement.ErrNotAtReader) {
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("edit.status", entry.ID), web.Loc(c).T("booking.see_status"))
	}
	if entry.State == ledger.StateFailed {
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionPayment, CinemaID: entry.CinemaID, BookingNumber: entry.BookingNumber,
			AmountCents: 0, Currency: entry.Currency, Detail: "card reader payment cancelled, nothing taken"})
	}
	return h.afterSettle(c, e, entry)
}

// readerStatusView says where a card-reader payment stands: the reader asking for the card
// (with Cancel), or the change being saved once it is paid.
func (h *Handler) readerStatusView(c echo.Context, entry ledger.Entry, v *bookingview.PaymentStatusView) {
	l := web.Loc(c)
	amount := l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})
	switch entry.State {
	case ledger.StateCreated, ledger.StateRedirected:
		v.Heading, v.Body = l.T("booking.reader_waiting", "Amount", amount), l.T("booking.reader_waiting_text", "Amount", amount)
		v.CancelURL, v.CancelLabel, v.CSRFToken = h.Site.URL("edit.readercancel", entry.ID), l.T("booking.reader_cancel"), web.CSRFToken(c)
		v.Reader, v.Counter = true, h.Site.AtCounter(c)
	case ledger.StatePaid, ledger.StateApplying:
		v.Kind = components.NoticeSuccess
		v.Heading, v.Body = l.T("booking.reader_paid", "Amount", amount, "Card", refundCard(l, entry)), l.T("booking.status_paid_text", "Amount", amount)
	}
}

// readerFailed is the answer when the reader did not take the payment (declined, stopped,
// nobody there): the change is still open; the counter's payment page, or the change at a
// kiosk, says why.
func (h *Handler) readerFailed(c echo.Context, e visit.Edit, entry ledger.Entry) error {
	msg := visit.ReaderOutcome(web.Loc(c), entry)
	e.Entry = ""
	h.Visits.SaveEdit(c, e)
	h.Site.Flash(c, msg)
	return web.Redirect(c, h.readerBack(c))
}

// readerBack is where a card payment that took nothing sends the person, to try again: the
// counter's payment page, or the change (a kiosk).
func (h *Handler) readerBack(c echo.Context) string {
	if h.Site.AtCounter(c) {
		return h.Site.URL("edit.counterpay")
	}
	return h.Site.URL("edit.show")
}

// stopStaleReader stops the change's card-reader payment when the change no longer costs
// what the reader asks for (a ticket added or removed in another tab at that moment), and
// sends the person to pay the change as it is now. A card paid in that instant is refused by
// the ticketing system and goes back to the card; the status page says so.
func (h *Handler) stopStaleReader(c echo.Context, e visit.Edit, now cinema.Money) error {
	entry, ok := h.readerAsking(c, e)
	if !ok {
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	if !h.stopEditReader(c, e, entry, settlement.StopOrderChanged) {
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	h.Site.Flash(c, web.Loc(c).T("checkout.reader_order_changed", "Amount", web.Loc(c).Money(now)))
	return web.Redirect(c, h.readerBack(c))
}

// leaveReader stops the change's reader, asking for entry, when its page was left for the
// change or the counter's payment page (Back, a link): a reader asks only while its page is on
// screen, so a card presented afterwards pays nothing. The flash says so; a card paid in that
// instant cannot be stopped, and statusURL is then its page.
func (h *Handler) leaveReader(c echo.Context, e visit.Edit, entry ledger.Entry) (statusURL string) {
	if !h.stopEditReader(c, e, entry, settlement.StopLeft) {
		return h.Site.URL("edit.status", entry.ID)
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionPayment, CinemaID: entry.CinemaID, BookingNumber: entry.BookingNumber,
		Currency: entry.Currency, Detail: "card reader payment stopped as its page was left, nothing taken"})
	h.Site.Flash(c, web.Loc(c).T("booking.reader_left")) // whichever answer reached the ledger first
	return ""
}

// stopEditReader stops the change's card-reader payment entry for why and lets the change go
// on without it; false when it could not be stopped (a card paid in that instant).
func (h *Handler) stopEditReader(c echo.Context, e visit.Edit, entry ledger.Entry, why settlement.StopReason) bool {
	dctx, cancel := h.Visits.Detached(c.Request().Context())
	stopped, err := h.Settler.StopAtReader(dctx, entry.ID, why)
	cancel()
	if err != nil || stopped.State != ledger.StateFailed {
		return false
	}
	e.Entry = ""
	h.Visits.SaveEdit(c, e)
	return true
}

// readerAsking is the change's card-reader payment while the reader asks (or is about to).
func (h *Handler) readerAsking(c echo.Context, e visit.Edit) (ledger.Entry, bool) {
	entry, err := h.Visits.BlockingEntry(c.Request().Context(), e)
	if err != nil || !askingAtReader(entry) {
		return ledger.Entry{}, false
	}
	return *entry, true
}

// askingAtReader reports whether entry is a card-reader payment the reader asks for (or is
// about to).
func askingAtReader(entry *ledger.Entry) bool {
	return entry != nil && entry.Kind == ledger.KindPayment && entry.ReaderAsking()
}

// afterChange is where a change to the edit's tickets goes on: the change, unless a card-reader
// payment of it started in the same instant for another amount, which is then stopped.
func (h *Handler) afterChange(c echo.Context, e visit.Edit) error {
	entry, ok := h.readerAsking(c, e)
	if !ok {
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	o, err := h.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil || o.Total.Cents == entry.AmountCents {
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	return h.stopStaleReader(c, e, o.Total)
}
