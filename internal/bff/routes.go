package bff

import (
	"strings"

	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	staffpages "github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/swap"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// Route names: every URL in the site is built from these (Server.url), never by string
// concatenation in handlers or views. paths is the one table of names and patterns.
const (
	RouteHome       = "home"
	RouteDevice     = "device"
	RouteVisitReset = "visit.reset"
	RouteLivez      = "livez"
	RouteReadyz     = "readyz"
	RouteMetrics    = "metrics"
)

// paths is the one table of route names and their patterns; each flow keeps its part in its
// own file (bookingPaths, checkoutPaths) or, for a flow package, beside its handler (swap.Paths,
// kiosk.Paths, staffpages.Paths).
var paths = web.MergeRoutes(map[string]string{
	RouteHome:       "/",
	RouteDevice:     "/device",
	RouteVisitReset: "/visit/reset",
	RouteLivez:      "/livez",
	RouteReadyz:     "/readyz",
	RouteMetrics:    "/metrics",

	RoutePaymentWebhook: "/payments/webhook",
}, bookingPaths, checkoutPaths, swap.Paths, staffPaths, mailboxPaths, kiosk.Paths, counterPaths, staffpages.Paths)

// registerRoutes wires every handler. Flows add their routes here, each in its own block.
func (s *Server) registerRoutes() {
	s.route("GET", RouteHome, s.home)
	s.route("GET", RouteDevice, s.showDevice)
	s.route("POST", RouteDevice, s.saveDevice, s.supervisorsOnly(s.url(RouteDevice)))
	s.route("POST", RouteVisitReset, s.resetVisit)

	s.route("GET", RouteLivez, s.livez)
	s.route("GET", RouteReadyz, s.readyz)
	s.route("GET", RouteMetrics, s.metricsOnSite()) // 404 without -metrics-token (metrics.go)
	s.echo.GET("/static/*", s.staticHandler())
	s.echo.HEAD("/static/*", s.staticHandler())
	s.route("POST", RoutePaymentWebhook, s.paymentWebhook)

	s.registerBookingRoutes()
	s.registerCheckoutRoutes()
	s.swapFlow.Routes(s.route)
	s.registerStaffRoutes()
	s.registerMailboxRoutes()
	s.kioskFlow.Routes(s.route)
	s.staffFlow.Routes(s.route)
	s.registerCounterRoutes()
}

// url builds the path of a named route, filling its :params in order and escaping them.
// An unknown name is a programming error caught by the route tests; it yields "/".
func (s *Server) url(name string, params ...any) string { return paths.Path(s.logger, name, params...) }

// absURL is url() made absolute with the configured public base URL (for ReturnUrl and links
// that leave the site).
func (s *Server) absURL(name string, params ...any) string {
	return strings.TrimSuffix(s.cfg.PublicURL.String(), "/") + s.url(name, params...)
}
