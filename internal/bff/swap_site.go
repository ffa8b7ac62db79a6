package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// newSwapFlow builds the swap flow's handler on s's clients and stores.
func (s *Server) newSwapFlow() *swap.Handler {
	return &swap.Handler{
		Site:      s.Visits,
		Sessions:  s.Sessions,
		Logger:    s.Logger,
		Ticketing: s.Ticketing,
		SeatPlans: s.SeatPlans,
		Bookings:  s.Bookings,
		Placed:    s.PlacedBookings,
		Links: swap.Links{
			FindBooking:    s.URL(web.RouteFindBooking),
			Booking:        s.URL(web.RouteBooking),
			BookingTickets: s.URL(web.RouteBookingTickets),
		},
	}
}
