package checkout

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/seatrules"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// seatByTheRules holds the seats the upstream picked by itself for a new order to the
// cinema's seating rules, which it does not know: when its pick leaves a seat on its own or
// takes a companion seat without a wheelchair space, the order moves to the nearest seats
// side by side that do neither (seatrules.BestTogether). The seat step shows the order's
// seats either way, so a plan that cannot be read or seats the upstream refuses leave its
// pick as it is: the person can still change it there.
func (h *Handler) seatByTheRules(ctx context.Context, cinemaID, sessionID, userSessionID string, o cinema.Order) {
	var picked []cinema.SeatPosition
	for _, t := range o.Tickets() {
		if t.Seat == nil || !t.Seat.Placed {
			return // unallocated seating, or seats not on a plan: nothing to hold to the rules
		}
		picked = append(picked, t.Seat.Position)
	}
	if len(picked) == 0 {
		return
	}
	snap, err := h.SeatPlans.Plan(ctx, cinemaID, sessionID)
	if err != nil {
		return
	}
	better, ok := seatrules.BestTogether(snap.Plan, picked)
	if !ok {
		return
	}
	seats := make([]upstream.SelectedSeat, len(better))
	for i, p := range better {
		seat, _ := snap.Plan.Seat(p) // BestTogether answers seats of the plan only
		seats[i] = upstream.SelectedSeat{AreaCategoryCode: seat.AreaCategoryCode, Position: p}
	}
	_, err = h.Ticketing.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: userSessionID, CinemaID: cinemaID, SessionID: sessionID, Seats: seats})
	h.SeatPlans.Invalidate(cinemaID, sessionID) // seats changed or refused: the next map reads them again
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Info("seats picked by the upstream kept: better seats refused", "err", err)
	}
}
