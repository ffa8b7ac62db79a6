package bff

import (
	"net/http"
	"testing"
)

// TestBookingPageGETsDoNotWriteSessionStore: browsing never writes the session store. A new
// visit that only looks at pages is not stored at all; finding a booking (a POST) stores the
// visit once; from then on, GETs of the booking page (full and htmx) write nothing. The idle
// deadline is refreshed by a write at most every IdleTimeout/4 (7.5 minutes by default), which
// a test run never reaches.
func TestBookingPageGETsDoNotWriteSessionStore(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	for _, p := range []string{"/", "/whats-on", "/booking"} {
		h.page(p, http.StatusOK)
	}
	if n := h.store.commits.Load(); n != 0 {
		t.Fatalf("a visit that only looked at pages wrote the session store %d times", n)
	}
	h.find(bkPaid1)
	before := h.store.commits.Load()
	if before == 0 {
		t.Fatal("finding a booking did not store the visit")
	}
	for range 5 {
		h.page("/booking/current", http.StatusOK)
		h.do("GET", "/booking/current", nil, http.Header{"Hx-Request": {"true"}})
	}
	if n := h.store.commits.Load() - before; n != 0 {
		t.Fatalf("10 GETs of the booking page wrote the session store %d times", n)
	}
}
