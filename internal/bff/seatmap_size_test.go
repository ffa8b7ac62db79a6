package bff

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"regexp"
	"testing"
)

// TestSeatPageSizeLargeAuditorium: the purchase seat page of the 412-place
// auditorium (sandbox Saal 1, session 1113) stays small on the wire. Each seat is rendered
// once; the list view is the same inputs laid out by CSS.
func TestSeatPageSizeLargeAuditorium(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	page := "/whats-on/0001/1113"
	resp, body := h.post(page, page, twoAdults())
	expectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.get("/checkout/seats")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("seat page: %d", resp.StatusCode)
	}
	doc := h.doc(body)
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
	h := newHarness(t, harnessOpts{sandbox: true})
	page := "/whats-on/0001/1113"
	resp, body := h.post(page, page, twoAdults())
	expectRedirect(t, resp, body, "/checkout/seats")
	before := h.sb.Calls("SeatPlan")
	for range 3 {
		doc := h.page("/checkout/seats", http.StatusOK)
		if got := doc.Find(`[data-testid="seat-states-as-of"]`).Text(); !regexp.MustCompile(`^Seats as of \d\d:\d\d\. `).MatchString(got) {
			t.Fatalf("freshness line %q", got)
		}
	}
	if got := h.sb.Calls("SeatPlan") - before; got > 1 {
		t.Errorf("3 views in a row read the seat plan %d times, want at most 1", got)
	}
}

// TestBookingPageReadsPlanThroughCache: the booking page places its tickets on the cached
// seat plan, so views in a row read the plan from the upstream at most once.
func TestBookingPageReadsPlanThroughCache(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid1)
	if h.sb.Calls("SeatPlan") == 0 {
		t.Fatal("the booking page does not read the seat plan: nothing to measure")
	}
	before := h.sb.Calls("SeatPlan")
	for range 3 {
		h.page("/booking/current", http.StatusOK)
	}
	if got := h.sb.Calls("SeatPlan") - before; got > 1 {
		t.Errorf("3 booking page views read the seat plan %d times, want at most 1", got)
	}
}
