package bff

// Routes of the purchase and redirect payment flow.
const (
	RouteWhatsOn = "whatson"
)

// checkoutPaths are the routes of the checkout flow.
var checkoutPaths = map[string]string{
	RouteWhatsOn: "/whats-on",
}

// registerCheckoutRoutes wires the checkout flow.
func (s *Server) registerCheckoutRoutes() {}
