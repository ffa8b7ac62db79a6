package bff

import "github.com/cinemabff/cinemabff/internal/bff/web"

// registerCheckoutRoutes wires the checkout flow.
func (s *Server) registerCheckoutRoutes() {
	s.route("GET", web.RouteWhatsOn, s.showWhatsOn)
	s.route("GET", web.RouteBuySession, s.showTickets)
	s.route("POST", web.RouteBuySession, s.chooseTickets)
	s.route("GET", web.RouteBuySeats, s.showBuySeats)
	s.route("POST", web.RouteBuySeats, s.chooseBuySeats)
	s.route("GET", web.RouteBuyDetails, s.showBuyDetails)
	s.route("POST", web.RouteBuyDetails, s.saveBuyDetails)
	s.route("GET", web.RouteBuySummary, s.showBuySummary)
	s.route("POST", web.RouteBuyGiftCard, s.applyGiftCard)
	s.route("POST", web.RouteBuyLoyalty, s.applyLoyalty)
	s.route("POST", web.RouteBuyExtend, s.extendBuyHold)
	s.route("GET", web.RouteBuyCancel, s.confirmCancelBuy)
	s.route("POST", web.RouteBuyCancel, s.cancelBuy)
	s.route("GET", web.RouteBuyExpired, s.buyExpired)
	s.route("POST", web.RouteBuyPay, s.startBuyPayment)
	s.route("GET", web.RouteBuyReturn, s.buyPaymentReturn)
}
