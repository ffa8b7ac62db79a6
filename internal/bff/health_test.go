package bff_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// TestReadyzReportsTheUpstreamBreaker: when the ticketing API keeps failing, the circuit opens,
// pages fail fast with a clear message, and /readyz says the upstream is not ready.
func TestReadyzReportsTheUpstreamBreaker(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	if resp, body := h.Get("/readyz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz before: %d %s", resp.StatusCode, body)
	}
	bfftest.MustFault(h, sandbox.Fault{Operation: "*", HTTPStatus: 503})
	var last string
	for i := 0; i < 6; i++ {
		resp, body := h.Post("/booking", "/device", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(100001 + i)}, "email": {"paid1@example.com"}})
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("lookup during an outage: %d", resp.StatusCode)
		}
		last = body
	}
	if !strings.Contains(last, "cannot be reached right now") {
		t.Fatalf("no clear outage message: %s", last)
	}
	resp, body := h.Get("/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "upstream") {
		t.Fatalf("readyz with the breaker open: %d %s", resp.StatusCode, body)
	}
}

// TestReadyzWarnsOfAnEndingPassCertificate: within 30 days of the Apple pass certificate's end
// /readyz still answers ready and says when it ends; before that it says nothing of it.
func TestReadyzWarnsOfAnEndingPassCertificate(t *testing.T) {
	apple, _ := bfftest.WalletIdentities(t)
	for name, tc := range map[string]struct {
		now  time.Time
		warn bool
	}{
		"a year before":   {apple.NotAfter().AddDate(-1, 0, 0), false},
		"ten days before": {apple.NotAfter().AddDate(0, 0, -10), true},
	} {
		h := bfftest.NewHarness(t, bfftest.HarnessOpts{Now: func() time.Time { return tc.now }})
		resp, body := h.Get("/readyz")
		if resp.StatusCode != http.StatusOK || strings.Contains(body, "expires on") != tc.warn {
			t.Errorf("%s: /readyz %d %q", name, resp.StatusCode, body)
		}
		if tc.warn && !strings.Contains(body, apple.NotAfter().UTC().Format("2006-01-02")) {
			t.Errorf("%s: /readyz does not say the day: %q", name, body)
		}
	}
}
