package bff

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/device"
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
			h.enrol(device.Mode(tc.mode))
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

// TestBuyPaidInFullByGiftCard: when a gift card covers the whole order there is no redirect:
// the order is completed directly and the confirmation lists the gift card payment.
func TestBuyPaidInFullByGiftCard(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.buyUpToSummary("1113", twoAdults())
	resp, body := h.post("/checkout/gift-card", "/checkout", url.Values{"card": {"6000000000000001"}, "pin": {"1234"}})
	expectRedirect(t, resp, body, "/checkout")
	_, body = h.get("/checkout")
	if got := h.doc(body).Find(`[data-testid="to-pay"]`).Text(); got != "€0.00" {
		t.Fatalf("to pay after a large gift card: %q", got)
	}
	resp, body = h.post("/checkout/pay", "/checkout", nil)
	ret := expectRedirect(t, resp, body, "/checkout/payments/")
	if n := h.sb.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a redirect payment was started for nothing to pay (%d)", n)
	}
	body = h.waitForConfirmation(h.local(ret), 5*time.Second)
	if pays := h.doc(body).Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Gift card") {
		t.Fatalf("confirmation payments: %q", pays)
	}
}
