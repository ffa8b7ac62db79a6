package booking

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	bookingview "github.com/cinemabff/cinemabff/views/pages/booking"
)

// requireBooking returns the booking bound to this visit, read fresh from the upstream.
// Each of also runs beside the booking's own follow-up reads (bookings.Reader.Read).
func (h *Handler) requireBooking(c echo.Context, also ...func(context.Context, cinema.Booking)) (cinema.Booking, visit.Bound, error) {
	l := web.Loc(c)
	bb, ok := h.Visits.BoundBooking(c)
	if !ok {
		return cinema.Booking{}, bb, &web.Error{Code: web.ENotFound, Heading: l.T("booking.find_first"),
			Message: l.T("booking.find_first_text"), BackURL: h.Kernel.URL(web.RouteFindBooking), BackLabel: l.T("booking.find_title")}
	}
	b, err := h.Visits.ReadBooking(c.Request().Context(), bb.CinemaID, bb.Number, also...)
	if err != nil {
		return cinema.Booking{}, bb, h.Visits.FromUpstream(err, h.Kernel.URL(web.RouteFindBooking), l.T("booking.find_title"))
	}
	return b, bb, nil
}

// showBooking is the booking page.
func (h *Handler) showBooking(c echo.Context) error {
	var types sessionTypes // read beside the seat plan, not after it
	b, _, err := h.requireBooking(c, types.reader(h))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	ci := h.Visits.CinemaByID(ctx, b.CinemaID)
	v := bookingview.BookingView{
		Number:    fmt.Sprint(b.Number),
		FilmTitle: b.Session.FilmTitle,
		Showtime:  words.Showtime(l, b.Session.Showtime, ci),
		Screen:    b.Session.ScreenName,
		Fees:      l.Money(bookingFees(b)),
		Total:     l.Money(b.Total),
		Paid:      b.LikelyPaid(),
		CSRFToken: web.CSRFToken(c),
		EndURL:    h.Kernel.URL(web.RouteBookingForget),
	}
	for _, t := range b.Tickets {
		v.Tickets = append(v.Tickets, bookingview.TicketRow{Description: t.Description, Seat: words.Seat(l, t.Seat), Price: l.Money(t.Price), Package: t.InPackage()})
	}
	for _, cc := range b.Concessions {
		// The booking gives the unit price: the line shows quantity × unit price and its total.
		v.Concessions = append(v.Concessions, bookingview.TicketRow{Description: cc.Description,
			Detail: fmt.Sprintf("%d × %s", cc.Quantity, l.Money(cc.Price)), Price: l.Money(concessionTotal(cc))})
	}
	for _, p := range b.Payments {
		v.Payments = append(v.Payments, paymentText(l, p))
	}
	if msg := h.Kernel.PopFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	if v.Notice == nil {
		v.Notice = h.refundUnderWayNotice(c, b.Number) // a refund of this visit's change, part by part
	}
	if raw := h.Kernel.Sessions.PopString(ctx, visit.SessChanges); raw != "" {
		v.Changes = strings.Split(raw, "\n")
		if key := h.Kernel.Sessions.PopString(ctx, visit.SessMailKey); h.Kernel.AtCounter(c) {
			v.MailLine = h.Visits.CounterMailLine(ctx, key)
		} else {
			v.MailLine = h.Visits.MailLine(ctx, key)
		}
	}
	v.Actions = append(v.Actions, h.editAction(c, b, &types), h.showtimeAction(c, b, &types), h.swapAction(c, b))
	window, open := h.Visits.ChangeWindow(c, b.CinemaID, b.Session.Showtime)
	v.ChangeWindow, v.TicketsOpen = changeWindowLine(window, open, v.Actions)
	title := l.T("booking.show_title", "Number", v.Number)
	if h.Kernel.AtCounter(c) {
		// The box office: who booked beside what can be done; the tickets are in the print view.
		v.Counter, v.CustomerName, v.CustomerEmail = true, b.CustomerName, b.CustomerEmail
		v.PrintURL, v.FindURL = h.Kernel.URL(web.RouteBookingTickets), h.Kernel.URL(web.RouteFindBooking)
		for i := range v.Actions {
			if v.Actions[i].Enabled {
				v.Actions[i].Primary = true
				break
			}
		}
		if b.CustomerName != "" {
			title = l.T("booking.counter.show_title", "Number", v.Number, "Name", b.CustomerName)
		}
	} else {
		v.TicketCards = h.Visits.TicketsView(ctx, b, h.Kernel.URL(web.RouteBookingTickets))
		if !web.IsKiosk(c) {
			v.CalendarURL = h.Kernel.URL(web.RouteBookingCalendar)
			if h.walletLinksWork(b) {
				v.AppleWalletURL, v.GoogleWalletURL = h.WalletLinks(b.CinemaID, b.Number)
			}
		}
	}
	return h.Kernel.Render(c, http.StatusOK, title, bookingview.Show(v))
}

// walletLinksWork reports whether the booking's wallet links still give its passes: until
// WalletLinkValidFor after the show (a show time not known: always).
func (h *Handler) walletLinksWork(b cinema.Booking) bool {
	show := b.Session.Showtime
	return h.WalletLinks != nil && (show.IsZero() || h.Kernel.Now().Before(show.Add(h.WalletLinkValidFor)))
}

// showBookingTickets is the print view of the booking's tickets.
func (h *Handler) showBookingTickets(c echo.Context) error {
	b, _, err := h.requireBooking(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v := bookingview.PrintView{Number: fmt.Sprint(b.Number), Tickets: h.Visits.TicketsView(ctx, b, ""), BackURL: h.Kernel.URL(web.RouteBooking),
		Counter: h.Kernel.AtCounter(c)}
	v.Tickets.Staff = v.Counter
	if web.IsKiosk(c) {
		v.Kiosk, v.DoneURL, v.CSRFToken = true, h.Kernel.URL(web.RouteVisitReset), web.CSRFToken(c)
		if key := h.Kernel.Sessions.PopString(ctx, sessKioskPrint); key != "" {
			v.AutoPrint = key
			if raw := h.Kernel.Sessions.PopString(ctx, visit.SessChanges); raw != "" {
				v.Changes = strings.Split(raw, "\n")
			}
		}
	}
	return h.Kernel.Render(c, http.StatusOK, web.Loc(c).T("booking.print_title", "Number", v.Number), bookingview.Print(v))
}

// changeWindowLine is what the booking page says about the cut-off, from the change window's
// words and whether it is open: until when changes are possible while some change action is
// offered; once closed, why, said once here, with the actions it closes pointing to these
// words instead of repeating them. closed is whether the cut-off has passed: the show is near
// or under way.
func changeWindowLine(text string, open bool, actions []bookingview.Action) (line string, closed bool) {
	if !open {
		for i := range actions {
			if !actions[i].Enabled && actions[i].Reason == text {
				actions[i].Reason, actions[i].DescribedBy = "", "change-window"
			}
		}
		return text, true
	}
	for _, a := range actions {
		if a.Enabled {
			return text, false
		}
	}
	return "", false // nothing can be changed anyway; the actions say why
}

// editAction is "Change this booking", or why it cannot be done online.
func (h *Handler) editAction(c echo.Context, b cinema.Booking, types *sessionTypes) bookingview.Action {
	l := web.Loc(c)
	a := bookingview.Action{Label: l.T("booking.action_edit"), TestID: "action-edit", Shortcut: "e"}
	if e, ok := h.Visits.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		a.Label, a.URL, a.Enabled = l.T("booking.action_edit_continue"), h.Kernel.URL(web.RouteEdit), true
		return a
	}
	if reason := h.Visits.ChangesClosed(c, b.CinemaID, b.Session.Showtime); reason != "" {
		a.Reason = reason
		return a
	}
	if reason := h.editUnavailableReason(c.Request().Context(), b, types); reason != "" {
		a.Reason = reason
		return a
	}
	a.URL, a.Method, a.Enabled = h.Kernel.URL(web.RouteEditStart), "post", true
	return a
}

// showtimeAction is "Change showtime" (move the booking to another show), or why it cannot
// be done online. It is an edit, so the edit's rules apply.
func (h *Handler) showtimeAction(c echo.Context, b cinema.Booking, types *sessionTypes) bookingview.Action {
	l := web.Loc(c)
	a := bookingview.Action{Label: l.T("showtime.action"), TestID: "action-showtime", Shortcut: "t"}
	if e, ok := h.Visits.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		a.Reason = l.T("showtime.action_during_edit")
		return a
	}
	if reason := h.Visits.ChangesClosed(c, b.CinemaID, b.Session.Showtime); reason != "" {
		a.Reason = reason
		return a
	}
	if reason := h.editUnavailableReason(c.Request().Context(), b, types); reason != "" {
		a.Reason = reason
		return a
	}
	a.URL, a.Enabled = h.Kernel.URL(web.RouteShowtimes), true
	return a
}

// swapAction is "Change seats" (seat swap of a paid booking), or why it cannot be done.
func (h *Handler) swapAction(c echo.Context, b cinema.Booking) bookingview.Action {
	l := web.Loc(c)
	a := bookingview.Action{Label: l.T("booking.change_seats"), TestID: "action-swap", Shortcut: "s"}
	if e, ok := h.Visits.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		a.Reason = l.T("booking.action_swap_during_edit")
		return a
	}
	if reason := h.Visits.ChangesClosed(c, b.CinemaID, b.Session.Showtime); reason != "" {
		a.Reason = reason
		return a
	}
	if reason := visit.SwapUnavailableReason(web.Loc(c), b); reason != "" {
		a.Reason = reason
		return a
	}
	a.URL, a.Enabled = h.Kernel.URL(web.RouteSwapShow, b.CinemaID, b.Number), true
	return a
}

// editUnavailableReason says why a booking cannot be edited online, from what we can see
// before asking the upstream (which has the last word).
//
// types are the session's ticket types when already read (nil or unread: read here).
func (h *Handler) editUnavailableReason(ctx context.Context, b cinema.Booking, known *sessionTypes) string {
	if b.BeingEdited {
		return words.EditRestriction(i18n.FromContext(ctx), "already_in_edit")
	}
	for _, r := range b.EditRestrictions() {
		return words.EditRestriction(i18n.FromContext(ctx), upstream.EditRestriction(r))
	}
	// Loyalty, voucher and partner tickets are known only from the session's ticket types.
	var types []cinema.TicketType
	var err error
	if known != nil && known.read {
		types, err = known.types, known.err
	} else {
		types, err = h.Visits.SessionTicketTypes(ctx, b.CinemaID, b.Session.ID)
	}
	if err != nil {
		return "" // the upstream will refuse with the reason if it applies
	}
	for _, t := range b.Tickets {
		tt := typeWithCode(types, t.TypeCode)
		switch {
		case tt == nil:
		case tt.IsLoyalty:
			return words.EditRestriction(i18n.FromContext(ctx), "loyalty_ticket")
		case tt.IsVoucher:
			return words.EditRestriction(i18n.FromContext(ctx), "voucher_ticket")
		case tt.IsThirdParty:
			return words.EditRestriction(i18n.FromContext(ctx), "third_party_member_ticket")
		case tt.IsPackage:
			return words.EditRestriction(i18n.FromContext(ctx), "package_ticket")
		}
	}
	return ""
}

// typeWithCode is the last of types with the code (as a map by code would keep), or nil. A
// session sells a handful of types: a search costs less than a map of them.
func typeWithCode(types []cinema.TicketType, code string) *cinema.TicketType {
	for i := len(types) - 1; i >= 0; i-- {
		if types[i].Code == code {
			return &types[i]
		}
	}
	return nil
}

// paymentText is a payment of the booking in l's language: "€12.50 paid by VISA ****4242".
func paymentText(l *i18n.Localizer, p cinema.BookingPayment) string {
	card := visit.CardWords(l, p.CardType, p.CardNumberMasked)
	if p.Amount.Cents < 0 {
		return l.T("booking.payment_refunded", "Amount", l.Money(p.Amount.Neg()), "Card", card)
	}
	if card == "" {
		return l.T("booking.payment_paid", "Amount", l.Money(p.Amount))
	}
	return l.T("booking.payment_paid_by", "Amount", l.Money(p.Amount), "Card", card)
}

// concessionTotal is a concession line's value: the booking gives its unit price.
func concessionTotal(cc cinema.Concession) cinema.Money {
	return cc.Price.Mul(int64(max(cc.Quantity, 1)))
}

// bookingFees are the booking's fees: as the booking says, or, when it does not (the real
// booking record has no fee field), what its total holds beyond the tickets and concessions,
// so that the lines of the booking page add up to its total.
func bookingFees(b cinema.Booking) cinema.Money {
	if b.Fees.Cents != 0 {
		return b.Fees
	}
	rest := b.Total
	for _, t := range b.Tickets {
		rest = rest.Sub(t.Price)
	}
	for _, cc := range b.Concessions {
		rest = rest.Sub(concessionTotal(cc))
	}
	if rest.Cents <= 0 {
		return b.Fees
	}
	return cinema.Money{Cents: rest.Cents, Currency: b.Total.Currency}
}

// sessionTypes are a booking's session ticket types, read alongside the booking's other reads.
type sessionTypes struct {
	types []cinema.TicketType
	err   error
	read  bool
}

// reader reads the ticket types of the booking's session into st (bookings.Reader.Read's also).
func (st *sessionTypes) reader(s *Handler) func(context.Context, cinema.Booking) {
	return func(ctx context.Context, b cinema.Booking) {
		if id := b.SessionID(); id != "" {
			st.types, st.err = s.Visits.SessionTicketTypes(ctx, b.CinemaID, id)
			st.read = true
		}
	}
}

// refuseClosedEdit is refuseClosed for the edit in progress: the way on is cancelling it,
// which still works and restores the booking as it was.
// A move to another showtime respects both shows' cut-offs.
func (h *Handler) refuseClosedEdit(c echo.Context, e visit.Edit) error {
	for _, at := range e.Showtimes() {
		if err := h.Visits.RefuseClosed(c, e.CinemaID, at, h.Kernel.URL(web.RouteEditCancel), web.Loc(c).T("booking.cancel_this_change")); err != nil {
			return err
		}
	}
	return nil
}

// editClosed is why the edit can no longer be completed (a cut-off of one of its shows has
// passed), or "".
func (h *Handler) editClosed(c echo.Context, e visit.Edit) string {
	for _, at := range e.Showtimes() {
		if reason := h.Visits.ChangesClosed(c, e.CinemaID, at); reason != "" {
			return reason
		}
	}
	return ""
}
