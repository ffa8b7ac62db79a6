package bff

import (
	"net/http"
	"testing"
)

// TestTicketTypesAreShared: a session's ticket types are read once per listing
// interval for every visitor: ten views of booking pages of one show by two visits, and the
// show's ticket page, make one GetTicketTypes call.
func TestTicketTypesAreShared(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	other := h.browser()
	h.find(bkPaid2)
	other.find(bkPaid3) // the same show, 1113
	before := h.sb.Calls("TicketTypes")
	for range 5 {
		h.page("/booking/current", http.StatusOK)
		other.page("/booking/current", http.StatusOK)
	}
	h.page("/whats-on/0001/1113", http.StatusOK)
	if n := h.sb.Calls("TicketTypes") - before; n != 0 {
		t.Fatalf("%d TicketTypes calls for ten booking pages and the ticket page after the first read", n)
	}
	if h.sb.Calls("TicketTypes") != 1 {
		t.Fatalf("%d TicketTypes calls in all, want 1", h.sb.Calls("TicketTypes"))
	}
}
