package bff

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/booking"
)

// editSeatTickets returns the order's tickets that keep or get a seat (not removed ones).
func editSeatTickets(e editVisit, o cinema.Order) []cinema.OrderTicket {
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
func (s *Server) showEditSeats(c echo.Context) error {
	return s.renderEditSeats(c, http.StatusOK, nil, nil)
}

func (s *Server) renderEditSeats(c echo.Context, status int, notice *components.Notice, chosen map[string]bool) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	o, err := s.ticketing.GetOrder(ctx, e.UserSessionID)
	if err != nil {
		return s.editEnded(c, e, err)
	}
	plan, err := s.ticketing.GetSeatPlan(ctx, e.CinemaID, e.SessionID)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteEdit), "Back to your changes")
	}
	tickets := editSeatTickets(e, o)
	yours := map[string]bool{}
	for _, t := range tickets {
		if t.Seat != nil {
			yours[seatValue(t.Seat.Position)] = true
		}
	}
	if chosen == nil {
		chosen = yours
	}
	v := booking.SeatsView{BookingNumber: fmt.Sprint(e.BookingNumber), ActionURL: s.url(RouteEditSeats), BackURL: s.url(RouteEdit),
		CSRFToken: csrfToken(c), Count: len(tickets), Notice: notice}
	var areas []booking.SeatAreaChoice
	for _, a := range plan.Areas {
		ac := booking.SeatAreaChoice{Name: a.Description}
		for _, r := range a.Rows {
			if len(r.Seats) == 0 {
				continue
			}
			rc := booking.SeatRowChoice{Label: r.Label}
			free := 0
			for _, st := range r.Seats {
				val := seatValue(st.Position)
				mine := yours[val]
				if st.Availability == cinema.SeatFree {
					free++
				}
				if st.Availability != cinema.SeatFree && !mine {
					continue
				}
				state := "free"
				if mine {
					state = "yours"
				}
				rc.Seats = append(rc.Seats, booking.SeatChoice{Value: val, Label: st.Label, Checked: chosen[val], Yours: mine,
					Name: fmt.Sprintf("Row %s, seat %s, %s, %s", r.Label, st.Label, strings.ToLower(a.Description), state)})
			}
			rc.Summary = fmt.Sprintf("Row %s, %d of %d free", r.Label, free, len(r.Seats))
			if len(rc.Seats) > 0 {
				ac.Rows = append(ac.Rows, rc)
			}
		}
		areas = append(areas, ac)
	}
	return s.render(c, status, "Choose seats", booking.SimpleSeats(v, areas))
}

// seatValue is a seat's form value: area-row-col.
func seatValue(p cinema.SeatPosition) string {
	return fmt.Sprintf("%d-%d-%d", p.AreaNumber, p.RowIndex, p.ColumnIndex)
}

func parseSeatValue(v string) (cinema.SeatPosition, bool) {
	parts := strings.Split(v, "-")
	if len(parts) != 3 {
		return cinema.SeatPosition{}, false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || x > 10000 {
			return cinema.SeatPosition{}, false
		}
		n[i] = x
	}
	return cinema.SeatPosition{AreaNumber: n[0], RowIndex: n[1], ColumnIndex: n[2]}, true
}

// setEditSeats moves the order's tickets to the chosen seats (SetSelectedSeats).
func (s *Server) setEditSeats(c echo.Context) error {
	e, err := s.requireEdit(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return &Error{Code: EInvalid, Heading: "That did not work", Message: "We could not read your choice. Please choose again.", BackURL: s.url(RouteEditSeats), BackLabel: "Choose seats"}
	}
	values := form["seat"]
	chosen := map[string]bool{}
	for _, v := range values {
		chosen[v] = true
	}
	o, err := s.ticketing.GetOrder(ctx, e.UserSessionID)
	if err != nil {
		return s.editEnded(c, e, err)
	}
	want := len(editSeatTickets(e, o))
	if len(chosen) != want || len(values) != want {
		return s.renderEditSeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError,
			Heading: fmt.Sprintf("Please choose exactly %d seats", want), Body: fmt.Sprintf("You chose %d. Each ticket needs one seat.", len(chosen))}, chosen)
	}
	plan, err := s.ticketing.GetSeatPlan(ctx, e.CinemaID, e.SessionID)
	if err != nil {
		return s.fromUpstream(err, s.url(RouteEdit), "Back to your changes")
	}
	var seats []upstream.SelectedSeat
	for v := range chosen {
		pos, ok := parseSeatValue(v)
		seat, found := plan.Seat(pos)
		if !ok || !found {
			return s.renderEditSeats(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: "Please choose seats from the map"}, nil)
		}
		seats = append(seats, upstream.SelectedSeat{AreaCategoryCode: seat.AreaCategoryCode, Position: pos})
	}
	_, err = s.ticketing.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: e.UserSessionID, CinemaID: e.CinemaID, SessionID: e.SessionID, Seats: seats})
	switch {
	case errors.Is(err, upstream.ErrSeatsUnavailable), errors.Is(err, upstream.ErrInvalidRequest):
		return s.renderEditSeats(c, http.StatusConflict, &components.Notice{Kind: components.NoticeError, Heading: "Those seats cannot be used",
			Body: "Some of them were just taken or cannot be chosen together. The list below shows what is free now."}, nil)
	case err != nil:
		return s.editEnded(c, e, err)
	}
	s.flash(c, "Your seats were changed.")
	return s.redirect(c, s.url(RouteEdit))
}
