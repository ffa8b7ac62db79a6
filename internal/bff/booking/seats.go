package booking

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/seatrules"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// editSeatTickets returns the order's tickets that keep or get a seat (not removed ones).
func editSeatTickets(e visit.Edit, o cinema.Order) []cinema.OrderTicket {
	lines, _ := editLines(e, o)
	removed := map[string]bool{}
	for _, l := range lines {
		if l.State == "removed" {
			removed[l.TicketID] = true
		}
	}
	var out []cinema.OrderTicket
	for _, t := range o.Tickets() {
		if !removed[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

// showEditSeats shows the seat chooser with the order's seats ticked.
func (h *Handler) showEditSeats(c echo.Context) error {
	var notice *components.Notice
	if msg := h.Site.PopFlash(c); msg != "" {
		notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg} // e.g. the seats chosen at a new show
	}
	return h.renderEditSeats(c, http.StatusOK, notice, nil)
}

func (h *Handler) renderEditSeats(c echo.Context, status int, notice *components.Notice, chosen []cinema.SeatPosition) error {
	e, err := h.requireEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	o, snap, err, planErr := h.Visits.OrderAndPlan(ctx, e.UserSessionID, e.CinemaID, e.SessionID)
	if err != nil {
		return h.editEnded(c, e, err)
	}
	if planErr != nil {
		return h.Visits.FromUpstream(planErr, h.Site.URL("edit.show"), l.T("booking.back_to_changes"))
	}
	plan := h.Visits.Named(ctx).SeatPlan(snap.Plan) // areas in the visitor's words
	tickets := editSeatTickets(e, o)
	var yours []cinema.SeatPosition
	for _, t := range tickets {
		if t.Seat != nil {
			yours = append(yours, t.Seat.Position)
		}
	}
	if chosen == nil {
		chosen = yours
	}
	v := bookingview.SeatsView{Counter: h.Site.AtCounter(c), BookingNumber: fmt.Sprint(e.BookingNumber), ActionURL: h.Site.URL("edit.seats"), BackURL: h.Site.URL("edit.show"),
		CSRFToken: web.CSRFToken(c), Count: len(tickets), Notice: notice,
		Map: components.BuildSeatMap(plan, components.SeatMapOptions{Max: len(tickets), Yours: yours, YoursSelectable: true,
			Chosen: chosen, Kiosk: web.IsKiosk(c), Label: l.T("booking.seat_map_label"), AsOf: h.Visits.SeatsAsOf(ctx, e.CinemaID, snap.AsOf),
			Prices: words.SeatPrices(l, tickets)})}
	if e.MovedFrom != nil {
		v.Show = joinShow(e.FilmTitle, words.Showtime(l, e.Showtime, h.Visits.CinemaByID(ctx, e.CinemaID)), e.Screen)
	}
	defer v.Map.Release() // the page is written before this returns
	return h.Site.Render(c, status, l.T("booking.seats_page_title"), bookingview.Seats(v))
}

// setEditSeats moves the order's tickets to the chosen seats (SetSelectedSeats).
func (h *Handler) setEditSeats(c echo.Context) error {
	e, err := h.requireChangeableEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	form, err := c.FormParams()
	if err != nil {
		return &web.Error{Code: web.EInvalid, Heading: l.T("booking.seats_unreadable_heading"), Message: l.T("booking.seats_unreadable_text"),
			BackURL: h.Site.URL("edit.seats"), BackLabel: l.T("booking.seats_page_title")}
	}
	chosen, chosenPos := chosenSeats(form["seat"])
	o, err := h.Ticketing.GetOrder(ctx, e.UserSessionID)
	if err != nil {
		return h.editEnded(c, e, err)
	}
	tickets := editSeatTickets(e, o)
	if want := len(tickets); len(chosen) != want {
		return h.renderEditSeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError,
			Heading: l.N("booking.seats_count_wrong", want), Body: l.T("booking.seats_count_chosen", "Count", len(chosen))}, chosenPos)
	}
	// The plan gives the chosen seats' areas (layout only): the upstream decides below whether
	// they are free.
	snap, err := h.SeatPlans.Plan(ctx, e.CinemaID, e.SessionID)
	if err != nil {
		return h.Visits.FromUpstream(err, h.Site.URL("edit.show"), l.T("booking.back_to_changes"))
	}
	plan := h.Visits.Named(ctx).SeatPlan(snap.Plan) // areas in the visitor's words
	seats, planSeats, ok := seatsOnPlan(plan, chosen)
	if !ok {
		return h.renderEditSeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("booking.seats_from_map")}, nil)
	}
	if sameSeats(tickets, chosen) {
		// The same seats as now: nothing to change, and nothing is said to have changed.
		return web.Redirect(c, h.Site.URL("edit.show"))
	}
	if notice := editSeatsProblem(l, plan, o, tickets, planSeats, chosenPos); notice != nil {
		return h.renderEditSeats(c, http.StatusUnprocessableEntity, notice, chosenPos)
	}
	return h.moveToSeats(c, e, seats)
}

// chosenSeats are the seats of the form's seat fields: the map's checkboxes and the list
// alternative's selects submit the same field; empty selects and a seat given twice count
// once. chosen holds every value sent, positions the ones that read as seats, in form order.
func chosenSeats(values []string) (chosen map[string]bool, positions []cinema.SeatPosition) {
	chosen = map[string]bool{}
	for _, v := range values {
		if v == "" || chosen[v] {
			continue
		}
		chosen[v] = true
		if p, ok := components.ParseSeatValue(v); ok {
			positions = append(positions, p)
		}
	}
	return chosen, positions
}

// seatsOnPlan finds the chosen seats on the plan, with their areas; ok is false when one is
// not a seat of it.
func seatsOnPlan(plan cinema.SeatPlan, chosen map[string]bool) (seats []upstream.SelectedSeat, planSeats []cinema.Seat, ok bool) {
	for v := range chosen {
		pos, ok := components.ParseSeatValue(v)
		seat, found := plan.Seat(pos)
		if !ok || !found {
			return nil, nil, false
		}
		seats = append(seats, upstream.SelectedSeat{AreaCategoryCode: seat.AreaCategoryCode, Position: pos})
		planSeats = append(planSeats, seat)
	}
	return seats, planSeats, true
}

// sameSeats reports whether the chosen seats are the ones the tickets sit in now.
func sameSeats(tickets []cinema.OrderTicket, chosen map[string]bool) bool {
	for _, t := range tickets {
		if t.Seat == nil || !t.Seat.Placed || !chosen[components.SeatValue(t.Seat.Position)] {
			return false
		}
	}
	return true
}

// editSeatsProblem says what is wrong with the chosen seats before the ticketing system is
// asked (nil when nothing is): seats of another seating area, or a choice against the
// cinema's own seating rules.
func editSeatsProblem(l *i18n.Localizer, plan cinema.SeatPlan, o cinema.Order, tickets []cinema.OrderTicket, planSeats []cinema.Seat, chosen []cinema.SeatPosition) *components.Notice {
	// Seats of another seating area: refused here with the rule, naming the tickets' area
	// (the ticketing system answers only "invalid request"). When a ticket's area is not
	// known, the ticketing system decides.
	var cats []string
	for _, t := range tickets {
		if t.Seat != nil && t.Seat.AreaCategoryCode != "" {
			cats = append(cats, t.Seat.AreaCategoryCode)
		}
	}
	if len(cats) == len(tickets) {
		if msg := words.AreaProblem(l, plan, cats, planSeats); msg != "" {
			return &components.Notice{Kind: components.NoticeError, Heading: l.T("booking.seats_same_area"), Body: msg}
		}
	}
	// The cinema's own seating rules, which the upstream does not know: every seat the order
	// holds now is chosen anew or given up (a removed ticket's too).
	var party []cinema.SeatPosition
	for _, t := range o.Tickets() {
		if t.Seat != nil && t.Seat.Placed {
			party = append(party, t.Seat.Position)
		}
	}
	return words.SeatRuleNotice(l, seatrules.Check(plan, seatrules.Choice{Party: party, Chosen: chosen}))
}

// moveToSeats asks the ticketing system to move the edit's tickets to seats; seats it refuses
// are said on the seat page.
func (h *Handler) moveToSeats(c echo.Context, e visit.Edit, seats []upstream.SelectedSeat) error {
	l := web.Loc(c)
	_, err := h.Ticketing.SetSelectedSeats(c.Request().Context(), upstream.SetSelectedSeatsRequest{UserSessionID: e.UserSessionID, CinemaID: e.CinemaID, SessionID: e.SessionID, Seats: seats})
	h.SeatPlans.Invalidate(e.CinemaID, e.SessionID) // seats changed or refused: the next map reads them again
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		return h.renderEditSeats(c, http.StatusConflict, visit.SeatsTakenNotice, nil)
	case errors.Is(err, upstream.ErrInvalidRequest):
		return h.renderEditSeats(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: l.T("booking.seats_refused_heading"),
			Body: l.T("booking.seats_refused_text")}, nil)
	case err != nil:
		return h.editEnded(c, e, err)
	}
	h.Site.Flash(c, l.T("booking.seats_changed"))
	return web.Redirect(c, h.Site.URL("edit.show"))
}
