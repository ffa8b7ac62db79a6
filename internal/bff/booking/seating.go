package booking

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// seatWithParty moves tickets just added to an edit next to the party's seats. AddTickets
// cannot take seats in edit state, so the ticketing system seats them where it likes (the
// sandbox: the best block of the area, wherever the party sits). When free seats beside the
// party are there for them, in the same row and area, SetSelectedSeats puts them there; when
// not, or when that fails, the ticketing system's choice stays. It reports whether it moved
// them. Where the seats go is worked out by internal/seatplans (party.go); this reads the
// visit's tickets, the cached plan and asks the upstream.
func (h *Handler) seatWithParty(ctx context.Context, e visit.Edit, before, after cinema.Order) bool {
	had := map[string]bool{}
	var party []cinema.SeatPosition
	for _, t := range editSeatTickets(e, before) {
		had[t.ID] = true
		if t.Seat != nil && t.Seat.Placed {
			party = append(party, t.Seat.Position)
		}
	}
	var tickets []seatplans.PartyTicket
	for _, t := range editSeatTickets(e, after) {
		if t.Seat == nil || !t.Seat.Placed {
			return false // seats we cannot place: nothing to improve on
		}
		tickets = append(tickets, seatplans.PartyTicket{Category: t.Seat.AreaCategoryCode, Position: t.Seat.Position, Added: !had[t.ID]})
	}
	if !seatplans.ApartFromParty(party, tickets) {
		return false // nothing added, no party, or already beside it
	}
	// A cached plan (seat states at most seatStatesTTL old): the upstream decides below
	// whether the seats beside the party are still free.
	snap, err := h.SeatPlans.Plan(ctx, e.CinemaID, e.SessionID)
	if err != nil {
		return false
	}
	moved, ok := seatplans.BesidePartySeats(snap.Plan, party, tickets)
	if !ok {
		return false
	}
	seats := make([]upstream.SelectedSeat, 0, len(moved))
	for _, t := range moved {
		seats = append(seats, upstream.SelectedSeat{AreaCategoryCode: t.Category, Position: t.Position})
	}
	if _, err := h.Ticketing.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: e.UserSessionID, CinemaID: e.CinemaID, SessionID: e.SessionID, Seats: seats}); err != nil {
		web.LoggerFrom(ctx, h.Logger).Info("added tickets not moved beside the party", "err", err)
		return false
	}
	return true
}
