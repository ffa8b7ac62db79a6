package bff

// Routes of the seat swap flow. The booking page links RouteSwap with the booking's cinema
// and number: s.url(RouteSwap, b.CinemaID, b.Number).
const (
	RouteSwap        = "swap.show"    // GET: choose tickets and new seats; POST: check the choice
	RouteSwapConfirm = "swap.confirm" // GET: the moves to confirm; POST: swap
	RouteSwapDone    = "swap.done"    // GET: old and new seats, read back after the swap
)

// swapPaths are the routes of the swap flow.
var swapPaths = map[string]string{
	RouteSwap:        "/bookings/:cinema/:number/seats",
	RouteSwapConfirm: "/bookings/:cinema/:number/seats/confirm",
	RouteSwapDone:    "/bookings/:cinema/:number/seats/done",
}

// registerSwapRoutes wires the swap flow.
func (s *Server) registerSwapRoutes() {
	s.route("GET", RouteSwap, s.showSwap)
	s.route("POST", RouteSwap, s.reviewSwap)
	s.route("GET", RouteSwapConfirm, s.showSwapConfirm)
	s.route("POST", RouteSwapConfirm, s.confirmSwap)
	s.route("GET", RouteSwapDone, s.showSwapDone)
}
