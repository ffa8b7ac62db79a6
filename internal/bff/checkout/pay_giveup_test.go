package checkout_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// giveUpAfterStart is an upstream transport that lets the payment's start through and, as its
// answer comes back, makes the customer's browser give up the request (giveUp): a second
// press without JavaScript, a closed tab.
type giveUpAfterStart struct {
	next   http.RoundTripper
	giveUp func()
}

func (g *giveUpAfterStart) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(r)
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/startexternalpayment") && g.giveUp != nil {
		g.giveUp()
		time.Sleep(100 * time.Millisecond) // the browser's request is gone before the next step
	}
	return resp, err
}

// TestPaymentStartOutlivesTheBrowser: the browser gives up Pay just as the payment has been
// started at the upstream. The start is recorded all the same, so the next press goes to the
// same provider page at once, not to "your payment is starting" for ever.
func TestPaymentStartOutlivesTheBrowser(t *testing.T) {
	tr := &giveUpAfterStart{}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		UpstreamTransport: func(next http.RoundTripper) http.RoundTripper { tr.next = next; return tr }})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	form := url.Values{"_csrf": {h.CSRFToken("/checkout")}}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr.giveUp = cancel
	if status := h.PostGivenUp(ctx, "/checkout/pay", form); status != 0 {
		t.Fatalf("the browser did not give up: %d", status)
	}
	tr.giveUp = nil

	start := time.Now()
	resp, body := h.Do("POST", "/checkout/pay", form, nil)
	bfftest.ExpectRedirect(t, resp, body, h.UpstreamURL+"/pay/checkout/")
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the second press waited %v for a start already made", took)
	}
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 1 {
		t.Errorf("%d payment starts, want 1", n)
	}
}
