package bff

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/swap"
)

// showSwapConfirm shows the checked moves and asks for the go-ahead. Nothing is fetched: the
// moves were checked a moment ago and the ticketing system checks them again on the swap.
func (s *Server) showSwapConfirm(c echo.Context) error {
	bb, err := s.swapAccess(c)
	if err != nil {
		return err
	}
	v, ok := s.loadSwap(c, sessSwapPending, bb)
	if !ok {
		return c.Redirect(http.StatusSeeOther, s.url(RouteSwap, bb.CinemaID, bb.Number))
	}
	l := loc(c)
	cv := swap.ConfirmView{Header: v.header(l), ActionURL: s.url(RouteSwapConfirm, bb.CinemaID, bb.Number),
		ChangeURL: s.url(RouteSwap, bb.CinemaID, bb.Number), CSRFToken: csrfToken(c)}
	for _, m := range v.Moves {
		cv.Moves = append(cv.Moves, swap.Move{Ticket: m.Ticket, From: m.fromText(l), To: m.toText(l), Package: m.Package, TestID: "move-" + strconv.Itoa(m.Seq)})
	}
	return s.render(c, http.StatusOK, l.T("swap.confirm_title"), swap.Confirm(cv))
}

// confirmSwap sends all moves in one SwapSeats call. A refusal only the ticketing system can
// see (a seat taken a moment ago) shows the map again with fresh availability and the
// person's choices kept where they still can be.
func (s *Server) confirmSwap(c echo.Context) error {
	bb, err := s.swapAccess(c)
	if err != nil {
		return err
	}
	v, ok := s.loadSwap(c, sessSwapPending, bb)
	if !ok {
		return s.redirect(c, s.url(RouteSwap, bb.CinemaID, bb.Number))
	}
	l := loc(c)
	if err := s.refuseClosed(c, v.CinemaID, v.Showtime, s.url(RouteBooking), l.T("swap.back_to_booking")); err != nil {
		return err
	}
	ctx := c.Request().Context()
	swaps := make([]upstream.SeatSwap, len(v.Moves))
	for i, m := range v.Moves {
		swaps[i] = upstream.SeatSwap{TicketSequenceNumber: m.Seq, NewSeat: m.To}
	}
	// The swap changes the booking: never cut off halfway (budget.go).
	dctx, cancel := s.detached(ctx)
	err = s.ticketing.SwapSeats(dctx, v.CinemaID, v.BookingID, swaps)
	cancel()
	if r, refused := upstream.SwapRefusal(err); refused || errors.Is(err, upstream.ErrSeatsUnavailable) {
		s.sessions.Remove(ctx, sessSwapPending)
		loggerFrom(ctx, s.logger).Info("swap refused", "booking", v.Number, "reason", r, "err", err)
		if r == "" {
			r = upstream.SwapSeatUnavailable
		}
		rb, berr := s.bookings.Read(ctx, bb.CinemaID, bb.Number)
		if berr != nil {
			return s.fromUpstream(err, s.url(RouteSwap, bb.CinemaID, bb.Number), l.T("swap.choose_again_link"))
		}
		choice := swapChoice{Seqs: map[int]bool{}}
		for _, m := range v.Moves {
			choice.Seqs[m.Seq] = true
			choice.Seats = append(choice.Seats, m.To)
		}
		return s.renderSwap(c, http.StatusConflict, rb.Booking, rb.Plan, choice, &components.Notice{Kind: components.NoticeError,
			Heading: l.T("swap.not_changed"), Body: web.SwapRestrictionText(l, r)})
	}
	if err != nil {
		return s.fromUpstream(err, s.url(RouteSwap, bb.CinemaID, bb.Number), l.T("swap.choose_again_link"))
	}
	s.sessions.Remove(ctx, sessSwapPending)
	n := swapNotice(ctx, v)
	s.writeNotice(ctx, n)
	var moved []string
	for _, m := range v.Moves {
		moved = append(moved, m.From+" → "+m.ToText)
	}
	s.recordAudit(c, audit.Entry{Action: audit.ActionSwap, CinemaID: v.CinemaID, BookingNumber: v.Number, Detail: strings.Join(moved, "; ")})
	v.MailKey = n.Key
	s.sessions.Put(ctx, sessMailKey, n.Key)
	s.saveSwap(c, sessSwapDone, v)
	return s.redirect(c, s.url(RouteSwapDone, bb.CinemaID, bb.Number))
}

// showSwapDone shows old and new seats side by side; the new ones are read back from the
// ticketing system, not taken from what was asked for.
func (s *Server) showSwapDone(c echo.Context) error {
	bb, err := s.swapAccess(c)
	if err != nil {
		return err
	}
	v, ok := s.loadSwap(c, sessSwapDone, bb)
	if !ok {
		return c.Redirect(http.StatusSeeOther, s.url(RouteSwap, bb.CinemaID, bb.Number))
	}
	l := loc(c)
	ctx := c.Request().Context()
	b, err := s.readBooking(ctx, bb.CinemaID, bb.Number)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteBooking), l.T("swap.back_to_booking"))
	}
	dv := swap.DoneView{Header: s.swapHeader(c, b), BackURL: s.url(RouteBooking), BackLabel: l.T("swap.back_to_booking"),
		Tickets: s.ticketsView(ctx, b, s.url(RouteBookingTickets)), MailLine: s.mailLine(ctx, v.MailKey)}
	for _, m := range v.Moves {
		mv := swap.Move{Ticket: m.Ticket, From: m.fromText(l), Package: m.Package, TestID: "move-" + strconv.Itoa(m.Seq), To: l.T("swap.new_seat_unknown")}
		if t, ok := b.Ticket(m.Seq); ok && t.Seat != nil {
			mv.To = tickets.SeatWords(l, t.Seat.RowLabel, t.Seat.Label)
		}
		dv.Moves = append(dv.Moves, mv)
	}
	return s.render(c, http.StatusOK, l.T("swap.done_title"), swap.Done(dv))
}
