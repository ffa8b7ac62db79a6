package web_test

import (
	"net/http"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestBookingPageGETsDoNotWriteSessionStore: browsing never writes the session store. A new
// visit that only looks at pages is not stored at all; finding a booking (a POST) stores the
// visit once; from then on, GETs of the booking page (full and htmx) write nothing. The idle
// deadline is refreshed by a write at most every IdleTimeout/4 (7.5 minutes by default), which
// a test run never reaches.
func TestBookingPageGETsDoNotWriteSessionStore(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	for _, p := range []string{"/", "/whats-on", "/booking"} {
		h.Page(p, http.StatusOK)
	}
	if n := h.Store.Commits.Load(); n != 0 {
		t.Fatalf("a visit that only looked at pages wrote the session store %d times", n)
	}
	h.Find(bfftest.BkPaid1)
	before := h.Store.Commits.Load()
	if before == 0 {
		t.Fatal("finding a booking did not store the visit")
	}
	for range 5 {
		h.Page("/booking/current", http.StatusOK)
		h.Do("GET", "/booking/current", nil, http.Header{"Hx-Request": {"true"}})
	}
	if n := h.Store.Commits.Load() - before; n != 0 {
		t.Fatalf("10 GETs of the booking page wrote the session store %d times", n)
	}
}
