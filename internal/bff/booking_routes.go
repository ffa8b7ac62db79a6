package bff

import "github.com/cinemabff/cinemabff/internal/bff/web"

// registerBookingRoutes wires the booking flow.
func (s *Server) registerBookingRoutes() {
	s.route("GET", web.RouteFindBooking, s.showFindBooking)
	s.route("POST", web.RouteFindBooking, s.findBooking)
	s.route("GET", web.RouteBooking, s.showBooking)
	s.route("POST", web.RouteBookingForget, s.forgetBooking)
	s.route("GET", web.RouteBookingTickets, s.showBookingTickets)

	s.route("POST", web.RouteEditStart, s.startEdit)
	s.route("GET", web.RouteEdit, s.showEdit)
	s.route("POST", web.RouteEditAdd, s.addTickets)
	s.route("POST", web.RouteEditRemove, s.removeTicket)
	s.route("GET", web.RouteEditSeats, s.showEditSeats)
	s.route("POST", web.RouteEditSeats, s.setEditSeats)
	s.route("POST", web.RouteEditExtend, s.extendEdit)
	s.route("GET", web.RouteEditCancel, s.confirmCancelEdit)
	s.route("POST", web.RouteEditCancel, s.cancelEdit)
	s.route("POST", web.RouteEditComplete, s.completeEdit)
	s.route("GET", web.RouteEditReturn, s.editPaymentReturn)
	s.route("GET", web.RouteEditStatus, s.editPaymentStatus)
	s.route("GET", web.RouteEditExpired, s.editExpired)
}
