package booking

// The way back from the provider's page, the status page of a change's payment or refund, and
// where a settled entry sends the person.

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// entryForVisit loads a ledger entry and checks that this visit may see it: it is the payment
// (or a part of the refund) of the visit's own edit. ok is false when it is not, and the
// answer is made (err is what the handler returns): a visit that holds the entry's booking
// (Back after the change was saved) goes to the booking page, which shows the outcome; any
// other browser gets PaymentElsewhere.
func (h *Handler) entryForVisit(c echo.Context) (entry ledger.Entry, e visit.Edit, ok bool, err error) {
	ctx := c.Request().Context()
	entry, err = h.Ledger.Get(ctx, c.Param("entry"))
	if errors.Is(err, ledger.ErrNotFound) {
		return entry, e, false, h.Visits.PaymentElsewhere(c)
	}
	if err != nil {
		return entry, e, false, err
	}
	e, has := h.Visits.CurrentEdit(c)
	if has && (e.Entry == entry.ID || h.sameRefund(ctx, entry, e.Entry)) {
		return entry, e, true, nil
	}
	if bb, bound := h.Visits.BoundBooking(c); bound && bb.CinemaID == entry.CinemaID && bb.Number == entry.BookingNumber {
		return entry, e, false, web.Redirect(c, h.Site.URL("booking.show"))
	}
	// Not this visit's: the token on the way back is the provider's page id, which the payment
	// page's address shows, so it opens nothing. The payment itself is settled all the same
	// (the provider's events and the reconciler).
	return entry, e, false, h.Visits.PaymentElsewhere(c)
}

// editPaymentReturn is where the provider sends the customer back. It trusts nothing in its
// parameters: it reads the ledger entry of this visit and asks the provider.
func (h *Handler) editPaymentReturn(c echo.Context) error {
	entry, e, ok, err := h.entryForVisit(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	if c.QueryParam("cancelled") == "1" {
		h.endProviderPayment(ctx, entry) // the customer turned back on the provider's page
	}
	// Applying the payment to the booking is a money step: never cut off halfway; when the
	// ticketing system is slow the status page says the change is being processed.
	entry, _, err = h.Visits.AdvanceWithin(ctx, entry.ID)
	if err != nil {
		web.LoggerFrom(c.Request().Context(), h.Logger).Warn("settle after return", "entry", entry.ID, "err", err)
	}
	entry = h.awaitApplying(ctx, entry)
	return h.afterSettle(c, e, entry)
}

// awaitApplying waits a moment for an entry that another request (the provider's webhook,
// usually, which arrives with the customer) is applying right now, so the customer sees the
// result rather than a "finishing" page; after applyWait the status page takes over.
func (h *Handler) awaitApplying(ctx context.Context, entry ledger.Entry) ledger.Entry {
	deadline := time.Now().Add(applyWait)
	if dl, ok := upstream.ReadDeadline(ctx); ok && dl.Before(deadline) {
		deadline = dl // the page answers in time; the status page keeps checking
	}
	for entry.State == ledger.StateApplying && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return entry
		case <-time.After(50 * time.Millisecond):
		}
		next, err := h.Ledger.Get(ctx, entry.ID)
		if err != nil {
			return entry
		}
		entry = next
	}
	return entry
}

// endProviderPayment ends a payment on the provider's page that the customer turned back
// from, so that it can no longer be paid; the edit is kept for another try or to be cancelled.
// A payment made meanwhile stays paid and is used.
func (h *Handler) endProviderPayment(ctx context.Context, entry ledger.Entry) {
	if entry.Kind != ledger.KindPayment || entry.State != ledger.StateRedirected || entry.AtReader() {
		return
	}
	dctx, cancel := h.Visits.Detached(ctx)
	defer cancel()
	if _, err := h.Payments.CancelPayment(dctx, entry.ProviderPaymentID); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("cancel provider payment", "entry", entry.ID, "err", err)
	}
}

// stopProviderPayment is the status page's "Stop this payment", for a person who left the
// provider's page another way than its own back link (the browser's Back): as that link does,
// the payment ends, and the change is theirs again to pay or to cancel.
func (h *Handler) stopProviderPayment(c echo.Context) error {
	entry, e, ok, err := h.entryForVisit(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	h.endProviderPayment(ctx, entry)
	if next, _, err := h.Visits.AdvanceWithin(ctx, entry.ID); err == nil {
		entry = next
	}
	return h.afterSettle(c, e, entry)
}

// applyWait bounds awaitApplying: complete-edit answers in well under a second when the
// ticketing API is well.
const applyWait = 3 * time.Second

// editPaymentStatus shows where a payment or refund stands and keeps checking.
func (h *Handler) editPaymentStatus(c echo.Context) error {
	entry, e, ok, err := h.entryForVisit(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	switch {
	case entry.Kind == ledger.KindRefund:
		// Every part that is still under way is tried again, each on its own.
		if err := h.Visits.AdvanceGroupWithin(ctx, entry); err != nil {
			web.LoggerFrom(ctx, h.Logger).Warn("refund not finished yet", "entry", entry.ID, "err", err)
		}
		if next, err := h.Ledger.Get(ctx, entry.ID); err == nil {
			entry = h.awaitApplying(ctx, next)
		}
	case !entry.State.Terminal(entry.Kind):
		if next, _, err := h.Visits.AdvanceWithin(ctx, entry.ID); err == nil {
			entry = next
		}
	}
	return h.afterSettle(c, e, entry)
}

// afterSettle sends the person where the entry's state says.
func (h *Handler) afterSettle(c echo.Context, e visit.Edit, entry ledger.Entry) error {
	switch {
	case entry.State == ledger.StateApplied:
		if e.UserSessionID == entry.EditSessionID {
			return h.finishEdit(c, e)
		}
		return web.Redirect(c, h.Site.URL("booking.show"))
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateFailed:
		return h.afterPaymentFailed(c, e, entry)
	}
	if entry.Kind == ledger.KindPayment && entry.State == ledger.StateRefunded && e.UserSessionID == entry.EditSessionID {
		h.Visits.ClearEdit(c) // the edit is gone and the money is back: the visit may start afresh
	}
	v := h.statusViewFor(c, entry)
	if v.StopURL != "" {
		v.CSRFToken = web.CSRFToken(c)
	}
	if entry.AtReader() && entry.Kind == ledger.KindPayment {
		h.readerStatusView(c, entry, &v)
	}
	if v.Refresh {
		h.kioskWaitsFor(c, entry, &v)
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("booking.status_title"), bookingview.StatusPage(v))
}

// afterPaymentFailed sends the person where a failed payment leaves them: to the booking when
// another payment saved the change, to the status page when money was taken, and back to the
// edit when nothing was.
func (h *Handler) afterPaymentFailed(c echo.Context, e visit.Edit, entry ledger.Entry) error {
	own := e.UserSessionID == entry.EditSessionID
	switch {
	case h.Visits.EditSaved(c.Request().Context(), entry.EditSessionID):
		// An earlier attempt opened again (Back, its way back from the provider) after another
		// payment saved the change: not "nothing was charged", and no edit to go back to.
		if own {
			h.Visits.ClearEdit(c)
		}
		h.Site.Flash(c, web.Loc(c).T("booking.saved_change"))
		return web.Redirect(c, h.Site.URL("booking.show"))
	case entry.ProviderReference != "":
		// Money was taken and the change did not take it (or it is unclear whether it did):
		// no "pay again". The edit is let go, so the booking is free again, and the page says
		// what happened to the money and what to do; Needs attention lists it.
		if own {
			h.Visits.ReleaseEdit(c)
			h.Visits.ClearEdit(c)
		}
		return h.Site.Render(c, http.StatusOK, web.Loc(c).T("booking.status_title"), bookingview.StatusPage(h.statusView(c.Request().Context(), entry)))
	case entry.AtReader():
		return h.readerFailed(c, e, entry)
	}
	// Declined or cancelled at the provider: nothing taken, the edit is still there.
	e.Entry = ""
	h.Visits.SaveEdit(c, e)
	h.Site.Flash(c, web.Loc(c).T("booking.payment_not_completed"))
	return web.Redirect(c, h.Site.URL("edit.show"))
}

// KioskMoneyPause is the longest a kiosk waits, on the page of a payment or refund still under
// way, before it starts over as after any idle time: the time a guest takes on the provider's
// page and a confirmation takes, counted from the start of the payment. The money is settled
// all the same (the provider's events, the reconciler), and the e-mail tells the guest.
var KioskMoneyPause = 5 * time.Minute

// kioskWaitsFor pauses a kiosk's idle reset while the entry's money is under way, until the
// pause's end; past it the page stops checking by itself and says the guest may go.
func (h *Handler) kioskWaitsFor(c echo.Context, entry ledger.Entry, v *bookingview.PaymentStatusView) {
	until := entry.CreatedAt.Add(KioskMoneyPause)
	if entry.ReaderAsking() {
		until = entry.CreatedAt.Add(settlement.ReaderWait) // the reader asks no longer than that
	}
	if web.DeviceOf(c).Mode != device.Kiosk || time.Now().Before(until) {
		web.PauseIdleUntil(c, until) // money in motion: the kiosk does not start over yet
		return
	}
	l := web.Loc(c)
	v.Refresh = false
	v.Body += " " + l.T("booking.status_kiosk_may_leave")
	if v.NextURL == "" {
		v.NextURL, v.NextLabel = v.PollURL, l.T("booking.status_check_again")
	}
}

// statusView says honestly where the money is (a payment; refunds: refundStatusView), in the
// language of ctx.
func (h *Handler) statusView(ctx context.Context, entry ledger.Entry) bookingview.PaymentStatusView {
	l := i18n.FromContext(ctx)
	amount := l.Money(cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency})
	v := bookingview.PaymentStatusView{Reference: entry.ShortID(), PollURL: h.Site.URL("edit.status", entry.ID), Refresh: true, Kind: components.NoticeInfo}
	switch {
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateRedirected:
		v.Heading, v.Body = l.T("booking.status_waiting"), l.T("booking.status_waiting_text", "Amount", amount)
		v.NextURL, v.NextLabel = entry.HostedURL, l.T("booking.status_back_to_payment")
		if !entry.AtReader() {
			v.StopURL = h.Site.URL("edit.stoppay", entry.ID)
		}
	case entry.Kind == ledger.KindPayment && (entry.State == ledger.StatePaid || entry.State == ledger.StateApplying):
		v.Heading, v.Body = l.T("booking.status_paid"), l.T("booking.status_paid_text", "Amount", amount)
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateRefunded:
		v.Kind, v.Refresh = components.NoticeWarning, false
		v.Heading, v.Body = l.T("booking.status_reversed"), l.T("booking.status_reversed_text", "Amount", amount)
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateRefundRequested:
		// Never "refunded" before the provider says so: the refund may still be failing.
		v.Kind = components.NoticeWarning
		v.Heading, v.Body = l.T("booking.status_reversing"), l.T("booking.status_reversing_text", "Amount", amount)
		if entry.LastError != "" {
			v.Body += " " + l.T("booking.status_provider_retrying")
		}
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateFailed && entry.AtBoxOffice():
		v.Kind, v.Refresh = components.NoticeError, false
		how := l.T("booking.taken_on_terminal", "Reference", entry.ProviderReference)
		if entry.CardType == "Cash" {
			how = l.T("booking.taken_in_cash")
		}
		v.Heading, v.Body = l.T("booking.status_counter_not_applied"), l.T("booking.status_counter_not_applied_text", "Amount", amount, "How", how)
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateFailed:
		// Paid, and not known to be on the booking: people settle it (Needs attention).
		v.Kind, v.Refresh = components.NoticeWarning, false
		v.Heading, v.Body = l.T("booking.status_paid_unconfirmed"), l.T("booking.status_paid_unconfirmed_text", "Amount", amount)
		v.NextURL, v.NextLabel = h.Site.URL("booking.show"), l.T("booking.see_booking")
	case entry.Kind == ledger.KindRefund:
		return h.refundStatusView(ctx, entry, []ledger.Entry{entry}, counterForms{}) // statusViewFor gives every part
	default:
		v.Heading, v.Body = l.T("booking.status_working"), l.T("booking.status_working_text")
	}
	return v
}
