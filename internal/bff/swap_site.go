package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/swap"
)

// newSwapFlow builds the swap flow's handler on s's clients and stores.
func (s *Server) newSwapFlow() *swap.Handler {
	return &swap.Handler{
		Site:      s.Kernel,
		Visits:    s.Visits,
		Sessions:  s.Kernel.Sessions,
		Logger:    s.Kernel.Logger,
		Ticketing: s.Kernel.Ticketing,
		SeatPlans: s.SeatPlans,
		Bookings:  s.Bookings,
		Placed:    s.PlacedBookings,
	}
}
