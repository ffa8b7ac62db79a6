package checkout

import (
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// Routes registers the purchase flow's handlers: what's on, tickets, seats, details, the
// summary with gift cards and loyalty points, paying by redirect (or at the counter) and the
// landing page.
func (h *Handler) Routes(r web.Router) {
	r.GET("/whats-on", h.showWhatsOn, "whatson")
	r.GET("/whats-on/:cinema/:session", h.showTickets, "buy.session")
	r.POST("/whats-on/:cinema/:session", h.chooseTickets, "buy.session")
	r.POST("/whats-on/:cinema/:session/leave", h.leaveLine, "buy.leave")
	r.GET("/checkout/seats", h.showBuySeats, "buy.seats")
	r.POST("/checkout/seats", h.chooseBuySeats, "buy.seats")
	r.GET("/checkout/details", h.showBuyDetails, "buy.details")
	r.POST("/checkout/details", h.saveBuyDetails, "buy.details")
	r.GET("/checkout", h.showBuySummary, "buy.summary")
	r.POST("/checkout/gift-card", h.applyGiftCard, "buy.giftcard")
	r.POST("/checkout/loyalty", h.applyLoyalty, "buy.loyalty")
	r.POST("/checkout/extend", h.extendBuyHold, "buy.extend")
	r.GET("/checkout/cancel", h.confirmCancelBuy, "buy.cancel")
	r.POST("/checkout/cancel", h.cancelBuy, "buy.cancel")
	r.GET("/checkout/expired", h.buyExpired, "buy.expired")
	r.POST("/checkout/pay", h.startBuyPayment, "buy.pay")
	r.GET("/checkout/payments/:ref", h.buyPaymentReturn, "buy.return")
	r.GET("/checkout/payments/:ref/calendar.ics", h.showBuyCalendar, "buy.calendar")
	r.GET("/checkout/reader/:entry", h.showBuyReader, "buy.reader")
	r.POST("/checkout/reader/:entry/cancel", h.cancelBuyReader, "buy.readercancel")

	counters := h.CountersOnly
	r.GET("/checkout/counter-payment", h.showBuyCounterPay, "buy.counterpay", counters)
	r.POST("/checkout/counter-payment", h.takeBuyCounterPay, "buy.counterpay", counters)
}
