package bff

// Routes of the purchase and redirect payment flow.
const (
	RouteWhatsOn     = "whatson"
	RouteBuySession  = "buy.session"
	RouteBuySeats    = "buy.seats"
	RouteBuyDetails  = "buy.details"
	RouteBuySummary  = "buy.summary"
	RouteBuyGiftCard = "buy.giftcard"
	RouteBuyLoyalty  = "buy.loyalty"
	RouteBuyExtend   = "buy.extend"
	RouteBuyCancel   = "buy.cancel"
	RouteBuyExpired  = "buy.expired"
	RouteBuyPay      = "buy.pay"
	RouteBuyReturn   = "buy.return"
)

// checkoutPaths are the routes of the checkout flow.
var checkoutPaths = map[string]string{
	RouteWhatsOn:     "/whats-on",
	RouteBuySession:  "/whats-on/:cinema/:session",
	RouteBuySeats:    "/checkout/seats",
	RouteBuyDetails:  "/checkout/details",
	RouteBuySummary:  "/checkout",
	RouteBuyGiftCard: "/checkout/gift-card",
	RouteBuyLoyalty:  "/checkout/loyalty",
	RouteBuyExtend:   "/checkout/extend",
	RouteBuyCancel:   "/checkout/cancel",
	RouteBuyExpired:  "/checkout/expired",
	RouteBuyPay:      "/checkout/pay",
	// The ReturnUrl: :ref is our unguessable payment record id; the provider appends ?token=.
	RouteBuyReturn: "/checkout/payments/:ref",
}

// registerCheckoutRoutes wires the checkout flow.
func (s *Server) registerCheckoutRoutes() {
	s.route("GET", RouteWhatsOn, s.showWhatsOn)
	s.route("GET", RouteBuySession, s.showTickets)
	s.route("POST", RouteBuySession, s.chooseTickets)
	s.route("GET", RouteBuySeats, s.showBuySeats)
	s.route("POST", RouteBuySeats, s.chooseBuySeats)
	s.route("GET", RouteBuyDetails, s.showBuyDetails)
	s.route("POST", RouteBuyDetails, s.saveBuyDetails)
	s.route("GET", RouteBuySummary, s.showBuySummary)
	s.route("POST", RouteBuyGiftCard, s.applyGiftCard)
	s.route("POST", RouteBuyLoyalty, s.applyLoyalty)
	s.route("POST", RouteBuyExtend, s.extendBuyHold)
	s.route("GET", RouteBuyCancel, s.confirmCancelBuy)
	s.route("POST", RouteBuyCancel, s.cancelBuy)
	s.route("GET", RouteBuyExpired, s.buyExpired)
	s.route("POST", RouteBuyPay, s.startBuyPayment)
	s.route("GET", RouteBuyReturn, s.buyPaymentReturn)
}
