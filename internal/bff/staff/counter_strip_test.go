package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestStripNamesTheBookingLookedUpAfterASale: a clerk finishes a walk-in sale and, without
// "Next customer", looks up booking 100003: the customer strip names 100003, not the sale.
func TestStripNamesTheBookingLookedUpAfterASale(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	h.SignInAs("carl", "clerk horse battery")
	resp, body := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
	resp, body = h.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Walk In"}, "email": {"walkin@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/counter-payment")
	resp, body = h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}, "given": {"50"}, "confirm": {"1"}})
	done := bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/")
	sold := strings.TrimSpace(h.Page(done, http.StatusOK).Find(`[data-testid="booking-number"]`).Text())
	if sold == "" {
		t.Fatal("the sale's confirmation shows no booking number")
	}

	h.CounterFind("100003")
	what := bfftest.Squash(h.Page("/booking/current", http.StatusOK).Find(`[data-testid="strip-what"]`).Text())
	if !strings.Contains(what, "100003") || strings.Contains(what, sold) {
		t.Fatalf("after the look-up of 100003 the strip says %q (the sale was %s)", what, sold)
	}
}
