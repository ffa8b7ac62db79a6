package bff

// Routes of the "manage a booking" flow: find, view, edit, pay or refund the difference.
const (
	RouteFindBooking = "booking.find"
)

var bookingPaths = map[string]string{
	RouteFindBooking: "/booking",
}

// registerBookingRoutes wires the booking flow.
func (s *Server) registerBookingRoutes() {}
