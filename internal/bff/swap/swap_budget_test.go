package swap_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// TestSwapPageBudget measures the seat map page of the largest auditorium (412 places) as the
// server renders it, without the upstream: build the view model, render the map and the page
// frame. It reports the time per render and the HTML size before and after gzip, and fails
// above 15 KB compressed (docs/seatmap.md has the figures and the command). The page is
// rendered in German, the longer of the site's languages.
func TestSwapPageBudget(t *testing.T) {
	h := bfftest.SwapHarness(t, 100001)
	ctx := context.Background()
	// The booking as the page reads it: its tickets placed on the seat plan.
	rb, err := h.Srv.Bookings.Read(ctx, "0001", 100001)
	if err != nil || rb.Plan == nil {
		t.Fatalf("booking and plan: %v", err)
	}
	b, plan := rb.Booking, *rb.Plan
	if n := plan.Count(0) + plan.Count(1) + plan.Count(2) + plan.Count(3) + plan.Count(4); n != 412 {
		t.Fatalf("plan of %d places, want the 412-place auditorium", n)
	}
	render := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, bfftest.SwapPath(100001, ""), nil)
		sctx, err := h.Srv.Kernel.Sessions.Load(req.Context(), "") // the page frame reads the visit's session
		if err != nil {
			t.Fatal(err)
		}
		sctx = i18n.NewContext(sctx, h.Srv.Kernel.Langs.For(language.German))
		c := h.Srv.Echo.NewContext(req.WithContext(sctx), rec)
		if err := h.Srv.SwapFlow.RenderPage(c, http.StatusOK, b, &plan); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	page := render().Body.Bytes() // also fills the cinema cache, as on a live server
	if n := strings.Count(string(page), `class="seat`); n < 412 {
		t.Fatalf("the page shows %d seats, not the map of 412", n)
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			render()
		}
	})
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	_, _ = w.Write(page)
	_ = w.Close()
	t.Logf("swap page, 412 places: %.2f ms per render (%d allocs), %d bytes HTML, %d bytes gzip",
		float64(res.NsPerOp())/1e6, res.AllocsPerOp(), len(page), gz.Len())
	if gz.Len() > 15*1024 {
		t.Errorf("page is %d bytes compressed, budget 15 KB", gz.Len())
	}
}
