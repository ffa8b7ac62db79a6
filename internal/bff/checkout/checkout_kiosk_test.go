package checkout_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestKioskNeverPaysOnAWebPage: a customer's browser pays on the provider's page (not
// in-app); a kiosk whose card reader is not set up sends nobody to a web page: it says it
// cannot take cards, and no payment is started.
func TestKioskNeverPaysOnAWebPage(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	h.PressPay()
	if started := h.SB.StartedPayments(); len(started) != 1 || started[0].InApp || started[0].PaymentMethod != h.Srv.PaymentMethod {
		t.Fatalf("the customer's payment: %+v", started)
	}

	k := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	k.Enrol(device.Kiosk)
	k.BuyUpToSummary("1113", bfftest.TwoAdults())
	if doc := k.Page("/checkout", http.StatusOK); doc.Find(`[data-testid="pay"]`).Length() != 0 || !strings.Contains(doc.Find("main").Text(), "cannot take cards") {
		t.Fatalf("the summary of a kiosk without a reader: %s", doc.Find("main").Text())
	}
	resp, _ := k.Post("/checkout/pay", "/checkout", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || len(k.SB.StartedPayments()) != 0 {
		t.Fatalf("Pay at a kiosk without a reader: %d, %d payments started", resp.StatusCode, len(k.SB.StartedPayments()))
	}
}

// TestBuyPaidInFullByGiftCard: when a gift card covers the whole order there is no redirect:
// the order is completed directly and the confirmation lists the gift card payment.
func TestBuyPaidInFullByGiftCard(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	resp, body := h.Post("/checkout/gift-card", "/checkout", url.Values{"card": {"6000000000000001"}, "pin": {"1234"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	_, body = h.Get("/checkout")
	if got := h.Doc(body).Find(`[data-testid="to-pay"]`).Text(); got != "€0.00" {
		t.Fatalf("to pay after a large gift card: %q", got)
	}
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	ret := bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/")
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a redirect payment was started for nothing to pay (%d)", n)
	}
	body = h.WaitForConfirmation(h.Local(ret), 5*time.Second)
	if pays := h.Doc(body).Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Gift card") {
		t.Fatalf("confirmation payments: %q", pays)
	}
}
