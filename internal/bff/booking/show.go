package booking

import (
	"context"
	"errors"
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
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// requireBooking returns the booking bound to this visit, read fresh from the upstream.
// Each of also runs beside the booking's own follow-up reads (bookings.Reader.Read).
func (h *Handler) requireBooking(c echo.Context, also ...func(context.Context, cinema.Booking)) (cinema.Booking, visit.Bound, error) {
	l := web.Loc(c)
	bb, ok := h.Visits.BoundBooking(c)
	if !ok {
		return cinema.Booking{}, bb, &web.Error{Code: web.ENotFound, Heading: l.T("booking.find_first"),
			Message: l.T("booking.find_first_text"), BackURL: h.Site.URL("booking.find"), BackLabel: l.T("booking.find_title")}
	}
	if dev := web.DeviceOf(c); !dev.Serves(bb.CinemaID) {
		// A booking of another cinema than this counter's or kiosk's is not changed, paid for
		// or printed here, however it came to the visit.
		ctx := c.Request().Context()
		return cinema.Booking{}, bb, &web.Error{Code: web.EConflict, Heading: l.T("ui.other_cinema.heading"),
			Message: words.OtherCinema(l, h.Visits.CinemaByID(ctx, bb.CinemaID).Name, h.Visits.CinemaByID(ctx, dev.CinemaID).Name, h.Site.StaffUser(c) != ""),
			BackURL: h.Site.URL("booking.find"), BackLabel: l.T("booking.find_title")}
	}
	b, err := h.Visits.ReadBooking(c.Request().Context(), bb.CinemaID, bb.Number, also...)
	if err != nil {
		return cinema.Booking{}, bb, h.Visits.FromUpstream(err, h.Site.URL("booking.find"), l.T("booking.find_title"))
	}
	return b, bb, nil
}

// showBooking is the booking page.
func (h *Handler) showBooking(c echo.Context) error {
	var facts bookingFacts // read beside the seat plan, not after it
	b, _, err := h.requireBooking(c, facts.reader(h))
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
		EndURL:    h.Site.URL("booking.forget"),
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
	if msg := h.Site.PopFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	if v.Notice == nil {
		v.Notice = h.refundUnderWayNotice(c, b.Number) // a refund of this visit's change, part by part
	}
	if raw := h.Sessions.PopString(ctx, visit.SessChanges); raw != "" {
		v.Changes = strings.Split(raw, "\n")
		if key := h.Sessions.PopString(ctx, visit.SessMailKey); h.Site.AtCounter(c) {
			v.MailLine = h.Visits.CounterMailLine(ctx, key)
		} else {
			v.MailLine = h.Visits.MailLine(ctx, key)
		}
	}
	v.Actions = append(v.Actions, h.editAction(c, b, &facts), h.showtimeAction(c, b, &facts), h.swapAction(c, b))
	v.BoxOfficeSale = h.boxOfficeSaleLine(c, &facts, v.Actions)
	window, open := h.Visits.ChangeWindow(c, b.CinemaID, b.Session.Showtime)
	v.ChangeWindow, v.TicketsOpen = changeWindowLine(window, open, v.Actions)
	title := l.T("booking.show_title", "Number", v.Number)
	if h.Site.AtCounter(c) {
		// The box office: who booked beside what can be done; the tickets are in the print view.
		v.Counter, v.CustomerName, v.CustomerEmail = true, b.CustomerName, b.CustomerEmail
		v.PrintURL, v.FindURL = h.Site.URL("booking.tickets"), h.Site.URL("booking.find")
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
		v.TicketCards = h.Visits.TicketsView(ctx, b, h.Site.URL("booking.tickets"))
		if web.IsKiosk(c) {
			// A kiosk forgets every visit: its guest ends it with Done, never "on this device".
			v.EndURL, v.EndLabel = h.Site.URL("visit.reset"), l.T("kiosk.done")
		} else {
			v.CalendarURL = h.Site.URL("booking.calendar")
			if h.walletLinksWork(b) {
				v.AppleWalletURL, v.GoogleWalletURL = h.WalletLinks(b.CinemaID, b.Number)
			}
		}
	}
	return h.Site.Render(c, http.StatusOK, title, bookingview.Show(v))
}

// walletLinksWork reports whether the booking's wallet links still give its passes: until
// WalletLinkValidFor after the show (a show time not known: always).
func (h *Handler) walletLinksWork(b cinema.Booking) bool {
	show := b.Session.Showtime
	return h.WalletLinks != nil && (show.IsZero() || h.Now().Before(show.Add(h.WalletLinkValidFor)))
}

// showBookingTickets is the print view of the booking's tickets.
func (h *Handler) showBookingTickets(c echo.Context) error {
	b, _, err := h.requireBooking(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	v := bookingview.PrintView{Number: fmt.Sprint(b.Number), Tickets: h.Visits.TicketsView(ctx, b, ""), BackURL: h.Site.URL("booking.show"),
		Counter: h.Site.AtCounter(c)}
	v.Tickets.Staff = v.Counter
	if web.IsKiosk(c) {
		v.Kiosk, v.DoneURL, v.CSRFToken = true, h.Site.URL("visit.reset"), web.CSRFToken(c)
		if key := h.Sessions.PopString(ctx, sessKioskPrint); key != "" {
			v.AutoPrint = key
			if raw := h.Sessions.PopString(ctx, visit.SessChanges); raw != "" {
				v.Changes = strings.Split(raw, "\n")
			}
		}
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("booking.print_title", "Number", v.Number), bookingview.Print(v))
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
func (h *Handler) editAction(c echo.Context, b cinema.Booking, facts *bookingFacts) bookingview.Action {
	l := web.Loc(c)
	a := bookingview.Action{Label: l.T("booking.action_edit"), TestID: "action-edit", Shortcut: "e"}
	if e, ok := h.Visits.CurrentEdit(c); ok && e.BookingNumber == b.Number {
		a.Label, a.URL, a.Enabled = l.T("booking.action_edit_continue"), h.Site.URL("edit.show"), true
		return a
	}
	if reason := h.Visits.ChangesClosed(c, b.CinemaID, b.Session.Showtime); reason != "" {
		a.Reason = reason
		return a
	}
	if reason := h.editUnavailableReason(c, b, facts); reason != "" {
		a.Reason = reason
		return a
	}
	a.URL, a.Method, a.Enabled = h.Site.URL("edit.start"), "post", true
	return a
}

// showtimeAction is "Change showtime" (move the booking to another show), or why it cannot
// be done online. It is an edit, so the edit's rules apply.
func (h *Handler) showtimeAction(c echo.Context, b cinema.Booking, facts *bookingFacts) bookingview.Action {
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
	if reason := h.editUnavailableReason(c, b, facts); reason != "" {
		a.Reason = reason
		return a
	}
	a.URL, a.Enabled = h.Site.URL("edit.showtimes"), true
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
	a.URL, a.Enabled = h.Site.URL("swap.show", b.CinemaID, b.Number), true
	return a
}

// editUnavailableReason says why a booking cannot be edited online, from what we can see
// before asking the upstream (which has the last word), in words for the person asking: staff
// are never sent to the box office.
//
// facts are the booking's facts when already read (nil or unread: read here).
func (h *Handler) editUnavailableReason(c echo.Context, b cinema.Booking, facts *bookingFacts) string {
	ctx := c.Request().Context()
	l, staff := i18n.FromContext(ctx), h.Site.StaffUser(c) != ""
	if b.BeingEdited {
		return words.EditRestrictionFor(l, upstream.EditAlreadyInEdit, staff)
	}
	if facts == nil || !facts.read {
		facts = &bookingFacts{}
		facts.reader(h)(ctx, b)
	}
	if facts.sold {
		return words.BoxOfficeSale(l, staff)
	}
	for _, r := range b.EditRestrictions() {
		return words.EditRestrictionFor(l, upstream.EditRestriction(r), staff)
	}
	if facts.typesErr != nil {
		return "" // the upstream will refuse with the reason if it applies
	}
	if r := ticketTypeRestriction(b, facts.types); r != "" {
		return words.EditRestrictionFor(l, r, staff)
	}
	return ""
}

// ticketTypeRestriction is the edit restriction that one of b's tickets breaks by its type (a
// loyalty, voucher, partner or package ticket), known only from the session's ticket types;
// "" for none.
func ticketTypeRestriction(b cinema.Booking, types []cinema.TicketType) upstream.EditRestriction {
	for _, t := range b.Tickets {
		tt := typeWithCode(types, t.TypeCode)
		switch {
		case tt == nil:
		case tt.IsLoyalty:
			return upstream.EditLoyaltyTicket
		case tt.IsVoucher:
			return upstream.EditVoucherTicket
		case tt.IsThirdParty:
			return upstream.EditThirdPartyMemberTicket
		case tt.IsPackage:
			return upstream.EditPackageTicket
		}
	}
	return ""
}

// boxOfficeSaleLine is what the booking page says up front of a booking this site sold at its
// box office or a kiosk: that its tickets and its show cannot be changed nor anything refunded
// here, and that its seats can still be changed when they can. The actions it closes point to
// these words instead of repeating them. "" for any other booking.
func (h *Handler) boxOfficeSaleLine(c echo.Context, facts *bookingFacts, actions []bookingview.Action) string {
	if !facts.sold {
		return ""
	}
	l, staff := web.Loc(c), h.Site.StaffUser(c) != ""
	why := words.BoxOfficeSale(l, staff)
	line := why
	for i := range actions {
		a := &actions[i]
		if !a.Enabled && a.Reason == why {
			a.Reason, a.DescribedBy = "", "box-office-sale"
		}
		if a.Enabled && a.TestID == "action-swap" {
			line += " " + words.BoxOfficeSaleSeats(l, staff)
		}
	}
	return line
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

// bookingFacts are what the booking's actions depend on beyond the booking record, read
// alongside the booking's other reads: the ticket types of its session, and whether this site
// sold it at its box office or a kiosk.
type bookingFacts struct {
	types    []cinema.TicketType
	typesErr error
	sold     bool
	read     bool
}

// reader reads the facts of the booking into f (bookings.Reader.Read's also).
func (f *bookingFacts) reader(s *Handler) func(context.Context, cinema.Booking) {
	return func(ctx context.Context, b cinema.Booking) {
		if id := b.SessionID(); id != "" {
			f.types, f.typesErr = s.Visits.SessionTicketTypes(ctx, b.CinemaID, id)
		} else {
			f.typesErr = errNoSession
		}
		f.sold, f.read = s.soldAtBoxOffice(ctx, b), true
	}
}

// soldAtBoxOffice reports whether this site sold b at its box office or a kiosk. A failed
// look-up is logged and counts as not sold here: the upstream then decides.
func (h *Handler) soldAtBoxOffice(ctx context.Context, b cinema.Booking) bool {
	if h.Settler == nil {
		return false
	}
	sold, err := h.Settler.SoldAtBoxOffice(ctx, b.CinemaID, b.Number)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("not known whether the box office sold the booking", "booking", b.Number, "err", err)
	}
	return sold && err == nil
}

// errNoSession: the booking names no session, so its ticket types are not known.
var errNoSession = errors.New("the booking names no session")

// refuseClosedEdit is refuseClosed for the edit in progress: the way on is cancelling it,
// which still works and restores the booking as it was.
// A move to another showtime respects both shows' cut-offs.
func (h *Handler) refuseClosedEdit(c echo.Context, e visit.Edit) error {
	for _, at := range e.Showtimes() {
		if err := h.Visits.RefuseClosed(c, e.CinemaID, at, h.Site.URL("edit.cancel"), web.Loc(c).T("booking.cancel_this_change")); err != nil {
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
