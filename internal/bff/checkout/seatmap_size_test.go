package checkout_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"regexp"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestSeatPageSizeLargeAuditorium: the purchase seat page of the 412-place
// auditorium (sandbox Saal 1, session 1113) stays small on the wire. Each seat is rendered
// once; the list view is the same inputs laid out by CSS.
func TestSeatPageSizeLargeAuditorium(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.Get("/checkout/seats")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("seat page: %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	if n := doc.Find(`[data-testid="seatmap"] .seat-row > .seat`).Length(); n != 412 {
		t.Fatalf("%d seats drawn, want 412", n)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	_, _ = w.Write([]byte(body))
	_ = w.Close()
	t.Logf("seat page, 412 places: %d bytes HTML, %d bytes gzip", len(body), gz.Len())
	for _, c := range []struct {
		what       string
		got, limit int
	}{
		{"gzip", gz.Len(), 15 * 1024}, // 9.5 KB before the seat markup was trimmed
		{"raw", len(body), 90 * 1024}, // 146 KB before the seat markup was trimmed
	} {
		if c.got > c.limit {
			t.Errorf("%s: %d bytes, budget %d", c.what, c.got, c.limit)
		}
	}
}

// TestSeatPageReadsPlanOncePerTTL: seat map views within the seat states' TTL
// share one upstream read of the plan, and the page says how current the map is.
func TestSeatPageReadsPlanOncePerTTL(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	before := h.SB.Calls("SeatPlan")
	for range 3 {
		doc := h.Page("/checkout/seats", http.StatusOK)
		if got := doc.Find(`[data-testid="seat-states-as-of"]`).Text(); !regexp.MustCompile(`^Seats as of \d\d:\d\d\. `).MatchString(got) {
			t.Fatalf("freshness line %q", got)
		}
	}
	if got := h.SB.Calls("SeatPlan") - before; got > 1 {
		t.Errorf("3 views in a row read the seat plan %d times, want at most 1", got)
	}
}

// TestBookingPageReadsPlanThroughCache: the booking page places its tickets on the cached
// seat plan, so views in a row read the plan from the upstream at most once.
func TestBookingPageReadsPlanThroughCache(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	if h.SB.Calls("SeatPlan") == 0 {
		t.Fatal("the booking page does not read the seat plan: nothing to measure")
	}
	before := h.SB.Calls("SeatPlan")
	for range 3 {
		h.Page("/booking/current", http.StatusOK)
	}
	if got := h.SB.Calls("SeatPlan") - before; got > 1 {
		t.Errorf("3 booking page views read the seat plan %d times, want at most 1", got)
	}
}
