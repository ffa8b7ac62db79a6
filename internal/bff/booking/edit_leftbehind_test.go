package booking_test

import (
	"net/http"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestLookingUpAnotherBookingLetsTheEditGo: a change of one booking is under way (a ticket
// added) when the visit looks up another booking. The change's order is cancelled at the
// ticketing system, so the first booking keeps its seats as they were and can be changed again
// at once, instead of being refused as "being changed" until the order expires.
func TestLookingUpAnotherBookingLetsTheEditGo(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	h.AddOneTicket(t)
	cancels := h.SB.Calls("CancelOrder")

	h.Find(bfftest.BkPaid2)
	if n := h.SB.Calls("CancelOrder"); n != cancels+1 {
		t.Fatalf("%d CancelOrder calls after looking up another booking, want %d", n, cancels+1)
	}
	h.Find(bfftest.BkPaid1)
	resp, doc := h.Submit("/booking/edit/start", "/booking/current", nil)
	if resp.StatusCode != http.StatusOK || doc.Find("#edit-title").Length() == 0 {
		t.Fatalf("changing the first booking again: status %d: %s", resp.StatusCode, bfftest.Squash(doc.Find("main").Text()))
	}
	if seats := bfftest.BookingSeats(t, h, bfftest.BkPaid1); len(seats) != 2 || seats[1] != "F11" || seats[2] != "F12" {
		t.Errorf("the first booking has %v, want its two seats as they were", seats)
	}
}
