package booking

import "github.com/cinemabff/cinemabff/internal/bff/web"

// Routes registers the booking flow's handlers: finding and showing a booking, changing it,
// paying or refunding the difference (by the provider, or at the counter), the change's status.
func (h *Handler) Routes(route web.Register) {
	route("GET", web.RouteFindBooking, h.showFindBooking)
	route("POST", web.RouteFindBooking, h.findBooking)
	route("GET", web.RouteBooking, h.showBooking)
	route("POST", web.RouteBookingForget, h.forgetBooking)
	route("GET", web.RouteBookingTickets, h.showBookingTickets)
	route("GET", web.RouteBookingCalendar, h.showBookingCalendar)

	route("POST", web.RouteEditStart, h.startEdit)
	route("GET", web.RouteEdit, h.showEdit)
	route("POST", web.RouteEditAdd, h.addTickets)
	route("POST", web.RouteEditRemove, h.removeTicket)
	route("GET", web.RouteEditSeats, h.showEditSeats)
	route("POST", web.RouteEditSeats, h.setEditSeats)
	route("POST", web.RouteEditExtend, h.extendEdit)
	route("GET", web.RouteEditCancel, h.confirmCancelEdit)
	route("POST", web.RouteEditCancel, h.cancelEdit)
	route("POST", web.RouteEditComplete, h.completeEdit)
	route("GET", web.RouteEditReturn, h.editPaymentReturn)
	route("GET", web.RouteEditStatus, h.editPaymentStatus)
	route("POST", web.RouteEditReaderCancel, h.cancelOnReader)
	route("GET", web.RouteEditExpired, h.editExpired)
	route("GET", web.RouteShowtimes, h.showShowtimes)
	route("POST", web.RouteShowtimes, h.chooseShowtime)

	counters := h.CountersOnly
	route("GET", web.RouteEditCounterPay, h.showEditCounterPay, counters)
	route("POST", web.RouteEditCounterPay, h.takeEditCounterPay, counters)
	route("POST", web.RouteEditGiveBack, h.giveBackAtCounter, counters)
}
