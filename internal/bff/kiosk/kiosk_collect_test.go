package kiosk_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// pathCounter counts the requests the site's ticketing client sends, by path.
type pathCounter struct {
	mu    sync.Mutex
	paths map[string]int
	next  http.RoundTripper
}

func (p *pathCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.paths[r.URL.Path]++
	p.mu.Unlock()
	return p.next.RoundTrip(r)
}

// containing is how many requests went to a path containing part.
func (p *pathCounter) containing(part string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for path, c := range p.paths {
		if strings.Contains(path, part) {
			n += c
		}
	}
	return n
}

// TestKioskCollectUpstreamOnlyWhenConfigured: a collection by the scanned code is recorded by the
// site (tickets.Collections, with the kiosk) either way. Without the upstream's collection route
// configured (the default: the real ticketing API has no such operation) no request for it
// leaves the site and nothing is logged as a warning or failure; with it configured, the
// upstream is told once.
func TestKioskCollectUpstreamOnlyWhenConfigured(t *testing.T) {
	for _, tc := range []struct {
		name       string
		configured bool
		wantCalls  int
	}{
		{"unconfigured", false, 0},
		{"configured", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &bfftest.Log{}
			counter := &pathCounter{paths: map[string]int{}}
			h := bfftest.KioskHarness(t, bfftest.HarnessOpts{
				MarkCollected: tc.configured,
				Logger:        logs.Logger(),
				UpstreamTransport: func(next http.RoundTripper) http.RoundTripper {
					counter.next = next
					return counter
				},
			})
			code := bfftest.SignedTicketCode(t, h)
			resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {code + "\r\n"}})
			bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
			doc := h.Page("/kiosk/collect/tickets", http.StatusOK)
			if doc.Find(`[data-testid="ticket-card"]`).Length() == 0 {
				t.Fatal("no tickets to print")
			}
			if got := counter.containing("collected"); got != tc.wantCalls {
				t.Errorf("%d requests to the upstream's collection route, want %d (all: %v)", got, tc.wantCalls, counter.paths)
			}
			if got := int(h.SB.Calls("MarkBookingCollected")); got != tc.wantCalls {
				t.Errorf("the sandbox answered MarkBookingCollected %d times, want %d", got, tc.wantCalls)
			}
			if counter.containing("RESTBooking.svc/booking") == 0 {
				t.Error("the counting transport saw no booking look-up: it does not count the site's requests")
			}
			n, err := h.Srv.Collections.Count(context.Background(), "0001", 100002)
			if err != nil || n != 1 {
				t.Errorf("collections recorded by the site: %d %v, want 1", n, err)
			}
			latest, err := h.Srv.Collections.Latest(context.Background(), "0001", 100002)
			if err != nil || latest.DeviceID == "" || latest.At.IsZero() {
				t.Errorf("the record says neither when nor which kiosk: %+v %v", latest, err)
			}
			for _, line := range append(logs.Lines("level=WARN"), logs.Lines("level=ERROR")...) {
				t.Errorf("logged: %s", line)
			}
		})
	}
}
