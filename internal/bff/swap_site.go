package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// newSwapFlow builds the swap flow's handler on s's clients and stores.
func (s *Server) newSwapFlow() *swap.Handler {
	return &swap.Handler{
		Site:      s.Kernel,
		Visits:    s.Visits,
		Sessions:  s.Kernel.Sessions,
		Logger:    s.Kernel.Logger,
		Ticketing: s.Kernel.Ticketing,
		SeatPlans: s.Visits.SeatPlans,
		Bookings:  s.Visits.Bookings,
		Placed:    s.Visits.PlacedBookings,
		Links: swap.Links{
			FindBooking:    s.Kernel.URL(web.RouteFindBooking),
			Booking:        s.Kernel.URL(web.RouteBooking),
			BookingTickets: s.Kernel.URL(web.RouteBookingTickets),
		},
	}
}
