package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// giveUpDuringSale is an upstream transport that, when the sale is being completed, makes the
// clerk's browser give up (giveUp) and holds the call a moment: a call still tied to the
// browser's request ends with it, as the ticketing system's call would be cut off.
type giveUpDuringSale struct {
	next   http.RoundTripper
	giveUp func()
}

func (s *giveUpDuringSale) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/order/payment") && s.giveUp != nil {
		s.giveUp()
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return s.next.RoundTrip(r)
}

// TestCounterSaleOutlivesTheClerksBrowser: the clerk's browser gives up (a closed tab, a
// second press) while a cash sale is being completed: the cash is in the till, so the sale is
// completed all the same, with its booking number in the audit trail.
func TestCounterSaleOutlivesTheClerksBrowser(t *testing.T) {
	tr := &giveUpDuringSale{}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		UpstreamTransport: func(next http.RoundTripper) http.RoundTripper { tr.next = next; return tr }})
	h.Enrol(device.Counter)
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	h.WalkInToCounterPayment(t)

	form := url.Values{"method": {"cash"}, "_csrf": {h.CSRFToken("/checkout/counter-payment")}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr.giveUp = cancel
	if status := h.PostGivenUp(ctx, "/checkout/counter-payment", form); status != 0 {
		t.Fatalf("the browser did not give up: %d", status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		rows := bfftest.AuditRows(t, h, audit.Filter{Actor: "carl"})
		if len(rows) > 0 && rows[0].Action == audit.ActionSale && rows[0].BookingNumber != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sale was not completed after the browser gave up: audit %+v, CompleteOrder calls %d", rows, h.SB.Calls("CompleteOrder"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCounterSaleWhoseAnswerIsLostIsFoundMade: the ticketing system completes a cash sale but
// its answer is lost on the way back: the order tells the sale was made, so the clerk gets the
// confirmation with its booking number, not a "sale failed" that asks for the money again.
func TestCounterSaleWhoseAnswerIsLostIsFoundMade(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		UpstreamTransport: func(next http.RoundTripper) http.RoundTripper {
			return bfftest.LoseAnswer{Next: next, Suffix: "/order/payment", Sent: true}
		}})
	h.Enrol(device.Counter)
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	h.WalkInToCounterPayment(t)
	resp, body := h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	confirmation := bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/")
	if number := strings.TrimSpace(h.Page(confirmation, http.StatusOK).Find(`[data-testid="booking-number"]`).Text()); number == "" {
		t.Fatal("the confirmation names no booking")
	}
	if rows := bfftest.AuditRows(t, h, audit.Filter{Actor: "carl"}); len(rows) == 0 || rows[0].Action != audit.ActionSale || rows[0].BookingNumber == 0 {
		t.Fatalf("audit: %+v", rows)
	}
}
