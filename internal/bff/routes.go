package bff

import (
	"net/http"
)

// registerRoutes wires every handler. Flows add their routes here, each in its own block.
func (s *Server) registerRoutes() {
	r := s.Kernel.Router(s.Echo)
	r.GET("/", s.home, "home")
	r.POST("/visit/reset", s.Visits.ResetVisit, "visit.reset")

	r.GET("/livez", s.livez, "livez")
	r.GET("/readyz", s.readyz, "readyz")
	r.GET("/metrics", s.Kernel.MetricsOnSite(), "metrics") // 404 without -metrics-token (metrics.go)
	r.GET("/static/*", s.serveStatic, "static")
	r.Add(http.MethodHead, "/static/*", s.serveStatic, "static")
	r.POST("/payments/webhook", s.paymentWebhook, "payments.webhook")

	s.bookingFlow.Routes(r)
	s.checkoutFlow.Routes(r)
	s.SwapFlow.Routes(r)
	s.walletFlow.Routes(r)
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		r.Add(m, "/passkit/*", s.serveWalletService, "wallet.service")
	}
	s.registerMailboxRoutes(r)
	s.kioskFlow.Routes(r)
	s.staffFlow.Routes(r)
}
