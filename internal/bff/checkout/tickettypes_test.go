package checkout_test

import (
	"net/http"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestTicketTypesAreShared: a session's ticket types are read once per listing
// interval for every visitor: ten views of booking pages of one show by two visits, and the
// show's ticket page, make one GetTicketTypes call.
func TestTicketTypesAreShared(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	other := h.Browser()
	h.Find(bfftest.BkPaid2)
	other.Find(bfftest.BkPaid3) // the same show, 1113
	before := h.SB.Calls("TicketTypes")
	for range 5 {
		h.Page("/booking/current", http.StatusOK)
		other.Page("/booking/current", http.StatusOK)
	}
	h.Page("/whats-on/0001/1113", http.StatusOK)
	if n := h.SB.Calls("TicketTypes") - before; n != 0 {
		t.Fatalf("%d TicketTypes calls for ten booking pages and the ticket page after the first read", n)
	}
	if h.SB.Calls("TicketTypes") != 1 {
		t.Fatalf("%d TicketTypes calls in all, want 1", h.SB.Calls("TicketTypes"))
	}
}
