package booking

import "github.com/cinemabff/cinemabff/internal/bff/web"

// Routes registers the booking flow's handlers: finding and showing a booking, changing it,
// paying or refunding the difference (by the provider, or at the counter), the change's status.
func (s *Handler) Routes(route web.Register) {
	route("GET", web.RouteFindBooking, s.showFindBooking)
	route("POST", web.RouteFindBooking, s.findBooking)
	route("GET", web.RouteBooking, s.showBooking)
	route("POST", web.RouteBookingForget, s.forgetBooking)
	route("GET", web.RouteBookingTickets, s.showBookingTickets)
	route("GET", web.RouteBookingCalendar, s.showBookingCalendar)

	route("POST", web.RouteEditStart, s.startEdit)
	route("GET", web.RouteEdit, s.showEdit)
	route("POST", web.RouteEditAdd, s.addTickets)
	route("POST", web.RouteEditRemove, s.removeTicket)
	route("GET", web.RouteEditSeats, s.showEditSeats)
	route("POST", web.RouteEditSeats, s.setEditSeats)
	route("POST", web.RouteEditExtend, s.extendEdit)
	route("GET", web.RouteEditCancel, s.confirmCancelEdit)
	route("POST", web.RouteEditCancel, s.cancelEdit)
	route("POST", web.RouteEditComplete, s.completeEdit)
	route("GET", web.RouteEditReturn, s.editPaymentReturn)
	route("GET", web.RouteEditStatus, s.editPaymentStatus)
	route("POST", web.RouteEditReaderCancel, s.cancelOnReader)
	route("GET", web.RouteEditExpired, s.editExpired)
	route("GET", web.RouteShowtimes, s.showShowtimes)
	route("POST", web.RouteShowtimes, s.chooseShowtime)

	counters := s.CountersOnly()
	route("GET", web.RouteEditCounterPay, s.showEditCounterPay, counters)
	route("POST", web.RouteEditCounterPay, s.takeEditCounterPay, counters)
	route("POST", web.RouteEditGiveBack, s.giveBackAtCounter, counters)
}
