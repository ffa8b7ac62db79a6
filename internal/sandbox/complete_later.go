package sandbox

// CompleteAwaiting completes now a paid redirect order whose completion the connector held
// back (a completion delay of "never", or one still running), as a late connector would. It
// reports whether the order was completed: false for an unknown or cancelled order, one not
// awaiting its payment, or one whose payment is not paid. Tests use it for late completions.
func (s *Server) CompleteAwaiting(userSessionID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[userSessionID]
	if o == nil || o.state != orderAwaitingPayment || o.web == nil || o.web.status != payPaid {
		return false
	}
	s.finishRedirect(o.id, o.web.paymentID)
	return o.state == orderCompleted
}
