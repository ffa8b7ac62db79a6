package bff

import (
	"net/http"
	"net/url"
	"testing"
)

// TestKioskPaysInApp: a payment started from a kiosk is marked in-app; from a customer's own
// browser it is not.
func TestKioskPaysInApp(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		inApp bool
	}{{"customer", false}, {"kiosk", true}} {
		t.Run(tc.mode, func(t *testing.T) {
			h := newHarness(t, harnessOpts{sandbox: true})
			if resp, _ := h.post("/device", "/device", url.Values{"mode": {tc.mode}}); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("set mode: %d", resp.StatusCode)
			}
			h.buyUpToSummary("1113", twoAdults())
			h.pressPay()
			started := h.sb.StartedPayments()
			if len(started) != 1 {
				t.Fatalf("%d payments started, want 1", len(started))
			}
			if started[0].InApp != tc.inApp || started[0].PaymentMethod != h.srv.paymentMethod {
				t.Fatalf("started %+v, want in-app %v and method %q", started[0], tc.inApp, h.srv.paymentMethod)
			}
		})
	}
}
