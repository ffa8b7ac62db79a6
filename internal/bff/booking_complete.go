package bff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/booking"
)

func (s *Server) settler() *settler {
	return &settler{ticketing: s.ticketing, payments: s.payments, ledger: s.ledger, logger: s.logger, now: s.now,
		returnURL: func(id string) string { return s.absURL(RouteEditReturn, id) }, tender: s.paymentsTender}
}

// blockingEntry returns the edit's ledger entry that has money in motion: a payment or
// refund that has started and not ended, or a refund paid out that the booking never took
// (staff must look at it). While there is one the edit can no longer be changed, cancelled or
// completed again here; the entry's status page says where it stands. nil when there is none.
func (s *Server) blockingEntry(ctx context.Context, e editVisit) (*ledger.Entry, error) {
	entries, err := s.ledger.ForEdit(ctx, e.UserSessionID)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		en := entries[i]
		if !en.State.Terminal(en.Kind) || (en.Kind == ledger.KindRefund && en.RefundID != "" && en.State != ledger.StateApplied) {
			return &en, nil
		}
	}
	return nil, nil
}

// refuseWhilePaying is the answer to a change attempted while money is in motion.
func (s *Server) refuseWhilePaying(entry *ledger.Entry) error {
	return &Error{Code: EConflict, Heading: "A payment is in progress",
		Message: "Your payment or refund for this change is being processed, so the change can no longer be altered here. The status page shows what happens.",
		BackURL: s.url(RouteEditStatus, entry.ID), BackLabel: "See the status"}
}

// completeEdit finishes the edit: with nothing to pay, by taking a payment on the provider's
// page, or by refunding the difference. A double click, a refresh or a second tab finds the
// payment already started and never starts another.
func (s *Server) completeEdit(c echo.Context) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// A double click, a refresh or a second tab finds the payment already under way (in the
	// ledger, not only in this visit's session, which a parallel request does not see yet).
	if entry, err := s.blockingEntry(ctx, e); err != nil {
		return err
	} else if entry != nil {
		if entry.Kind == ledger.KindPayment && (entry.State == ledger.StateCreated || entry.State == ledger.StateRedirected) {
			if next, _, err := s.advanceWithin(ctx, entry.ID); err == nil && next.State == ledger.StateRedirected && safeExternalURL(next.HostedURL) {
				return c.Redirect(http.StatusSeeOther, next.HostedURL) // the same payment page again
			}
		}
		e.Entry = entry.ID
		s.saveEdit(c, e)
		return s.redirect(c, s.url(RouteEditStatus, entry.ID))
	}
	if err := s.refuseClosedEdit(c, e); err != nil { // money already in motion above goes on
		return err
	}
	o, err := s.ticketing.GetOrder(ctx, e.UserSessionID)
	if err != nil {
		return s.editEnded(c, e, err)
	}
	lines, _ := editLines(e, o)
	e.Summary = changeSummary(lines)
	balance := o.Total
	notice := editNotice(ctx, e, noticeLines(lines), cinema.Money{}, cinema.Money{})

	if !e.Paid || balance.Cents == 0 {
		// No money moves, but the booking changes: the page waits for the answer rather
		// than leave the change half-known (budget.go).
		dctx, cancel := s.detached(ctx)
		_, err := s.ticketing.CompleteEditBooking(dctx, e.UserSessionID, upstream.CompleteEditUnpaid())
		cancel()
		if err != nil {
			return s.editEnded(c, e, err)
		}
		if !e.Paid && balance.Cents != 0 {
			e.Summary = append(e.Summary, fmt.Sprintf("The amount to pay at the cinema changed by %s.", signed(balance)))
			notice.Money = append(notice.Money, notify.MoneyLine{What: notify.MoneyAtCinema, Amount: balance})
		}
		s.writeNotice(ctx, notice)
		return s.finishEdit(c, e)
	}
	if balance.Cents > 0 && s.atCounter(c) {
		return s.redirect(c, s.url(RouteEditCounterPay)) // terminal or cash, no provider page
	}
	if balance.Cents < 0 {
		if ok, err := s.refundApproval(c, e, balance.Abs()); !ok {
			return err
		}
	}
	rawNotice, _ := json.Marshal(notice) // plain struct: cannot fail

	kind, key := ledger.KindPayment, "edit-pay:"+e.UserSessionID
	if balance.Cents < 0 {
		kind, key = ledger.KindRefund, "edit-refund:"+e.UserSessionID
	}
	// A new attempt after a declined or cancelled payment needs its own key; presses at the
	// same moment (two tabs) share one, so they share one entry and one provider payment.
	previous, err := s.ledger.ForEdit(ctx, e.UserSessionID)
	if err != nil {
		return err
	}
	failed := 0
	for _, p := range previous {
		if p.State == ledger.StateFailed {
			failed++
		}
	}
	key = fmt.Sprintf("%s:%d:%d", key, balance.Abs().Cents, failed)
	entry := ledger.Entry{Kind: kind, IdempotencyKey: key, AmountCents: balance.Abs().Cents, Currency: balance.Currency,
		CinemaID: e.CinemaID, BookingID: e.BookingID, BookingNumber: e.BookingNumber, EditSessionID: e.UserSessionID, Notice: string(rawNotice), Actor: s.staffUser(c)}
	if kind == ledger.KindRefund {
		// Split over the booking's payments, newest first: one ledger entry per part.
		return s.startRefund(c, e, entry)
	}
	entry, _, err = s.ledger.Create(ctx, entry)
	if err != nil {
		return err
	}
	e.Entry = entry.ID
	s.saveEdit(c, e)

	if kind == ledger.KindPayment {
		// The hold must outlast the visit to the payment page.
		if _, err := s.ticketing.ResetOrderExpiry(ctx, e.UserSessionID); err != nil {
			loggerFrom(ctx, s.logger).Warn("reset expiry before payment", "err", err)
		}
		next, done, err := s.advanceWithin(ctx, entry.ID)
		if !done {
			// The provider is still being asked for the payment, and the step goes on: the
			// payment may yet be made, so neither "nothing was charged" nor a failed entry.
			// The status page follows it and leads to the payment page once it is there.
			return s.redirect(c, s.url(RouteEditStatus, entry.ID))
		}
		entry = next
		if err != nil || entry.State != ledger.StateRedirected {
			// Nothing was taken: the provider did not create the payment.
			if entry.State == ledger.StateCreated {
				_, _ = s.ledger.Transition(ctx, entry.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "provider payment not created", nil)
			}
			e.Entry = ""
			s.saveEdit(c, e)
			if errors.Is(err, upstream.ErrAmountTooSmall) {
				locale := s.cinemaByID(ctx, entry.CinemaID).Locale
				return &Error{Code: EInvalid, Heading: "This difference is too small to pay by card",
					Message: "Card payments start at " + cinema.Money{Cents: 50, Currency: entry.Currency}.Format(locale) + ", and this change costs " + cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency}.Format(locale) +
						". Nothing was charged and your changes are still held: add or remove something, or ask at the box office.",
					BackURL: s.url(RouteEdit), BackLabel: "Back to your changes", Err: err}
			}
			return &Error{Code: EUnavailable, Heading: "The payment page is not available",
				Message: "We could not open the payment page just now. Nothing was charged and your changes are still held. Please try again in a moment.",
				BackURL: s.url(RouteEdit), BackLabel: "Back to your changes", Err: err}
		}
		if !safeExternalURL(entry.HostedURL) {
			return fmt.Errorf("payment provider gave an unusable page address %q", entry.HostedURL)
		}
		return c.Redirect(http.StatusSeeOther, entry.HostedURL)
	}
	return fmt.Errorf("ledger entry %s of kind %s: not a payment", entry.ID, entry.Kind) // refunds went to startRefund
}

// changeSummary says in words what the edit changes.
func changeSummary(lines []booking.LineView) []string {
	var out []string
	for _, l := range lines {
		seat := ""
		if l.Seat != "" {
			seat = " (" + l.Seat + ")"
		}
		switch l.State {
		case "added":
			out = append(out, "Added: "+l.Description+seat)
		case "removed":
			out = append(out, "Removed: "+l.Description+seat)
		case lineMoved:
			out = append(out, "Moved: "+l.Description+" ("+l.From+" → "+l.Seat+")")
		}
	}
	if len(out) == 0 {
		out = append(out, "Your changes are saved.")
	}
	return out
}

// finishEdit ends the edit in this visit and shows the booking, read again from the upstream,
// with what changed and what was paid or refunded.
func (s *Server) finishEdit(c echo.Context, e editVisit) error {
	ctx := c.Request().Context()
	summary := e.Summary
	if e.Entry != "" {
		if entry, err := s.ledger.Get(ctx, e.Entry); err == nil {
			amount := cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency}.Format(s.cinemaByID(ctx, entry.CinemaID).Locale)
			card := strings.TrimSpace(entry.CardType + " " + entry.CardMasked)
			if entry.Kind == ledger.KindPayment {
				summary = append(summary, fmt.Sprintf("Paid %s by %s.", amount, card))
			} else {
				summary = append(summary, s.refundGroupSummary(ctx, entry)) // every part, with its card
			}
		}
	}
	s.clearEdit(c)
	s.recordAudit(c, editAudit(ctx, s, e, summary))
	s.sessions.Put(ctx, sessChanges, strings.Join(summary, "\n"))
	s.sessions.Put(ctx, sessMailKey, editNotice(ctx, e, nil, cinema.Money{}, cinema.Money{}).Key)
	return s.redirect(c, s.url(RouteBooking))
}

// entryForVisit loads a ledger entry and checks that this visit may see it: it is the visit's
// own, or the token the provider put on the return address matches the payment's.
func (s *Server) entryForVisit(c echo.Context) (ledger.Entry, editVisit, error) {
	ctx := c.Request().Context()
	id := c.Param("entry")
	denied := &Error{Code: EForbidden, Heading: "We cannot show this payment",
		Message: "This payment does not belong to this visit. If you paid, your booking shows the result; find it with its number and your e-mail address.",
		BackURL: s.url(RouteFindBooking), BackLabel: "Find your booking"}
	entry, err := s.ledger.Get(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		return entry, editVisit{}, denied
	}
	if err != nil {
		return entry, editVisit{}, err
	}
	e, ok := s.currentEdit(c)
	if ok && (e.Entry == entry.ID || s.sameRefund(ctx, entry, e.Entry)) {
		return entry, e, nil
	}
	token := c.QueryParam("token")
	// The token opens the payment only while it is under way or just after: an old return
	// address in a shared browser's history must not hand the booking to the next person.
	fresh := !entry.State.Terminal(entry.Kind) || s.now().Sub(entry.UpdatedAt) < returnTokenWindow
	if token != "" && fresh && entry.ProviderPaymentID != "" && entry.Kind == ledger.KindPayment {
		p, err := s.payments.GetPayment(ctx, entry.ProviderPaymentID)
		if err == nil && p.Token != "" && p.Token == token {
			// The visit's cookie did not come back (another browser, a webview): carry on
			// with a visit bound to this booking.
			if err := s.bindBooking(c, boundBooking{CinemaID: entry.CinemaID, Number: entry.BookingNumber}); err != nil {
				return entry, e, err
			}
			e = editVisit{UserSessionID: entry.EditSessionID, CinemaID: entry.CinemaID, BookingID: entry.BookingID, BookingNumber: entry.BookingNumber, Paid: true, Entry: entry.ID}
			s.saveEdit(c, e)
			return entry, e, nil
		}
	}
	return entry, e, denied
}

// returnTokenWindow is how long after a payment ended its return address still opens it.
const returnTokenWindow = 15 * time.Minute

// editPaymentReturn is where the provider sends the customer back. It trusts nothing in its
// parameters: it reads the ledger entry of this visit and asks the provider.
func (s *Server) editPaymentReturn(c echo.Context) error {
	entry, e, err := s.entryForVisit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if c.QueryParam("cancelled") == "1" && entry.Kind == ledger.KindPayment && entry.State == ledger.StateRedirected {
		// The customer turned back on the provider's page: end that payment so it can no
		// longer be paid, and keep the edit for another try. A payment made meanwhile
		// stays paid and is used.
		if _, err := s.payments.CancelPayment(ctx, entry.ProviderPaymentID); err != nil {
			loggerFrom(ctx, s.logger).Warn("cancel provider payment", "entry", entry.ID, "err", err)
		}
	}
	// Applying the payment to the booking is a money step: never cut off halfway; when the
	// ticketing system is slow the status page says the change is being processed.
	entry, _, err = s.advanceWithin(ctx, entry.ID)
	if err != nil {
		loggerFrom(c.Request().Context(), s.logger).Warn("settle after return", "entry", entry.ID, "err", err)
	}
	entry = s.awaitApplying(ctx, entry)
	return s.afterSettle(c, e, entry)
}

// awaitApplying waits a moment for an entry that another request (the provider's webhook,
// usually, which arrives with the customer) is applying right now, so the customer sees the
// result rather than a "finishing" page; after applyWait the status page takes over.
func (s *Server) awaitApplying(ctx context.Context, entry ledger.Entry) ledger.Entry {
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
		next, err := s.ledger.Get(ctx, entry.ID)
		if err != nil {
			return entry
		}
		entry = next
	}
	return entry
}

// applyWait bounds awaitApplying: complete-edit answers in well under a second when the
// ticketing API is well.
const applyWait = 3 * time.Second

// editPaymentStatus shows where a payment or refund stands and keeps checking.
func (s *Server) editPaymentStatus(c echo.Context) error {
	entry, e, err := s.entryForVisit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	switch {
	case entry.Kind == ledger.KindRefund:
		// Every part that is still under way is tried again, each on its own.
		if err := s.advanceGroupWithin(ctx, entry); err != nil {
			loggerFrom(ctx, s.logger).Warn("refund not finished yet", "entry", entry.ID, "err", err)
		}
		if next, err := s.ledger.Get(ctx, entry.ID); err == nil {
			entry = s.awaitApplying(ctx, next)
		}
	case !entry.State.Terminal(entry.Kind):
		if next, _, err := s.advanceWithin(ctx, entry.ID); err == nil {
			entry = next
		}
	}
	return s.afterSettle(c, e, entry)
}

// afterSettle sends the person where the entry's state says.
func (s *Server) afterSettle(c echo.Context, e editVisit, entry ledger.Entry) error {
	switch {
	case entry.State == ledger.StateApplied:
		if e.UserSessionID == entry.EditSessionID {
			return s.finishEdit(c, e)
		}
		return s.redirect(c, s.url(RouteBooking))
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateFailed && s.editSaved(c.Request().Context(), entry.EditSessionID):
		// An earlier attempt opened again (Back, its way back from the provider) after another
		// payment saved the change: not "nothing was charged", and no edit to go back to.
		if e.UserSessionID == entry.EditSessionID {
			s.clearEdit(c)
		}
		s.flash(c, savedChangeText)
		return s.redirect(c, s.url(RouteBooking))
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateFailed:
		// Declined or cancelled at the provider: nothing taken, the edit is still there.
		e.Entry = ""
		s.saveEdit(c, e)
		s.flash(c, "The payment was not completed, so nothing was charged. Your changes are still held: you can pay again or cancel them.")
		return s.redirect(c, s.url(RouteEdit))
	}
	if entry.Kind == ledger.KindPayment && entry.State == ledger.StateRefunded && e.UserSessionID == entry.EditSessionID {
		s.clearEdit(c) // the edit is gone and the money is back: the visit may start afresh
	}
	v := s.statusViewFor(c.Request().Context(), entry)
	if v.Refresh {
		pauseKioskIdle(c) // money in motion: the kiosk does not start over (kiosk.go)
	}
	return s.render(c, http.StatusOK, "Your booking change", booking.StatusPage(v))
}

// statusView says honestly where the money is (a payment; refunds: refundStatusView).
func (s *Server) statusView(ctx context.Context, entry ledger.Entry) booking.PaymentStatusView {
	amount := cinema.Money{Cents: entry.AmountCents, Currency: entry.Currency}.Format(s.cinemaByID(ctx, entry.CinemaID).Locale)
	v := booking.PaymentStatusView{Reference: entry.ID[:12], PollURL: s.url(RouteEditStatus, entry.ID), Refresh: true, Kind: components.NoticeInfo}
	switch {
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateRedirected:
		v.Heading, v.Body = "Waiting for your payment", "We are waiting for the payment provider to confirm your payment of "+amount+". This page updates by itself."
		v.NextURL, v.NextLabel = entry.HostedURL, "Go back to the payment page"
	case entry.Kind == ledger.KindPayment && (entry.State == ledger.StatePaid || entry.State == ledger.StateApplying):
		v.Heading, v.Body = "Payment received: finishing your change", "Your payment of "+amount+" was received. We are saving the change to your booking; this usually takes seconds. If the ticketing system is slow we keep trying, and if the change cannot be saved you get the money back automatically."
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateRefunded:
		v.Kind, v.Refresh = components.NoticeWarning, false
		v.Heading, v.Body = "Your change could not be saved: payment refunded", "The change to your booking could not be completed in time, so your payment of "+amount+" was returned to your card. Your booking is as it was."
		v.NextURL, v.NextLabel = s.url(RouteBooking), "See your booking"
	case entry.Kind == ledger.KindPayment && entry.State == ledger.StateRefundRequested:
		// Never "refunded" before the provider says so: the refund may still be failing.
		v.Kind = components.NoticeWarning
		v.Heading, v.Body = "Your change could not be saved: your payment is being returned", "The change to your booking could not be completed in time, so we are returning your payment of "+amount+" to your card. It is still under way; this page updates by itself. Your booking is as it was."
		if entry.LastError != "" {
			v.Body += " The payment provider has not confirmed the refund yet; we keep trying, and you need to do nothing."
		}
		v.NextURL, v.NextLabel = s.url(RouteBooking), "See your booking"
	case entry.Kind == ledger.KindRefund:
		return s.refundStatusView(ctx, entry, []ledger.Entry{entry}) // statusViewFor gives every part
	default:
		v.Heading, v.Body = "Working on it", "Your change is being processed. This page updates by itself."
	}
	return v
}

// StartReconciler finishes, in the background, every payment or refund that a request could
// not finish (a crash, a failed upstream call): at once, then every interval, until ctx ends.
func (s *Server) StartReconciler(ctx context.Context, every time.Duration) {
	if s.ledger == nil || s.payments == nil || s.ticketing == nil {
		return
	}
	go func() {
		st := s.settler()
		for {
			st.reconcile(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
}

// Reconcile runs one reconciliation pass now (tests, admin).
func (s *Server) Reconcile(ctx context.Context) int { return s.settler().reconcile(ctx) }

// editAudit is the audit row of a completed edit: what changed, and the money of its ledger
// entry (a refund counts negative).
func editAudit(ctx context.Context, s *Server, e editVisit, summary []string) audit.Entry {
	a := audit.Entry{Action: audit.ActionEdit, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber, Detail: strings.Join(summary, "; ")}
	if e.Entry == "" {
		return a
	}
	entry, err := s.ledger.Get(ctx, e.Entry)
	if err != nil {
		return a
	}
	a.AmountCents, a.Currency = entry.AmountCents, entry.Currency
	if entry.Kind == ledger.KindRefund {
		a.Action = audit.ActionRefund
		a.AmountCents = -partsTotal(mustGroup(ctx, s, entry)).Cents
	}
	return a
}

// mustGroup is the entry's refund parts (itself alone when they cannot be read).
func mustGroup(ctx context.Context, s *Server, e ledger.Entry) []ledger.Entry {
	if parts, err := s.ledger.Group(ctx, e); err == nil && len(parts) > 0 {
		return parts
	}
	return []ledger.Entry{e}
}
