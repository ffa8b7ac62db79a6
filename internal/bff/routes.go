package bff

import (
	"net/http"

	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// registerRoutes wires every handler. Flows add their routes here, each in its own block.
func (s *Server) registerRoutes() {
	s.route("GET", web.RouteHome, s.home)
	s.route("POST", web.RouteVisitReset, s.Visits.ResetVisit)

	s.route("GET", web.RouteLivez, s.livez)
	s.route("GET", web.RouteReadyz, s.readyz)
	s.route("GET", web.RouteMetrics, s.Kernel.MetricsOnSite()) // 404 without -metrics-token (metrics.go)
	s.Echo.GET("/static/*", s.staticHandler())
	s.Echo.HEAD("/static/*", s.staticHandler())
	s.route("POST", web.RoutePaymentWebhook, s.paymentWebhook)

	s.bookingFlow.Routes(s.route)
	s.checkoutFlow.Routes(s.route)
	s.SwapFlow.Routes(s.route)
	s.walletFlow.Routes(s.route)
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		s.route(m, web.RouteWalletService, s.serveWalletService)
	}
	s.registerMailboxRoutes()
	s.kioskFlow.Routes(s.route)
	s.staffFlow.Routes(s.route)
}
