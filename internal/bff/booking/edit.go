package booking

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/errgroup"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// startEdit puts the bound booking into edit state upstream and keeps the edit's
// userSessionId in the server session only.
func (h *Handler) startEdit(c echo.Context) error {
	b, _, err := h.requireBooking(c)
	if err != nil {
		return err
	}
	if e, ok := h.Visits.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		return web.Redirect(c, h.Site.URL("edit.show")) // a double click or a second tab: the same edit
	}
	back := web.Loc(c).T("booking.back_to_booking")
	if err := h.Visits.RefuseClosed(c, b.CinemaID, b.Session.Showtime, h.Site.URL("booking.show"), back); err != nil {
		return err
	}
	if err := h.refuseBoxOfficeSale(c, b); err != nil {
		return err
	}
	if err := h.refuseRefundUnderReview(c, b); err != nil {
		return err
	}
	eo, err := h.Ticketing.EditBooking(c.Request().Context(), b.CinemaID, b.ID)
	if err != nil {
		return h.Visits.FromUpstreamFor(h.Site.StaffUser(c) != "", err, h.Site.URL("booking.show"), back)
	}
	eo = h.Visits.Named(c.Request().Context()).EditOrder(eo) // the lines kept for the change list, in the visit's words
	h.Visits.SaveEdit(c, h.newEdit(b, eo))
	return web.Redirect(c, h.Site.URL("edit.show"))
}

// refuseBoxOfficeSale refuses, in words for the person asking, a change of a booking this site
// sold at its box office or a kiosk, before the ticketing system is asked: it changes only
// bookings paid through an external payment provider (a replayed form, an old tab).
func (h *Handler) refuseBoxOfficeSale(c echo.Context, b cinema.Booking) error {
	if !h.soldAtBoxOffice(c.Request().Context(), b) {
		return nil
	}
	l := web.Loc(c)
	return &web.Error{Code: web.EConflict, Heading: l.T("ui.edit_refused.heading"), Message: words.BoxOfficeSale(l, h.Site.StaffUser(c) != ""),
		BackURL: h.Site.URL("booking.show"), BackLabel: l.T("booking.back_to_booking")}
}

// refuseRefundUnderReview refuses a change of a booking one of whose refunds went out while
// its change was not completed, until staff have marked it resolved on Needs attention: the
// booking still holds what that refund paid back for, and a new change would pay it again.
func (h *Handler) refuseRefundUnderReview(c echo.Context, b cinema.Booking) error {
	ctx := c.Request().Context()
	if h.Ledger == nil || h.Reviews == nil {
		return nil
	}
	sent, err := h.Ledger.RefundsSentNotApplied(ctx, b.CinemaID, b.Number)
	if err != nil {
		return err
	}
	for _, e := range sent {
		_, resolved, err := h.Reviews.Resolution(ctx, attention.KindLedger, e.ID)
		if err != nil {
			return err
		}
		if !resolved {
			l := web.Loc(c)
			msg := l.T("booking.refund_under_review")
			if h.Site.StaffUser(c) != "" {
				msg = l.T("booking.refund_under_review_staff", "Reference", e.ShortID())
			}
			return &web.Error{Code: web.EConflict, Heading: l.T("ui.edit_refused.heading"), Message: msg,
				BackURL: h.Site.URL("booking.show"), BackLabel: l.T("booking.back_to_booking")}
		}
	}
	return nil
}

// newEdit is what the visit keeps of edit order eo of booking b: its show, its payments (what
// a refund is planned over) and the tickets booked when it began.
func (h *Handler) newEdit(b cinema.Booking, eo cinema.EditOrder) visit.Edit {
	e := visit.Edit{
		UserSessionID: eo.UserSessionID,
		CinemaID:      b.CinemaID,
		BookingID:     b.ID,
		BookingNumber: b.Number,
		SessionID:     b.Session.ID,
		StartBalance:  eo.Balance.Cents,
		Currency:      eo.Balance.Currency,
		Paid:          b.LikelyPaid(),
		FilmTitle:     b.Session.FilmTitle,
		Showtime:      b.Session.Showtime,
		Started:       h.Now(),
		Email:         b.CustomerEmail,
		OriginalTotal: b.Total.Cents,
		TotalKnown:    true,
	}
	if len(eo.Sessions) > 0 && eo.Sessions[0].ID != "" {
		e.SessionID = eo.Sessions[0].ID // the edit order's own word on its session
	}
	for _, p := range b.Payments {
		if p.Amount.Cents > 0 && p.ProviderReference != "" && (p.External || !p.ExternalKnown) {
			e.Payments = append(e.Payments, visit.EditPayment{Reference: p.ProviderReference, CardType: p.CardType, Masked: p.CardNumberMasked, Cents: p.Amount.Cents})
		}
	}
	for _, ln := range eo.Lines {
		if ln.State == cinema.LineKept {
			var place words.SeatName
			if len(ln.Seats) > 0 {
				place = words.SeatNameOf(&ln.Seats[0])
			}
			e.Original = append(e.Original, visit.OriginLine{ID: strconv.FormatInt(ln.TicketID, 10), Description: ln.Description, Seat: place.Key(), Place: place, PriceCents: ln.FinalPrice.Cents})
		}
	}
	return e
}

// requireEdit returns the edit of this visit, or sends the person to their view.
func (h *Handler) requireEdit(c echo.Context) (visit.Edit, error) {
	e, ok := h.Visits.CurrentEdit(c)
	if !ok {
		l := web.Loc(c)
		return e, &web.Error{Code: web.ENotFound, Heading: l.T("booking.no_edit_heading"), Message: l.T("booking.no_edit_text"),
			BackURL: h.Site.URL("booking.show"), BackLabel: l.T("booking.see_booking")}
	}
	return e, nil
}

// requireChangeableEdit is requireEdit for actions that change the order: refused while its
// payment or refund is under way (the amount taken must stay the amount applied).
func (h *Handler) requireChangeableEdit(c echo.Context) (visit.Edit, error) {
	e, err := h.requireEdit(c)
	if err != nil {
		return e, err
	}
	if err := h.refuseClosedEdit(c, e); err != nil {
		return e, err
	}
	entry, err := h.Visits.BlockingEntry(c.Request().Context(), e)
	if err != nil {
		return e, err
	}
	if entry != nil {
		return e, h.refuseWhilePaying(c, entry)
	}
	return e, nil
}

// editEnded handles an edit the upstream no longer knows (expired, cancelled elsewhere): the
// person gets a clear message and their booking, never a stack trace. While a payment or a
// refund is under way the status page tells what happens to the money instead.
func (h *Handler) editEnded(c echo.Context, e visit.Edit, err error) error {
	l := web.Loc(c)
	if !errors.Is(err, upstream.ErrOrderExpired) && !errors.Is(err, upstream.ErrNotFound) && !errors.Is(err, upstream.ErrOrderClosed) {
		return h.Visits.FromUpstream(err, h.Site.URL("edit.show"), l.T("booking.back_to_changes"))
	}
	web.LoggerFrom(c.Request().Context(), h.Logger).Info("edit ended upstream", "err", err)
	if entry, berr := h.Visits.BlockingEntry(c.Request().Context(), e); berr == nil && entry != nil {
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	h.Visits.ClearEdit(c)
	if h.Visits.EditSaved(c.Request().Context(), e.UserSessionID) {
		h.Site.Flash(c, l.T("booking.saved_change")) // ended because it was saved (another tab, the provider's webhook)
	} else {
		h.Site.Flash(c, l.T("booking.edit_ended"))
	}
	return web.Redirect(c, h.Site.URL("booking.show"))
}

// showEdit shows the order as it stands now.
func (h *Handler) showEdit(c echo.Context) error {
	e, err := h.requireEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	entry, err := h.Visits.BlockingEntry(ctx, e)
	switch {
	case err != nil:
		return err
	case askingAtReader(entry):
		// Back from the reader's page: the reader stops asking, and the change shows again.
		if statusURL := h.leaveReader(c, e, *entry); statusURL != "" {
			return web.Redirect(c, statusURL)
		}
	case entry != nil:
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	// The order and the ticket types are independent reads: both at once.
	var (
		o        cinema.Order
		types    []cinema.TicketType
		typesErr error
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		o, err = h.Ticketing.GetOrder(gctx, e.UserSessionID)
		return err
	})
	g.Go(func() error {
		// Without the types the page still shows the order; only adding is not offered. They
		// are the session's, shared by every viewer for the listing's interval: an edit offers
		// only the simple types (editLinesIn keeps those), and adding a ticket asks the
		// ticketing system within the order itself.
		types, typesErr = h.Visits.SessionTicketTypes(gctx, e.CinemaID, e.SessionID)
		return nil
	})
	if err := g.Wait(); err != nil {
		return h.editEnded(c, e, err)
	}
	if typesErr != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("ticket types not read: adding tickets not offered", "err", typesErr)
	}
	v := h.editView(c, e, o, types)
	if msg := h.Site.PopFlash(c); msg != "" && web.IsHTMX(c) {
		v.StepNotice = msg
	} else if msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	l := web.Loc(c)
	if reason := h.editClosed(c, e); reason != "" && v.Notice == nil {
		v.Notice = &components.Notice{Kind: components.NoticeError, Heading: l.T("booking.closed_heading"), Body: l.T("booking.closed_edit", "Reason", reason)}
	}
	return h.Site.Render(c, http.StatusOK, l.T("booking.edit_page_title"), bookingview.Edit(v))
}

// dealsShown are the offers the upstream suggests for order o, in words. A kiosk shows none:
// they are words only, with nothing to tap, and a guest at a kiosk can do nothing with them.
func dealsShown(o cinema.Order, kiosk bool) []string {
	if kiosk {
		return nil
	}
	var out []string
	for _, d := range o.SuggestedDeals {
		if d.Description != "" {
			out = append(out, d.Description)
		}
	}
	return out
}

// editView is the edit page of order o; types are the session's ticket types (none: adding
// tickets is not offered).
func (h *Handler) editView(c echo.Context, e visit.Edit, o cinema.Order, types []cinema.TicketType) bookingview.EditView {
	ctx := c.Request().Context()
	l := web.Loc(c)
	named := h.Visits.Named(ctx)
	o, types = named.Order(o), named.TicketTypes(e.CinemaID, types)
	v := h.editViewHead(c, e, o)
	v.Lines, v.HasChanges = editLinesIn(l, e, o)
	balance := o.Total
	v.BalanceKind, v.Balance, v.CompleteLabel = completeButton(l, e.Paid, balance, v.Counter)
	v.PayWith, v.RefundTo = editPayWith(l, e, balance)
	if v.Counter {
		v.PayWith = counterPayWith(l, e, balance, v.PayWith)
	}
	editTotals(l, e, o, &v)
	v.Steppers = editSteppers(l, o, types)
	if e.StartBalance != 0 {
		// A balance before any change comes from fees re-priced under a newer fee rule. The
		// note gives no figure of its own: what that re-pricing comes to changes with every
		// ticket added or removed, and the fee row above already says what the fees now change by.
		v.FeeNote = l.T("booking.fee_note")
	}
	v.Deals = dealsShown(o, web.IsKiosk(c))
	lineRemoves(v.Lines, v.Steppers, o, h.Site.URL("edit.remove"))
	return v
}

// editViewHead is the edit page's head: the show (and the one it moves from), the page's
// addresses and the hold's expiry.
func (h *Handler) editViewHead(c echo.Context, e visit.Edit, o cinema.Order) bookingview.EditView {
	l := web.Loc(c)
	ci := h.Visits.CinemaByID(c.Request().Context(), e.CinemaID)
	v := bookingview.EditView{
		BookingNumber: fmt.Sprint(e.BookingNumber),
		FilmTitle:     e.FilmTitle,
		Showtime:      words.Showtime(l, e.Showtime, ci),
		Fees:          words.Signed(l, o.BookingFee),
		CSRFToken:     web.CSRFToken(c),
		AddURL:        h.Site.URL("edit.add"),
		RemoveURL:     h.Site.URL("edit.remove"),
		ExtendURL:     h.Site.URL("edit.extend"),
		SeatsURL:      h.Site.URL("edit.seats"),
		CancelURL:     h.Site.URL("edit.cancel"),
		CompleteURL:   h.Site.URL("edit.complete"),
		ExpiredURL:    h.Site.URL("edit.expired"),
		NowISO:        h.Now().UTC().Format(time.RFC3339),
		Counter:       h.Site.AtCounter(c),
	}
	if !o.Expires.IsZero() {
		v.ExpiresISO = o.Expires.UTC().Format(time.RFC3339)
		v.ExpiresLocal = l.Time(o.Expires, ci.Location(), i18n.Clock)
	}
	if e.MovedFrom != nil {
		v.MoveFrom = joinShow(e.MovedFrom.FilmTitle, words.Showtime(l, e.MovedFrom.Showtime, ci), e.MovedFrom.Screen)
		v.MoveTo = joinShow(e.FilmTitle, v.Showtime, e.Screen)
	}
	for _, sess := range o.Sessions {
		if v.FilmTitle == "" {
			v.FilmTitle = sess.FilmTitle
		}
	}
	return v
}

// completeButton is what the edit comes to and the words of its Complete button: kind is
// "pay", "refund" or "none". A booking not paid before settles the difference at the cinema;
// a counter takes more money itself and gives a paid booking's money back itself.
func completeButton(l *i18n.Localizer, paid bool, balance cinema.Money, counter bool) (kind, amount, label string) {
	switch {
	case balance.Cents > 0 && counter:
		amount = l.Money(balance)
		return "pay", amount, l.T("booking.counter.complete_pay", "Amount", amount)
	case balance.Cents < 0 && counter && paid:
		amount = l.Money(balance.Neg())
		return "refund", amount, l.T("booking.counter.complete_refund", "Amount", amount)
	case balance.Cents > 0 && paid:
		amount = l.Money(balance)
		return "pay", amount, l.T("booking.complete_pay", "Amount", amount)
	case balance.Cents > 0:
		amount = l.Money(balance)
		return "pay", amount, l.T("booking.complete_more_at_cinema", "Amount", amount)
	case balance.Cents < 0 && paid:
		amount = l.Money(balance.Neg())
		return "refund", amount, l.T("booking.complete_refund", "Amount", amount)
	case balance.Cents < 0:
		amount = l.Money(balance.Neg())
		return "refund", amount, l.T("booking.complete_less_at_cinema", "Amount", amount)
	}
	return "none", l.Money(balance), l.T("booking.complete")
}

// editTotals adds the booking's total before and after the change, once the total before is
// known.
func editTotals(l *i18n.Localizer, e visit.Edit, o cinema.Order, v *bookingview.EditView) {
	if !e.TotalKnown {
		return
	}
	balance := o.Total
	orig := cinema.Money{Cents: e.OriginalTotal, Currency: balance.Currency}
	v.Totals = true
	v.OriginalTotal = l.Money(orig)
	v.NewTotal = l.Money(cinema.Money{Cents: orig.Cents + balance.Cents, Currency: balance.Currency})
	v.TicketsChange = words.Signed(l, cinema.Money{Cents: balance.Cents - o.BookingFee.Cents, Currency: balance.Currency})
}

// lineRemoves gives the lines of order o that can be removed their Remove (removeURL). One way
// to add or remove a ticket: its type's stepper. A ticket keeps a Remove of its own only when
// no stepper counts its type (a package).
func lineRemoves(lines []bookingview.LineView, steppers []bookingview.StepperView, o cinema.Order, removeURL string) {
	stepped := map[string]bool{}
	for _, st := range steppers {
		stepped[st.Type] = true
	}
	steppedTicket := map[string]bool{}
	for _, t := range o.Tickets() {
		steppedTicket[t.ID] = stepped[t.TypeCode]
	}
	for i := range lines {
		switch lines[i].State {
		case "kept", lineMoved, "added":
			if !steppedTicket[lines[i].TicketID] {
				lines[i].RemoveURL = removeURL
			}
		}
	}
}

// addTickets adds tickets of one simple type (no seat selection: the contract forbids
// SelectedSeats in edit state).
func (h *Handler) addTickets(c echo.Context) error {
	e, err := h.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	code := strings.TrimSpace(c.FormValue("type"))
	qty, qerr := strconv.Atoi(strings.TrimSpace(c.FormValue("qty")))
	l := web.Loc(c)
	if code == "" || qerr != nil || qty < 1 || qty > 10 {
		h.Site.Flash(c, l.T("booking.add_invalid"))
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	ctx := c.Request().Context()
	// The ticket types and the order as it stands (where the party sits) are independent
	// reads: both at once; the first error ends the other.
	var (
		types  []cinema.TicketType
		before cinema.Order
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		types, err = h.Ticketing.GetTicketTypes(gctx, e.CinemaID, e.SessionID, e.UserSessionID)
		return err
	})
	g.Go(func() (err error) {
		before, err = h.Ticketing.GetOrder(gctx, e.UserSessionID)
		return err
	})
	if err := g.Wait(); err != nil {
		return h.editEnded(c, e, err)
	}
	types = h.Visits.Named(ctx).TicketTypes(e.CinemaID, types) // the flash names the type
	var chosen *cinema.TicketType
	for i := range types {
		if types[i].Code == code && types[i].Simple() {
			chosen = &types[i]
		}
	}
	if chosen == nil {
		h.Site.Flash(c, l.T("booking.add_type_refused"))
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	mode := upstream.BookingModeSale
	if !e.Paid {
		mode = upstream.BookingModeReservation
	}
	// Seat hoarding (holds.go): the seats this visit may hold, before the upstream is asked.
	if done, err := h.Visits.RefuseVisitSeats(c, visit.SeatStepEditAdd, qty, &before, h.Site.URL("edit.show")); done {
		return err
	}
	after, err := h.Ticketing.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: e.UserSessionID, CinemaID: e.CinemaID, SessionID: e.SessionID,
		Tickets: []upstream.TicketRequest{{TypeCode: code, Qty: qty}}, BookingMode: mode})
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		h.Site.Flash(c, l.T("booking.add_no_seats"))
	case err != nil:
		return h.editEnded(c, e, err)
	case h.seatWithParty(ctx, e, before, after):
		h.Site.Flash(c, l.T("booking.added_beside", "Qty", qty, "Type", chosen.Description))
	default:
		h.Site.Flash(c, l.T("booking.added", "Qty", qty, "Type", chosen.Description))
	}
	return h.afterChange(c, e)
}

// removeTicket removes one ticket (a booked one becomes "removed"; an added one disappears).
func (h *Handler) removeTicket(c echo.Context) error {
	e, err := h.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	l := web.Loc(c)
	id := strings.TrimSpace(c.FormValue("ticket"))
	if id == "" || len(id) > 32 {
		h.Site.Flash(c, l.T("booking.remove_which"))
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	// A booking needs a ticket: the last one is not removed (a booking without tickets cannot
	// be shown, and cancelling a whole booking is the box office's job).
	o, err := h.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil {
		return h.editEnded(c, e, err)
	}
	if removesEveryTicket(e, o, id) {
		h.Site.Flash(c, l.T("booking.last_ticket"))
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	_, err = h.Ticketing.RemoveTickets(c.Request().Context(), upstream.RemoveTicketsRequest{UserSessionID: e.UserSessionID, SessionID: e.SessionID, TicketIDs: []string{id}})
	switch {
	case errors.Is(err, upstream.ErrInvalidRequest):
		h.Site.Flash(c, l.T("booking.remove_refused"))
	case err != nil:
		return h.editEnded(c, e, err)
	default:
		h.Site.Flash(c, l.T("booking.removed"))
	}
	return h.afterChange(c, e)
}

// removesEveryTicket reports whether removing ticket id (with its package) would leave the
// order without a ticket.
func removesEveryTicket(e visit.Edit, o cinema.Order, id string) bool {
	live := editSeatTickets(e, o)
	group := 0
	for _, t := range live {
		if t.ID == id {
			group = t.PackageGroup
		}
	}
	for _, t := range live {
		if t.ID != id && (group == 0 || t.PackageGroup != group) {
			return false
		}
	}
	return len(live) > 0
}

// extendEdit gives the edit its full hold time again.
func (h *Handler) extendEdit(c echo.Context) error {
	e, err := h.requireEdit(c)
	if err != nil {
		return err
	}
	if err := h.refuseClosedEdit(c, e); err != nil {
		return err
	}
	if _, err := h.Ticketing.ResetOrderExpiry(c.Request().Context(), e.UserSessionID); err != nil {
		return h.editEnded(c, e, err)
	}
	h.Site.Flash(c, web.Loc(c).T("booking.more_time_given"))
	return web.Redirect(c, h.Site.URL("edit.show"))
}

// confirmCancelEdit asks before discarding the changes.
func (h *Handler) confirmCancelEdit(c echo.Context) error {
	e, err := h.requireEdit(c)
	if err != nil {
		return err
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("booking.cancel_changes"), bookingview.CancelConfirm(bookingview.CancelView{
		BookingNumber: fmt.Sprint(e.BookingNumber), ActionURL: h.Site.URL("edit.cancel"), BackURL: h.Site.URL("edit.show"), CSRFToken: web.CSRFToken(c),
		Counter: h.Site.AtCounter(c)}))
}

// cancelEdit cancels the edit upstream: the original booking comes back unchanged.
func (h *Handler) cancelEdit(c echo.Context) error {
	e, err := h.requireEdit(c)
	if err != nil {
		return web.Redirect(c, h.Site.URL("booking.show")) // already gone: the booking is as it was
	}
	if entry, err := h.Visits.BlockingEntry(c.Request().Context(), e); err != nil {
		return err
	} else if entry != nil {
		return h.refuseWhilePaying(c, entry)
	}
	err = h.Ticketing.CancelOrder(c.Request().Context(), e.UserSessionID)
	if err != nil && !errors.Is(err, upstream.ErrOrderExpired) && !errors.Is(err, upstream.ErrNotFound) {
		return h.Visits.FromUpstream(err, h.Site.URL("edit.show"), web.Loc(c).T("booking.back_to_changes"))
	}
	h.Visits.ClearEdit(c)
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionEditCancel, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber})
	h.Site.Flash(c, web.Loc(c).T("booking.cancelled"))
	return web.Redirect(c, h.Site.URL("booking.show"))
}

// editExpired is where the countdown sends the browser when time runs out. It is a GET, so it
// changes nothing upstream: it only forgets the edit in this visit when the upstream says the
// order is gone (an expired order releases itself).
func (h *Handler) editExpired(c echo.Context) error {
	e, ok := h.Visits.CurrentEdit(c)
	if !ok {
		// The edit already ended in this visit (saved, cancelled or run out): an old page's
		// countdown says nothing about it.
		h.Site.Flash(c, web.Loc(c).T("booking.no_edit_any_more"))
		return web.Redirect(c, h.Site.URL("booking.show"))
	}
	if entry, err := h.Visits.BlockingEntry(c.Request().Context(), e); err == nil && entry != nil {
		return web.Redirect(c, h.Site.URL("edit.status", entry.ID))
	}
	_, err := h.Ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err == nil || !(errors.Is(err, upstream.ErrOrderExpired) || errors.Is(err, upstream.ErrNotFound)) {
		return web.Redirect(c, h.Site.URL("edit.show")) // still alive (more time in another tab), or unknown: show it
	}
	h.Visits.ClearEdit(c)
	if h.Visits.EditSaved(c.Request().Context(), e.UserSessionID) {
		h.Site.Flash(c, web.Loc(c).T("booking.saved_change"))
		return web.Redirect(c, h.Site.URL("booking.show"))
	}
	h.Site.Flash(c, web.Loc(c).T("booking.edit_expired"))
	return web.Redirect(c, h.Site.URL("booking.show"))
}
