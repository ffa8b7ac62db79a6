package checkout_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// TestKioskBackFromTheReaderStopsIt: a kiosk guest at "present your card" goes Back to the
// summary. The reader asks for nothing any more, its PaymentIntent is canceled, the summary
// says so in words and offers paying again (not the web's "I have paid"); a card tapped
// afterwards pays nothing. Paying again asks the reader anew, and the tap books the order.
func TestKioskBackFromTheReaderStopsIt(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	_, due, _ := kioskAtReader(t, h, bfftest.TwoAdults())
	reader, asked := h.ReaderAsking(t)

	doc := h.Page("/checkout", http.StatusOK) // Back
	main := doc.Find("main").Text()
	if !strings.Contains(main, "stopped asking because its page was left") || !strings.Contains(main, "Nothing was charged") {
		t.Fatalf("the summary reached by Back says: %s", main)
	}
	if doc.Find(`[data-testid="payment-underway"]`).Length() != 0 || strings.Contains(main, "I have paid") {
		t.Fatalf("the summary reached by Back still offers the payment under way: %s", main)
	}
	if doc.Find(`form[action="/checkout/pay"]`).Length() != 1 {
		t.Fatalf("the summary reached by Back offers no way to pay again: %s", main)
	}
	bfftest.WaitCancelled(t, h, asked.PaymentIntentID)
	if a := readerActionsAtProvider(t, h)[reader.ID]; a != nil {
		t.Fatalf("after Back the reader still has an action: %+v", *a)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err == nil {
		t.Fatal("a card tapped after Back was taken")
	}
	h.Srv.Reconcile(context.Background())
	for _, e := range saleEntries(t, h) {
		if e.State != ledger.StateFailed || e.BookingNumber != 0 {
			t.Fatalf("the sale after Back and a tap: %s booking %d (%s)", e.State, e.BookingNumber, e.LastError)
		}
	}

	resp, body := h.Post("/checkout/pay", "/checkout", nil)
	status := bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	_, again := h.ReaderAsking(t)
	if again.PaymentIntentID == asked.PaymentIntentID || "€"+bfftest.CentsText(again.Amount) != due {
		t.Fatalf("paying again asks the reader %+v; the order owes %s", again, due)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	if to := h.FollowStatus(t, status); !strings.HasPrefix(to, "/checkout/payments/") {
		t.Fatalf("after the tap the page went to %q", to)
	}
}
