package swap

import (
	"context"
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
	return h.renderConfirm(c, http.StatusOK, bb, v, nil)
}

// renderConfirm writes the confirm page of the pending moves v, with notice above them.
func (h *Handler) renderConfirm(c echo.Context, status int, bb boundBooking, v swapState, notice *components.Notice) error {
	l := web.Loc(c)
	cv := swapview.ConfirmView{Header: v.header(l), ActionURL: h.url("swap.confirm", bb.CinemaID, bb.Number),
		ChangeURL: h.url("swap.show", bb.CinemaID, bb.Number), CSRFToken: web.CSRFToken(c), Shown: v.shown(), Notice: notice}
	for _, m := range v.Moves {
		cv.Moves = append(cv.Moves, swapview.Move{Ticket: m.Ticket, From: m.fromText(l), To: m.toText(l), Package: m.Package, TestID: "move-" + strconv.Itoa(m.Seq)})
	}
	return h.Site.Render(c, status, l.T("swap.confirm_title"), swapview.Confirm(cv))
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
	if err := h.Visits.RefuseClosed(c, v.CinemaID, v.Showtime, h.url("booking.show"), h.backLabel(c)); err != nil {
		return err
	}
	l := web.Loc(c)
	if c.FormValue("moves") != v.shown() {
		// Other seats were chosen in another window after this page was shown: the person
		// sees those before anything is sent.
		return h.renderConfirm(c, http.StatusConflict, bb, v, &components.Notice{Kind: components.NoticeWarning,
			Heading: l.T("swap.changed_elsewhere"), Body: l.T("swap.changed_elsewhere_text")})
	}
	mailKey, done, err := h.swapOnce(c, v)
	if !done {
		// The moves go on being made: they are not offered for confirming again, and the
		// booking shows them once made.
		h.Sessions.Remove(c.Request().Context(), visit.SessSwapPending)
		return web.SlowUpstream(errSwapStillRunning, h.url("booking.show"), h.backLabel(c))
	}
	if r, refused := upstream.SwapRefusal(err); refused || errors.Is(err, upstream.ErrSeatsUnavailable) {
		return h.refusedAtConfirm(c, bb, v, r, err)
	}
	if err != nil {
		return h.fromUpstream(err, h.url("swap.show", bb.CinemaID, bb.Number), l.T("swap.choose_again_link"))
	}
	ctx := c.Request().Context()
	h.Sessions.Remove(ctx, visit.SessSwapPending)
	v.MailKey = mailKey
	h.Visits.RememberMail(ctx, mailKey)
	h.save(c, visit.SessSwapDone, v)
	return web.Redirect(c, h.url("swap.done", bb.CinemaID, bb.Number))
}

// errSwapStillRunning: the swap went on past the page's wait; its outcome shows on the booking.
var errSwapStillRunning = errors.New("seat swap still running when the page answered")

// swapOnce sends the moves of v in one SwapSeats call and, once they are made, writes the
// change's notice and its audit row. The step goes on without the request (MoneyStep): a tab
// closed while it runs never leaves a swap made without its e-mail or its record, and a second
// press while it runs joins it instead of sending the moves again. mailKey names the notice;
// done is false when the step was still running as the page's wait ended.
func (h *Handler) swapOnce(c echo.Context, v swapState) (mailKey string, done bool, err error) {
	swaps := make([]upstream.SeatSwap, len(v.Moves))
	moved := make([]string, len(v.Moves))
	for i, m := range v.Moves {
		swaps[i] = upstream.SeatSwap{TicketSequenceNumber: m.Seq, NewSeat: m.To}
		moved[i] = m.From + " → " + m.ToText
	}
	row, record := h.Visits.AuditEntry(c, audit.Entry{Action: audit.ActionSwap, CinemaID: v.CinemaID, BookingNumber: v.Number, Detail: strings.Join(moved, "; ")})
	val, done, err := h.Visits.MoneyStep(c.Request().Context(), "swap:"+v.CinemaID+":"+v.BookingID, func(ctx context.Context) (any, error) {
		err := h.Ticketing.SwapSeats(ctx, v.CinemaID, v.BookingID, swaps)
		if upstream.MayHaveChanged(err) && h.movesMade(ctx, v) {
			// The answer was lost after the ticketing system made the moves: the booking says so.
			web.LoggerFrom(ctx, h.Logger).Warn("seat swap's answer lost; the booking shows the moves made", "booking", v.Number, "err", err)
			err = nil
		}
		if err != nil {
			return "", err
		}
		n := changeNotice(ctx, v)
		h.Visits.WriteNotice(ctx, n)
		if record {
			h.Visits.WriteAudit(ctx, row)
		}
		return n.Key, nil
	})
	mailKey, _ = val.(string)
	return mailKey, done, err
}

// movesMade reports whether the booking, read again, has every ticket of v on its new seat.
func (h *Handler) movesMade(ctx context.Context, v swapState) bool {
	rb, err := h.Placed.Read(ctx, v.CinemaID, v.Number)
	if err != nil {
		return false
	}
	for _, m := range v.Moves {
		t, ok := rb.Booking.Ticket(m.Seq)
		if !ok || t.Seat == nil || t.Seat.RowLabel != m.ToRow || t.Seat.Label != m.ToSeat {
			return false
		}
	}
	return true
}

// refusedAtConfirm shows the map again, read afresh, with the person's choices and the
// ticketing system's reason (r; a seat taken when none is given) for not making the moves.
func (h *Handler) refusedAtConfirm(c echo.Context, bb boundBooking, v swapState, r upstream.SwapRestriction, err error) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
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
