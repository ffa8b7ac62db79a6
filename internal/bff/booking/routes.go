package booking

import (
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// Routes registers the booking flow's handlers: finding and showing a booking, changing it,
// paying or refunding the difference (by the provider, or at the counter), the change's status.
func (h *Handler) Routes(r web.Router) {
	r.GET("/booking", h.showFindBooking, "booking.find")
	r.POST("/booking", h.findBooking, "booking.find")
	r.GET("/booking/current", h.showBooking, "booking.show")
	r.POST("/booking/forget", h.forgetBooking, "booking.forget")
	r.GET("/booking/tickets", h.showBookingTickets, "booking.tickets")
	r.GET("/booking/calendar.ics", h.showBookingCalendar, "booking.calendar")

	r.POST("/booking/edit/start", h.startEdit, "edit.start")
	r.GET("/booking/edit", h.showEdit, "edit.show")
	r.POST("/booking/edit/tickets", h.addTickets, "edit.add")
	r.POST("/booking/edit/tickets/remove", h.removeTicket, "edit.remove")
	r.GET("/booking/edit/seats", h.showEditSeats, "edit.seats")
	r.POST("/booking/edit/seats", h.setEditSeats, "edit.seats")
	r.POST("/booking/edit/extend", h.extendEdit, "edit.extend")
	r.GET("/booking/edit/cancel", h.confirmCancelEdit, "edit.cancel")
	r.POST("/booking/edit/cancel", h.cancelEdit, "edit.cancel")
	r.POST("/booking/edit/complete", h.completeEdit, "edit.complete")
	r.GET("/booking/edit/payment/:entry", h.editPaymentReturn, "edit.return")
	r.GET("/booking/edit/status/:entry", h.editPaymentStatus, "edit.status")
	r.POST("/booking/edit/payment/:entry/stop", h.stopProviderPayment, "edit.stoppay")
	r.POST("/booking/edit/payment/:entry/reader-cancel", h.cancelOnReader, "edit.readercancel")
	r.GET("/booking/edit/expired", h.editExpired, "edit.expired")
	r.GET("/booking/showtimes", h.showShowtimes, "edit.showtimes")
	r.POST("/booking/showtimes", h.chooseShowtime, "edit.showtimes")

	counters := h.CountersOnly
	r.GET("/booking/edit/counter-payment", h.showEditCounterPay, "edit.counterpay", counters)
	r.POST("/booking/edit/counter-payment", h.takeEditCounterPay, "edit.counterpay", counters)
	r.POST("/booking/edit/refund/:entry/given-back", h.giveBackAtCounter, "edit.giveback", counters)
}
