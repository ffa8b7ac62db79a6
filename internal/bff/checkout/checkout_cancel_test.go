package checkout_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestBuyCancelAsksFirstAndSaysItWasDone: cancelling a purchase asks once,
// saying what will happen, and the next page says it was done.
func TestBuyCancelAsksFirstAndSaysItWasDone(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	doc := h.Page("/checkout", http.StatusOK)
	if doc.Find(`form[action="/checkout/cancel"]`).Length() != 0 || doc.Find(`a[data-testid="cancel-link"][href="/checkout/cancel"]`).Length() != 1 {
		t.Fatal("the summary cancels without asking")
	}
	// The question says what will happen; nothing is cancelled yet.
	doc = h.Page("/checkout/cancel", http.StatusOK)
	if !strings.Contains(doc.Find(`[data-testid="cancel-confirm-page"]`).Text(), "Your seats will be released and nothing will be charged.") ||
		doc.Find(`form[action="/checkout/cancel"] input[name="confirm"][value="yes"]`).Length() != 1 ||
		doc.Find(`a[data-testid="cancel-back"][href="/checkout"]`).Length() != 1 || doc.Find(`[data-testid="tickets"] li`).Length() != 2 {
		t.Fatalf("confirmation page: %s", doc.Find("main").Text())
	}
	// A POST without the confirmation (an old page, a replayed form) only asks.
	resp, body := h.Post("/checkout/cancel", "/checkout", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "nothing will be charged") || h.SB.Calls("CancelOrder") != 0 {
		t.Fatalf("unconfirmed cancel: %d, %d CancelOrder calls", resp.StatusCode, h.SB.Calls("CancelOrder"))
	}
	h.Page("/checkout", http.StatusOK) // still there
	// Confirmed: cancelled upstream, and the next page says so, once.
	resp, body = h.Post("/checkout/cancel", "/checkout/cancel", url.Values{"confirm": {"yes"}})
	loc := bfftest.ExpectRedirect(t, resp, body, "/whats-on?cinema=0001")
	if h.SB.Calls("CancelOrder") != 1 {
		t.Fatalf("%d CancelOrder calls", h.SB.Calls("CancelOrder"))
	}
	doc = h.Page(h.Local(loc), http.StatusOK)
	if got := doc.Find(`[data-testid="notice-success"]`).Text(); !strings.Contains(got, "Your purchase was cancelled: your seats were released and nothing was charged.") {
		t.Fatalf("no feedback after cancelling: %q", got)
	}
	if h.Page(h.Local(loc), http.StatusOK).Find(`[data-testid="notice-success"]`).Length() != 0 {
		t.Fatal("the feedback shows twice")
	}
	if resp, _ := h.Get("/checkout"); resp.StatusCode != http.StatusGone {
		t.Fatalf("purchase still in the visit: %d", resp.StatusCode)
	}
}
