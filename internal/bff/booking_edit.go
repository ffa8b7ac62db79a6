package bff

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/errgroup"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/refunds"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/booking"
)

// startEdit puts the bound booking into edit state upstream and keeps the edit's
// userSessionId in the server session only.
func (s *Server) startEdit(c echo.Context) error {
	b, _, err := s.requireBooking(c)
	if err != nil {
		return err
	}
	if e, ok := s.currentEdit(c); ok && e.BookingNumber == b.Number {
		return s.redirect(c, s.url(RouteEdit)) // a double click or a second tab: the same edit
	}
	if err := s.refuseClosed(c, b.CinemaID, b.Session.Showtime, s.url(RouteBooking), "Back to your booking"); err != nil {
		return err
	}
	eo, err := s.ticketing.EditBooking(c.Request().Context(), b.CinemaID, b.ID)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBooking), "Back to your booking")
	}
	e := editVisit{
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
		Started:       s.now(),
		Email:         b.CustomerEmail,
		OriginalTotal: b.Total.Cents,
		TotalKnown:    true,
	}
	for _, p := range b.Payments {
		if p.Amount.Cents > 0 && p.ProviderReference != "" && (p.External || !p.ExternalKnown) {
			e.Payments = append(e.Payments, editPayment{Reference: p.ProviderReference, CardType: p.CardType, Masked: p.CardNumberMasked, Cents: p.Amount.Cents})
		}
	}
	if len(eo.Sessions) > 0 && eo.Sessions[0].ID != "" {
		e.SessionID = eo.Sessions[0].ID
	}
	for _, l := range eo.Lines {
		if l.State == cinema.LineKept {
			seat := ""
			if len(l.Seats) > 0 {
				seat = seatText(&l.Seats[0])
			}
			e.Original = append(e.Original, originLine{ID: strconv.FormatInt(l.TicketID, 10), Description: l.Description, Seat: seat, PriceCents: l.FinalPrice.Cents})
		}
	}
	s.saveEdit(c, e)
	return s.redirect(c, s.url(RouteEdit))
}

// requireEdit returns the edit of this visit, or sends the person to their booking.
func (s *Server) requireEdit(c echo.Context) (editVisit, error) {
	e, ok := s.currentEdit(c)
	if !ok {
		return e, &Error{Code: ENotFound, Heading: "No change in progress",
			Message: "There is no booking change in progress in this visit. It may have been finished, cancelled or timed out; your booking is as shown on its page.",
			BackURL: s.url(RouteBooking), BackLabel: "See your booking"}
	}
	return e, nil
}

// requireChangeableEdit is requireEdit for actions that change the order: refused while its
// payment or refund is under way (the amount taken must stay the amount applied).
func (s *Server) requireChangeableEdit(c echo.Context) (editVisit, error) {
	e, err := s.requireEdit(c)
	if err != nil {
		return e, err
	}
	if err := s.refuseClosedEdit(c, e); err != nil {
		return e, err
	}
	entry, err := s.blockingEntry(c.Request().Context(), e)
	if err != nil {
		return e, err
	}
	if entry != nil {
		return e, s.refuseWhilePaying(entry)
	}
	return e, nil
}

// editEnded handles an edit the upstream no longer knows (expired, cancelled elsewhere): the
// person gets a clear message and their booking, never a stack trace. While a payment or a
// refund is under way the status page tells what happens to the money instead.
func (s *Server) editEnded(c echo.Context, e editVisit, err error) error {
	if !errors.Is(err, upstream.ErrOrderExpired) && !errors.Is(err, upstream.ErrNotFound) && !errors.Is(err, upstream.ErrOrderClosed) {
		return s.fromUpstream(err, s.url(RouteEdit), "Back to your changes")
	}
	loggerFrom(c.Request().Context(), s.logger).Info("edit ended upstream", "err", err)
	if entry, berr := s.blockingEntry(c.Request().Context(), e); berr == nil && entry != nil {
		return s.redirect(c, s.url(RouteEditStatus, entry.ID))
	}
	s.clearEdit(c)
	if s.editSaved(c.Request().Context(), e.UserSessionID) {
		s.flash(c, savedChangeText) // ended because it was saved (another tab, the provider's webhook)
	} else {
		s.flash(c, "Your change timed out or was ended elsewhere, so nothing was changed: your booking is as it was.")
	}
	return s.redirect(c, s.url(RouteBooking))
}

// showEdit shows the order as it stands now.
func (s *Server) showEdit(c echo.Context) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if entry, err := s.blockingEntry(ctx, e); err != nil {
		return err
	} else if entry != nil {
		return s.redirect(c, s.url(RouteEditStatus, entry.ID))
	}
	// The order and the ticket types are independent reads: both at once.
	var (
		o        cinema.Order
		types    []cinema.TicketType
		typesErr error
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		o, err = s.ticketing.GetOrder(gctx, e.UserSessionID)
		return err
	})
	g.Go(func() error {
		// Without the types the page still shows the order; only adding is not offered.
		types, typesErr = s.ticketing.GetTicketTypes(gctx, e.CinemaID, e.SessionID, e.UserSessionID)
		return nil
	})
	if err := g.Wait(); err != nil {
		return s.editEnded(c, e, err)
	}
	if typesErr != nil {
		loggerFrom(ctx, s.logger).Warn("ticket types not read: adding tickets not offered", "err", typesErr)
	}
	v := s.editView(c, e, o, types)
	if msg := s.popFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	if reason := s.changesClosed(c, e.CinemaID, e.Showtime); reason != "" && v.Notice == nil {
		v.Notice = &components.Notice{Kind: components.NoticeError, Heading: "Changes are closed", Body: reason + " You can still cancel this change: your booking then stays as it was."}
	}
	return s.render(c, http.StatusOK, "Change booking", booking.Edit(v))
}

// editView is the edit page of order o; types are the session's ticket types (none: adding
// tickets is not offered).
func (s *Server) editView(c echo.Context, e editVisit, o cinema.Order, types []cinema.TicketType) booking.EditView {
	ctx := c.Request().Context()
	ci := s.cinemaByID(ctx, e.CinemaID)
	v := booking.EditView{
		BookingNumber: fmt.Sprint(e.BookingNumber),
		FilmTitle:     e.FilmTitle,
		Showtime:      showtime(e.Showtime, ci),
		Fees:          signed(o.BookingFee),
		CSRFToken:     csrfToken(c),
		AddURL:        s.url(RouteEditAdd),
		RemoveURL:     s.url(RouteEditRemove),
		ExtendURL:     s.url(RouteEditExtend),
		SeatsURL:      s.url(RouteEditSeats),
		CancelURL:     s.url(RouteEditCancel),
		CompleteURL:   s.url(RouteEditComplete),
		ExpiredURL:    s.url(RouteEditExpired),
		NowISO:        s.now().UTC().Format(time.RFC3339),
		Counter:       s.atCounter(c),
	}
	if !o.Expires.IsZero() {
		v.ExpiresISO = o.Expires.UTC().Format(time.RFC3339)
		v.ExpiresLocal = o.Expires.In(ci.Location()).Format("15:04")
	}
	for _, sess := range o.Sessions {
		if v.FilmTitle == "" {
			v.FilmTitle = sess.FilmTitle
		}
	}
	v.Lines, v.HasChanges = editLines(e, o)
	for i := range v.Lines {
		if v.Lines[i].State == "kept" || v.Lines[i].State == lineMoved || v.Lines[i].State == "added" {
			v.Lines[i].RemoveURL = s.url(RouteEditRemove)
		}
	}
	balance := o.Total
	switch {
	case balance.Cents > 0:
		v.BalanceKind, v.Balance = "pay", balance.String()
		if e.Paid {
			v.CompleteLabel = "Pay " + balance.String() + " and confirm"
		} else {
			v.CompleteLabel = "Confirm changes (" + balance.String() + " more to pay at the cinema)"
		}
	case balance.Cents < 0:
		v.BalanceKind, v.Balance = "refund", balance.Neg().String()
		if e.Paid {
			v.CompleteLabel = "Confirm and refund " + balance.Neg().String()
		} else {
			v.CompleteLabel = "Confirm changes (" + balance.Neg().String() + " less to pay at the cinema)"
		}
	default:
		v.BalanceKind, v.Balance, v.CompleteLabel = "none", balance.String(), "Confirm changes"
	}
	v.PayWith, v.RefundTo = editPayWith(e, balance)
	if e.TotalKnown {
		orig := cinema.Money{Cents: e.OriginalTotal, Currency: balance.Currency}
		v.Totals = true
		v.OriginalTotal = orig.String()
		v.NewTotal = cinema.Money{Cents: orig.Cents + balance.Cents, Currency: balance.Currency}.String()
		v.TicketsChange = signed(cinema.Money{Cents: balance.Cents - o.BookingFee.Cents, Currency: balance.Currency})
	}
	v.Steppers = editSteppers(o, types)
	if e.StartBalance != 0 {
		start := cinema.Money{Cents: e.StartBalance, Currency: balance.Currency}
		v.FeeNote = fmt.Sprintf("Our booking fees have changed since you booked. The fees for the tickets you already have are recalculated with today's prices, which accounts for %s of the balance before any change you make.", signed(start))
	}
	for _, d := range o.SuggestedDeals {
		if d.Description != "" {
			v.Deals = append(v.Deals, d.Description)
		}
	}
	for _, t := range types {
		if t.Simple() {
			v.TicketTypes = append(v.TicketTypes, booking.Option{Value: t.Code, Label: fmt.Sprintf("%s – %s", t.Description, t.Price.String())})
		}
	}
	return v
}

// editPayWith says how the balance is settled: paid by card on the next step, at the cinema,
// or refunded to the booking's payments (the newest first, as the refund will be planned).
func editPayWith(e editVisit, balance cinema.Money) (string, []string) {
	switch {
	case balance.Cents > 0 && e.Paid:
		return "You pay the difference by card on the next step.", nil
	case balance.Cents > 0:
		return "You pay the difference at the cinema.", nil
	case balance.Cents < 0 && !e.Paid:
		return "You pay that much less at the cinema.", nil
	case balance.Cents < 0:
		var pays []refunds.Payment
		for _, p := range e.Payments {
			pays = append(pays, refunds.Payment{Reference: p.Reference, CardType: p.CardType, CardMasked: p.Masked, PaidCents: p.Cents, RefundableCents: -1})
		}
		plan, err := refunds.Plan(-balance.Cents, pays)
		if err != nil || len(plan) == 0 {
			return "The refund goes back to the payment you booked with.", nil
		}
		var to []string
		for _, part := range plan {
			card := strings.TrimSpace(part.Payment.CardType + " " + part.Payment.CardMasked)
			if card == "" {
				card = "your original payment"
			}
			to = append(to, cinema.Money{Cents: part.AmountCents, Currency: balance.Currency}.String()+" back to "+card)
		}
		return "The refund goes back to the payment you booked with:", to
	}
	return "", nil
}

// editSteppers is a − n + row per ticket type that can be added: how many of the type the
// booking has, and the ticket − removes (the newest of the type; none when it is the
// booking's last ticket, which cannot be removed).
func editSteppers(o cinema.Order, types []cinema.TicketType) []booking.StepperView {
	var out []booking.StepperView
	active := 0
	for _, t := range o.Tickets() {
		if !(t.StateKnown && t.State == cinema.LineRemoved) {
			active++
		}
	}
	for _, tt := range types {
		if !tt.Simple() {
			continue
		}
		st := booking.StepperView{Type: tt.Code, Name: tt.Description, Price: tt.Price.String()}
		for _, t := range o.Tickets() {
			if t.TypeCode != tt.Code || (t.StateKnown && t.State == cinema.LineRemoved) {
				continue
			}
			st.Count++
			if active > 1 {
				st.RemoveTicket = t.ID
				st.RemoveWhat = strings.TrimSuffix(t.Description+", "+seatText(t.Seat), ", ")
			}
		}
		out = append(out, st)
	}
	return out
}

// editLines lists the order's tickets with their state. The contract's ticketing order does
// not say which tickets were booked before; when the upstream does not say either, the state
// is derived from the tickets the edit started with.
func editLines(e editVisit, o cinema.Order) (lines []booking.LineView, changed bool) {
	original := map[string]originLine{}
	for _, l := range e.Original {
		original[l.ID] = l
	}
	seen := map[string]bool{}
	for _, t := range o.Tickets() {
		state := t.State
		if !t.StateKnown {
			if _, ok := original[t.ID]; ok {
				state = cinema.LineKept
			} else {
				state = cinema.LineAdded
			}
		}
		seen[t.ID] = true
		lv := lineView(state, t.ID, t.Description, seatText(t.Seat), t.FinalPrice)
		// A booked ticket on another seat than it had is moved, not kept.
		if ol, ok := original[t.ID]; ok && state == cinema.LineKept && ol.Seat != "" && lv.Seat != "" && lv.Seat != ol.Seat {
			lv.State, lv.StateLabel, lv.From = lineMoved, "Moved", ol.Seat
			changed = true
		}
		lines = append(lines, lv)
		if state == cinema.LineAdded || state == cinema.LineRemoved {
			changed = true
		}
	}
	for _, l := range e.Original {
		if !seen[l.ID] {
			lines = append(lines, lineView(cinema.LineRemoved, l.ID, l.Description, l.Seat, cinema.Money{Cents: l.PriceCents, Currency: e.Currency}))
			changed = true
		}
	}
	return lines, changed
}

// lineMoved is the state of a booked ticket that has another seat now (the upstream calls it
// booked: only its seat changed).
const lineMoved = "moved"

func lineView(state cinema.LineState, id, desc, seat string, price cinema.Money) booking.LineView {
	label := map[cinema.LineState]string{cinema.LineKept: "Kept", cinema.LineAdded: "Added", cinema.LineRemoved: "Removed"}[state]
	if label == "" {
		label = "Unknown"
	}
	return booking.LineView{State: state.String(), StateLabel: label, Description: desc, Seat: seat, Price: price.String(), TicketID: id}
}

// signed writes an amount with its sign spelled out: "+€0.50", "−€2.00", "€0.00".
func signed(m cinema.Money) string {
	switch {
	case m.Cents > 0:
		return "+" + m.String()
	case m.Cents < 0:
		return "−" + m.Neg().String()
	}
	return m.String()
}

// addTickets adds tickets of one simple type (no seat selection: the contract forbids
// SelectedSeats in edit state).
func (s *Server) addTickets(c echo.Context) error {
	e, err := s.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	code := strings.TrimSpace(c.FormValue("type"))
	qty, qerr := strconv.Atoi(strings.TrimSpace(c.FormValue("qty")))
	if code == "" || qerr != nil || qty < 1 || qty > 10 {
		s.flash(c, "Please choose a ticket type and a number of tickets from 1 to 10.")
		return s.redirect(c, s.url(RouteEdit))
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
		types, err = s.ticketing.GetTicketTypes(gctx, e.CinemaID, e.SessionID, e.UserSessionID)
		return err
	})
	g.Go(func() (err error) {
		before, err = s.ticketing.GetOrder(gctx, e.UserSessionID)
		return err
	})
	if err := g.Wait(); err != nil {
		return s.editEnded(c, e, err)
	}
	var chosen *cinema.TicketType
	for i := range types {
		if types[i].Code == code && types[i].Simple() {
			chosen = &types[i]
		}
	}
	if chosen == nil {
		s.flash(c, "That ticket type cannot be added to this booking online.")
		return s.redirect(c, s.url(RouteEdit))
	}
	mode := upstream.BookingModeSale
	if !e.Paid {
		mode = upstream.BookingModeReservation
	}
	// Seat hoarding (holds.go): the seats this visit may hold, before the upstream is asked.
	if done, err := s.refuseVisitSeats(c, seatStepEditAdd, qty, &before, s.url(RouteEdit)); done {
		return err
	}
	after, err := s.ticketing.AddTickets(ctx, upstream.AddTicketsRequest{UserSessionID: e.UserSessionID, CinemaID: e.CinemaID, SessionID: e.SessionID,
		Tickets: []upstream.TicketRequest{{TypeCode: code, Qty: qty}}, BookingMode: mode})
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		s.flash(c, "There are not enough free seats for that many tickets.")
	case err != nil:
		return s.editEnded(c, e, err)
	case s.seatWithParty(ctx, e, before, after):
		s.flash(c, fmt.Sprintf("Added %d × %s, next to your other seats.", qty, chosen.Description))
	default:
		s.flash(c, fmt.Sprintf("Added %d × %s.", qty, chosen.Description))
	}
	return s.redirect(c, s.url(RouteEdit))
}

// removeTicket removes one ticket (a booked one becomes "removed"; an added one disappears).
func (s *Server) removeTicket(c echo.Context) error {
	e, err := s.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	id := strings.TrimSpace(c.FormValue("ticket"))
	if id == "" || len(id) > 32 {
		s.flash(c, "Please choose the ticket to remove.")
		return s.redirect(c, s.url(RouteEdit))
	}
	// A booking needs a ticket: the last one is not removed (a booking without tickets cannot
	// be shown, and cancelling a whole booking is the box office's job).
	o, err := s.ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err != nil {
		return s.editEnded(c, e, err)
	}
	if removesEveryTicket(e, o, id) {
		s.flash(c, lastTicketText)
		return s.redirect(c, s.url(RouteEdit))
	}
	_, err = s.ticketing.RemoveTickets(c.Request().Context(), upstream.RemoveTicketsRequest{UserSessionID: e.UserSessionID, SessionID: e.SessionID, TicketIDs: []string{id}})
	switch {
	case errors.Is(err, upstream.ErrInvalidRequest):
		s.flash(c, "That ticket could not be removed. Please reload the page and try again.")
	case err != nil:
		return s.editEnded(c, e, err)
	default:
		s.flash(c, "Ticket removed.")
	}
	return s.redirect(c, s.url(RouteEdit))
}

// lastTicketText is why the last ticket of a booking cannot be removed in an edit.
const lastTicketText = "A booking needs at least one ticket. To cancel the whole booking, ask at the box office."

// removesEveryTicket reports whether removing ticket id (with its package) would leave the
// order without a ticket.
func removesEveryTicket(e editVisit, o cinema.Order, id string) bool {
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
func (s *Server) extendEdit(c echo.Context) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return err
	}
	if err := s.refuseClosedEdit(c, e); err != nil {
		return err
	}
	if _, err := s.ticketing.ResetOrderExpiry(c.Request().Context(), e.UserSessionID); err != nil {
		return s.editEnded(c, e, err)
	}
	s.flash(c, "You have more time: the countdown started again.")
	return s.redirect(c, s.url(RouteEdit))
}

// confirmCancelEdit asks before discarding the changes.
func (s *Server) confirmCancelEdit(c echo.Context) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, "Cancel changes", booking.CancelConfirm(booking.CancelView{
		BookingNumber: fmt.Sprint(e.BookingNumber), ActionURL: s.url(RouteEditCancel), BackURL: s.url(RouteEdit), CSRFToken: csrfToken(c)}))
}

// cancelEdit cancels the edit upstream: the original booking comes back unchanged.
func (s *Server) cancelEdit(c echo.Context) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return s.redirect(c, s.url(RouteBooking)) // already gone: the booking is as it was
	}
	if entry, err := s.blockingEntry(c.Request().Context(), e); err != nil {
		return err
	} else if entry != nil {
		return s.refuseWhilePaying(entry)
	}
	err = s.ticketing.CancelOrder(c.Request().Context(), e.UserSessionID)
	if err != nil && !errors.Is(err, upstream.ErrOrderExpired) && !errors.Is(err, upstream.ErrNotFound) {
		return s.fromUpstream(err, s.url(RouteEdit), "Back to your changes")
	}
	s.clearEdit(c)
	s.recordAudit(c, audit.Entry{Action: audit.ActionEditCancel, CinemaID: e.CinemaID, BookingNumber: e.BookingNumber})
	s.flash(c, "Your changes were cancelled. Your booking is exactly as it was.")
	return s.redirect(c, s.url(RouteBooking))
}

// editExpired is where the countdown sends the browser when time runs out. It is a GET, so it
// changes nothing upstream: it only forgets the edit in this visit when the upstream says the
// order is gone (an expired order releases itself).
func (s *Server) editExpired(c echo.Context) error {
	e, ok := s.currentEdit(c)
	if !ok {
		// The edit already ended in this visit (saved, cancelled or run out): an old page's
		// countdown says nothing about it.
		s.flash(c, noEditText)
		return s.redirect(c, s.url(RouteBooking))
	}
	if entry, err := s.blockingEntry(c.Request().Context(), e); err == nil && entry != nil {
		return s.redirect(c, s.url(RouteEditStatus, entry.ID))
	}
	_, err := s.ticketing.GetOrder(c.Request().Context(), e.UserSessionID)
	if err == nil || !(errors.Is(err, upstream.ErrOrderExpired) || errors.Is(err, upstream.ErrNotFound)) {
		return s.redirect(c, s.url(RouteEdit)) // still alive (more time in another tab), or unknown: show it
	}
	s.clearEdit(c)
	if s.editSaved(c.Request().Context(), e.UserSessionID) {
		s.flash(c, savedChangeText)
		return s.redirect(c, s.url(RouteBooking))
	}
	s.flash(c, "The time for your change ran out, so nothing was changed: your booking is as it was.")
	return s.redirect(c, s.url(RouteBooking))
}
