package kiosk_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestKioskBookingShowsNoWebOnlyParts: a booking found on a kiosk ends with "Done" (the visit's
// reset), not the web's "forget this booking on this device"; its change page shows no offers
// (words with nothing to tap), where the web's change page lists them.
func TestKioskBookingShowsNoWebOnlyParts(t *testing.T) {
	web := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	web.Find(bfftest.BkPaid2)
	web.StartEdit(t)
	if web.Page("/booking/edit", http.StatusOK).Find(`[data-testid="deals"] li`).Length() == 0 {
		t.Fatal("the web's change page lists no offers: nothing to compare the kiosk with")
	}

	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	h.Find(bfftest.BkPaid2)
	doc := h.Page("/booking/current", http.StatusOK)
	if text := doc.Find("main").Text(); strings.Contains(strings.ToLower(text), "this device") {
		t.Errorf("the kiosk's booking page speaks of this device: %q", bfftest.Squash(doc.Find(`[data-testid="booking-end"]`).Text()))
	}
	end := doc.Find(`[data-testid="booking-end"]`)
	if got := bfftest.Squash(end.Text()); got != "Done" {
		t.Errorf("the kiosk's booking page ends with %q, want Done", got)
	}
	if action, _ := end.Closest("form").Attr("action"); action != "/visit/reset" {
		t.Errorf("Done posts to %q, want the visit's reset", action)
	}
	h.StartEdit(t)
	if n := h.Page("/booking/edit", http.StatusOK).Find(`[data-testid="deals"]`).Length(); n != 0 {
		t.Error("the kiosk's change page lists offers with nothing to tap")
	}
}
