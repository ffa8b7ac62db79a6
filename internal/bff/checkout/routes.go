package checkout

import "github.com/cinemabff/cinemabff/internal/bff/web"

// Routes registers the purchase flow's handlers: what's on, tickets, seats, details, the
// summary with gift cards and loyalty points, paying by redirect (or at the counter) and the
// landing page.
func (s *Handler) Routes(route web.Register) {
	route("GET", web.RouteWhatsOn, s.showWhatsOn)
	route("GET", web.RouteBuySession, s.showTickets)
	route("POST", web.RouteBuySession, s.chooseTickets)
	route("GET", web.RouteBuySeats, s.showBuySeats)
	route("POST", web.RouteBuySeats, s.chooseBuySeats)
	route("GET", web.RouteBuyDetails, s.showBuyDetails)
	route("POST", web.RouteBuyDetails, s.saveBuyDetails)
	route("GET", web.RouteBuySummary, s.showBuySummary)
	route("POST", web.RouteBuyGiftCard, s.applyGiftCard)
	route("POST", web.RouteBuyLoyalty, s.applyLoyalty)
	route("POST", web.RouteBuyExtend, s.extendBuyHold)
	route("GET", web.RouteBuyCancel, s.confirmCancelBuy)
	route("POST", web.RouteBuyCancel, s.cancelBuy)
	route("GET", web.RouteBuyExpired, s.buyExpired)
	route("POST", web.RouteBuyPay, s.startBuyPayment)
	route("GET", web.RouteBuyReturn, s.buyPaymentReturn)
	route("GET", web.RouteBuyCalendar, s.showBuyCalendar)
	route("GET", web.RouteBuyReader, s.showBuyReader)
	route("POST", web.RouteBuyReaderCancel, s.cancelBuyReader)

	counters := s.CountersOnly()
	route("GET", web.RouteBuyCounterPay, s.showBuyCounterPay, counters)
	route("POST", web.RouteBuyCounterPay, s.takeBuyCounterPay, counters)
}
