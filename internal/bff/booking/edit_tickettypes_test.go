package booking_test

import (
	"net/http"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestEditPageReadsSharedTicketTypes: ten views of an edit page ask the ticketing system for
// the order each time but for the session's ticket types at most once (the shared listing
// cache), so a view costs one upstream call, not two.
func TestEditPageReadsSharedTicketTypes(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	h.StartEdit(t)
	types, orders := h.SB.Calls("TicketTypes"), h.SB.Calls("GetOrder")
	for range 10 {
		doc := h.Page("/booking/edit", http.StatusOK)
		if doc.Find(`[data-testid="stepper"] input[name="type"]`).Length() == 0 {
			t.Fatal("the edit page offers no tickets to add: the ticket types were not read")
		}
	}
	if n := h.SB.Calls("TicketTypes") - types; n > 1 {
		t.Errorf("%d TicketTypes calls for ten edit page views, want at most 1", n)
	}
	if n := h.SB.Calls("GetOrder") - orders; n != 10 {
		t.Errorf("%d GetOrder calls for ten edit page views, want 10 (the order is read fresh)", n)
	}
}
