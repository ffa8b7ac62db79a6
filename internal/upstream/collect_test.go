package upstream_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wireshape"
)

// TestGoldenMarkBookingCollected: the request has the golden shape, both replies are read (first
// collection and a repeated one).
func TestGoldenMarkBookingCollected(t *testing.T) {
	g := newGolden(t)
	c := goldenClient(t, g)
	ctx := context.Background()
	first := time.Date(2026, 11, 22, 19, 5, 0, 0, time.UTC)
	for _, tc := range []struct {
		variant string
		want    upstream.Collection
	}{
		{"", upstream.Collection{Before: false, At: first}},
		{"again", upstream.Collection{Before: true, At: first}},
	} {
		t.Run("reply "+tc.variant, func(t *testing.T) {
			g.Use(upstream.OpMarkBookingCollected, tc.variant, 0)
			got, err := c.MarkBookingCollected(ctx, "0001", 100002)
			if err != nil {
				t.Fatal(err)
			}
			if got.Before != tc.want.Before || !got.At.Equal(tc.want.At) {
				t.Errorf("collection %+v, want %+v", got, tc.want)
			}
		})
	}
	want, err := os.ReadFile(filepath.Join("testdata", "golden", "MarkBookingCollected.request.json"))
	if err != nil {
		t.Fatal(err)
	}
	drifts, err := wireshape.Compare(want, g.Body(upstream.OpMarkBookingCollected), wireshape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drifts {
		t.Errorf("request drifts from the golden body: %s", d)
	}
	if got := string(g.Body(upstream.OpMarkBookingCollected)); got != `{"CinemaId":"0001","BookingNumber":"100002"}` {
		t.Errorf("request body %s", got)
	}

}

// TestMarkBookingCollectedPathIsRemappable: a deployment whose API names the operation
// otherwise maps it with -upstream-paths.
func TestMarkBookingCollectedPathIsRemappable(t *testing.T) {
	p, err := upstream.ParsePaths([]byte(`{"MarkBookingCollected":"POST RESTBooking.svc/booking/printed"}`))
	if err != nil {
		t.Fatal(err)
	}
	if op := p.Operation(http.MethodPost, "/RESTBooking.svc/booking/printed"); op != upstream.OpMarkBookingCollected {
		t.Fatalf("remapped route is %q", op)
	}
	if op := upstream.DefaultPaths().Operation(http.MethodPost, "/RESTBooking.svc/booking/collected"); op != upstream.OpMarkBookingCollected {
		t.Fatalf("default route is %q", op)
	}
}
