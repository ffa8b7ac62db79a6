package bff

import (
	"context"
	"time"
)

// seatStatesTTL is how old the free/taken states on a seat map may be. Maps are read through
// s.seatPlans (internal/seatplans): concurrent views of one session share an upstream read
// and the plan is kept per session. A stale state is never used to decide: when seats are
// set the upstream answers "seats unavailable" for a seat taken meanwhile.
const seatStatesTTL = 2 * time.Second

// seatsAsOf is the time of a map's seat states, in the cinema's time zone, for the page to
// say how current the map is.
func (s *Server) seatsAsOf(ctx context.Context, cinemaID string, at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return at.In(s.cinemaByID(ctx, cinemaID).Location()).Format("15:04:05")
}
