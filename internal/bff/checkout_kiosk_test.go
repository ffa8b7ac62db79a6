package bff

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/device"
)

// TestKioskNeverPaysOnAWebPage: a customer's browser pays on the provider's page (not
// in-app); a kiosk whose card reader is not set up sends nobody to a web page: it says it
// cannot take cards, and no payment is started.
func TestKioskNeverPaysOnAWebPage(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.buyUpToSummary("1113", twoAdults())
	h.pressPay()
	if started := h.sb.StartedPayments(); len(started) != 1 || started[0].InApp || started[0].PaymentMethod != h.srv.paymentMethod {
		t.Fatalf("the customer's payment: %+v", started)
	}

	k := newHarness(t, harnessOpts{sandbox: true})
	k.enrol(device.Kiosk)
	k.buyUpToSummary("1113", twoAdults())
	if doc := k.page("/checkout", http.StatusOK); doc.Find(`[data-testid="pay"]`).Length() != 0 || !strings.Contains(doc.Find("main").Text(), "cannot take cards") {
		t.Fatalf("the summary of a kiosk without a reader: %s", doc.Find("main").Text())
	}
	resp, _ := k.post("/checkout/pay", "/checkout", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || len(k.sb.StartedPayments()) != 0 {
		t.Fatalf("Pay at a kiosk without a reader: %d, %d payments started", resp.StatusCode, len(k.sb.StartedPayments()))
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
