package checkout

import "github.com/cinemabff/cinemabff/internal/bff/web"

// Routes registers the purchase flow's handlers: what's on, tickets, seats, details, the
// summary with gift cards and loyalty points, paying by redirect (or at the counter) and the
// landing page.
func (h *Handler) Routes(route web.Register) {
	route("GET", web.RouteWhatsOn, h.showWhatsOn)
	route("GET", web.RouteBuySession, h.showTickets)
	route("POST", web.RouteBuySession, h.chooseTickets)
	route("GET", web.RouteBuySeats, h.showBuySeats)
	route("POST", web.RouteBuySeats, h.chooseBuySeats)
	route("GET", web.RouteBuyDetails, h.showBuyDetails)
	route("POST", web.RouteBuyDetails, h.saveBuyDetails)
	route("GET", web.RouteBuySummary, h.showBuySummary)
	route("POST", web.RouteBuyGiftCard, h.applyGiftCard)
	route("POST", web.RouteBuyLoyalty, h.applyLoyalty)
	route("POST", web.RouteBuyExtend, h.extendBuyHold)
	route("GET", web.RouteBuyCancel, h.confirmCancelBuy)
	route("POST", web.RouteBuyCancel, h.cancelBuy)
	route("GET", web.RouteBuyExpired, h.buyExpired)
	route("POST", web.RouteBuyPay, h.startBuyPayment)
	route("GET", web.RouteBuyReturn, h.buyPaymentReturn)
	route("GET", web.RouteBuyCalendar, h.showBuyCalendar)
	route("GET", web.RouteBuyReader, h.showBuyReader)
	route("POST", web.RouteBuyReaderCancel, h.cancelBuyReader)

	counters := h.CountersOnly
	route("GET", web.RouteBuyCounterPay, h.showBuyCounterPay, counters)
	route("POST", web.RouteBuyCounterPay, h.takeBuyCounterPay, counters)
}
