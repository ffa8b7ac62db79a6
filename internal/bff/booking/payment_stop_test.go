package booking_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// TestBackFromThePaymentPageCanStopIt: a person sent to the provider's page for a change's
// difference comes back with the browser's Back, not the page's own back link. The change's
// page sends them to the payment's status, which offers to stop it; stopped, the payment can no
// longer be paid, and the change can be cancelled, leaving the booking as it was.
func TestBackFromThePaymentPageCanStopIt(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid2)
	h.AddOneTicket(t)
	hosted := h.CompleteToProvider(t)

	// Back: the change's page shows where its payment stands.
	resp, body := h.Get("/booking/edit")
	_, doc := h.Follow(resp, body)
	form := doc.Find(`[data-testid="payment-stop-form"]`)
	if form.Length() != 1 {
		t.Fatalf("no way to stop the payment on the status page: %s", bfftest.Squash(doc.Find("main").Text()))
	}
	stop := url.Values{"_csrf": {form.Find(`input[name="_csrf"]`).AttrOr("value", "")}}
	resp, body = h.Do("POST", form.AttrOr("action", ""), stop, nil)
	_, doc = h.Follow(resp, body)
	if doc.Find("#edit-title").Length() != 1 || !strings.Contains(doc.Text(), "nothing was charged") {
		t.Fatalf("after stopping: not back on the change with a message: %s", bfftest.Squash(doc.Find("main").Text()))
	}

	// The provider's page can no longer take the money.
	if _, page := h.GetURL(hosted); !strings.Contains(page, "has expired") {
		t.Errorf("the provider's page still takes the payment: %s", page)
	}
	resp, body = h.Post("/booking/edit/cancel", "/booking/edit/cancel", nil)
	_, doc = h.Follow(resp, body)
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 2 {
		t.Errorf("%d tickets after the change was cancelled, want the two booked", n)
	}
	es, _ := bfftest.Entries(t, h)
	for _, e := range es {
		if e.State == ledger.StatePaid || e.State == ledger.StateApplied {
			t.Errorf("a ledger entry was paid: %+v", e)
		}
	}
}
