package bff

// Routes of the "manage a booking" flow: find, view, edit, pay or refund the difference.
const (
	RouteFindBooking    = "booking.find"
	RouteBooking        = "booking.show"
	RouteBookingForget  = "booking.forget"
	RouteBookingTickets = "booking.tickets"
	RouteEdit           = "edit.show"
	RouteEditStart      = "edit.start"
	RouteEditAdd        = "edit.add"
	RouteEditRemove     = "edit.remove"
	RouteEditSeats      = "edit.seats"
	RouteEditExtend     = "edit.extend"
	RouteEditCancel     = "edit.cancel"
	RouteEditComplete   = "edit.complete"
	RouteEditReturn     = "edit.return"
	RouteEditStatus     = "edit.status"
	RouteEditExpired    = "edit.expired"
)

var bookingPaths = map[string]string{
	RouteFindBooking:    "/booking",
	RouteBooking:        "/booking/current",
	RouteBookingForget:  "/booking/forget",
	RouteBookingTickets: "/booking/tickets",
	RouteEdit:           "/booking/edit",
	RouteEditStart:      "/booking/edit/start",
	RouteEditAdd:        "/booking/edit/tickets",
	RouteEditRemove:     "/booking/edit/tickets/remove",
	RouteEditSeats:      "/booking/edit/seats",
	RouteEditExtend:     "/booking/edit/extend",
	RouteEditCancel:     "/booking/edit/cancel",
	RouteEditComplete:   "/booking/edit/complete",
	RouteEditReturn:     "/booking/edit/payment/:entry",
	RouteEditStatus:     "/booking/edit/status/:entry",
	RouteEditExpired:    "/booking/edit/expired",
}

// registerBookingRoutes wires the booking flow.
func (s *Server) registerBookingRoutes() {
	s.route("GET", RouteFindBooking, s.showFindBooking)
	s.route("POST", RouteFindBooking, s.findBooking)
	s.route("GET", RouteBooking, s.showBooking)
	s.route("POST", RouteBookingForget, s.forgetBooking)
	s.route("GET", RouteBookingTickets, s.showBookingTickets)

	s.route("POST", RouteEditStart, s.startEdit)
	s.route("GET", RouteEdit, s.showEdit)
	s.route("POST", RouteEditAdd, s.addTickets)
	s.route("POST", RouteEditRemove, s.removeTicket)
	s.route("GET", RouteEditSeats, s.showEditSeats)
	s.route("POST", RouteEditSeats, s.setEditSeats)
	s.route("POST", RouteEditExtend, s.extendEdit)
	s.route("GET", RouteEditCancel, s.confirmCancelEdit)
	s.route("POST", RouteEditCancel, s.cancelEdit)
	s.route("POST", RouteEditComplete, s.completeEdit)
	s.route("GET", RouteEditReturn, s.editPaymentReturn)
	s.route("GET", RouteEditStatus, s.editPaymentStatus)
	s.route("GET", RouteEditExpired, s.editExpired)
}
