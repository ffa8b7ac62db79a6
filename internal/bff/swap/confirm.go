package swap

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/words"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/swapview"
)

// showSwapConfirm shows the checked moves and asks for the go-ahead. Nothing is fetched: the
// moves were checked a moment ago and the ticketing system checks them again on the page.
func (h *Handler) showSwapConfirm(c echo.Context) error {
	bb, err := h.access(c)
	if err != nil {
		return err
	}
	v, ok := h.load(c, visit.SessSwapPending, bb)
	if !ok {
		return c.Redirect(http.StatusSeeOther, h.url("swap.show", bb.CinemaID, bb.Number))
	}
	l := web.Loc(c)
	cv := swapview.ConfirmView{Header: v.header(l), ActionURL: h.url("swap.confirm", bb.CinemaID, bb.Number),
		ChangeURL: h.url("swap.show", bb.CinemaID, bb.Number), CSRFToken: web.CSRFToken(c)}
	for _, m := range v.Moves {
		cv.Moves = append(cv.Moves, swapview.Move{Ticket: m.Ticket, From: m.fromText(l), To: m.toText(l), Package: m.Package, TestID: "move-" + strconv.Itoa(m.Seq)})
	}
	return h.Site.Render(c, http.StatusOK, l.T("swap.confirm_title"), swapview.Confirm(cv))
}

// confirmSwap sends all moves in one SwapSeats call. A refusal only the ticketing system can
// see (a seat taken a moment ago) shows the map again with fresh availability and the
// person's choices kept where they still can be.
func (h *Handler) confirmSwap(c echo.Context) error {
	bb, err := h.access(c)
	if err != nil {
		return err
	}
	v, ok := h.load(c, visit.SessSwapPending, bb)
	if !ok {
		return web.Redirect(c, h.url("swap.show", bb.CinemaID, bb.Number))
	}
	l := web.Loc(c)
	if err := h.Visits.RefuseClosed(c, v.CinemaID, v.Showtime, h.url("booking.show"), h.backLabel(c)); err != nil {
		return err
	}
	ctx := c.Request().Context()
	swaps := make([]upstream.SeatSwap, len(v.Moves))
	for i, m := range v.Moves {
		swaps[i] = upstream.SeatSwap{TicketSequenceNumber: m.Seq, NewSeat: m.To}
	}
	// The swap changes the booking: never cut off halfway (visit/moneystep.go).
	dctx, cancel := h.Visits.Detached(ctx)
	err = h.Ticketing.SwapSeats(dctx, v.CinemaID, v.BookingID, swaps)
	cancel()
	if r, refused := upstream.SwapRefusal(err); refused || errors.Is(err, upstream.ErrSeatsUnavailable) {
		h.Sessions.Remove(ctx, visit.SessSwapPending)
		web.LoggerFrom(ctx, h.Logger).Info("swap refused", "booking", v.Number, "reason", r, "err", err)
		if r == "" {
			r = upstream.SwapSeatUnavailable
		}
		rb, berr := h.Bookings.Read(ctx, bb.CinemaID, bb.Number)
		if berr != nil {
			return h.fromUpstream(err, h.url("swap.show", bb.CinemaID, bb.Number), l.T("swap.choose_again_link"))
		}
		choice := picked{Seqs: map[int]bool{}}
		for _, m := range v.Moves {
			choice.Seqs[m.Seq] = true
			choice.Seats = append(choice.Seats, m.To)
		}
		return h.render(c, http.StatusConflict, rb.Booking, rb.Plan, choice, &components.Notice{Kind: components.NoticeError,
			Heading: l.T("swap.not_changed"), Body: words.SwapRestriction(l, r)})
	}
	if err != nil {
		return h.fromUpstream(err, h.url("swap.show", bb.CinemaID, bb.Number), l.T("swap.choose_again_link"))
	}
	h.Sessions.Remove(ctx, visit.SessSwapPending)
	n := changeNotice(ctx, v)
	h.Visits.WriteNotice(ctx, n)
	var moved []string
	for _, m := range v.Moves {
		moved = append(moved, m.From+" → "+m.ToText)
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionSwap, CinemaID: v.CinemaID, BookingNumber: v.Number, Detail: strings.Join(moved, "; ")})
	v.MailKey = n.Key
	h.Visits.RememberMail(ctx, n.Key)
	h.save(c, visit.SessSwapDone, v)
	return web.Redirect(c, h.url("swap.done", bb.CinemaID, bb.Number))
}

// showSwapDone shows old and new seats side by side; the new ones are read back from the
// ticketing system, not taken from what was asked for.
func (h *Handler) showSwapDone(c echo.Context) error {
	bb, err := h.access(c)
	if err != nil {
		return err
	}
	v, ok := h.load(c, visit.SessSwapDone, bb)
	if !ok {
		return c.Redirect(http.StatusSeeOther, h.url("swap.show", bb.CinemaID, bb.Number))
	}
	l := web.Loc(c)
	ctx := c.Request().Context()
	pb, err := h.Placed.Read(ctx, bb.CinemaID, bb.Number)
	if err != nil {
		return h.fromUpstream(err, h.url("booking.show"), h.backLabel(c))
	}
	b := h.Visits.Named(ctx).Booking(pb.Booking)
	dv := swapview.DoneView{Header: h.header(c, b), BackURL: h.url("booking.show"), BackLabel: h.backLabel(c),
		Tickets: h.Visits.TicketsView(ctx, b, h.url("booking.tickets")), MailLine: h.Visits.MailLine(ctx, v.MailKey)}
	for _, m := range v.Moves {
		mv := swapview.Move{Ticket: m.Ticket, From: m.fromText(l), Package: m.Package, TestID: "move-" + strconv.Itoa(m.Seq), To: l.T("swap.new_seat_unknown")}
		if t, ok := b.Ticket(m.Seq); ok && t.Seat != nil {
			mv.To = tickets.SeatWords(l, t.Seat.RowLabel, t.Seat.Label)
		}
		dv.Moves = append(dv.Moves, mv)
	}
	return h.Site.Render(c, http.StatusOK, l.T("swap.done_title"), swapview.Done(dv))
}
