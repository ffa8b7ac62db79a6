package bff

// swapPaths are the routes of the swap flow.
var swapPaths = map[string]string{}

// registerSwapRoutes wires the swap flow.
func (s *Server) registerSwapRoutes() {}
