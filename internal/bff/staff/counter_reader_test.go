package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// TestCounterTakesTheCardOnTheReader: at a counter with a card reader, a clerk sends the
// change's amount to the reader (no reference typed, no provider page): the reader asks for
// 1325; an approved tap pays it, the page moves on by itself and the booking carries the
// ticket, with a succeeded card-present payment of 1325 at the provider; giving the ticket back
// refunds 1325 to that payment. A declined card leaves the change open and says declined.
func TestCounterTakesTheCardOnTheReader(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.EnrolWithReader(device.Counter)
	h.SignInAs("carl", "clerk horse battery")
	h.CounterFind("100002")
	h.CounterAddAdult(t)
	for _, u := range []string{"/booking/edit", "/booking/edit/seats", "/booking/edit/counter-payment"} {
		strip := h.Page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Text(), "Booking 100002") || strip.Find(`[data-testid="strip-who"]`).Text() == "" ||
			!strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €13.25") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	doc := h.Page("/booking/edit/counter-payment", http.StatusOK)
	if doc.Find(`#method-reader[checked]`).Length() != 1 {
		t.Fatalf("the card reader is not the way offered first: %s", doc.Find("form").Text())
	}
	resp, _ := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	status := resp.Header.Get("Location")
	if !strings.HasPrefix(status, "/booking/edit/status/") {
		t.Fatalf("the reader payment went to %q", status)
	}
	// Every page of the customer names them, the booking and what is due.
	for _, u := range []string{status} {
		strip := h.Page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Text(), "Booking 100002") || strip.Find(`[data-testid="strip-who"]`).Text() == "" ||
			!strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €13.25") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	if doc := h.Page(status, http.StatusOK); !strings.Contains(doc.Find("main").Text(), "Insert, tap or swipe the card on the reader") ||
		doc.Find(`[data-testid="reader-cancel"][data-shortcut="Escape"] kbd`).Length() != 1 {
		t.Fatalf("the reader's page: %s", doc.Find("main").Text())
	}
	reader, action := h.ReaderAsking(t)
	if action.Amount != 1325 || action.PaymentIntentID == "" {
		t.Fatalf("the reader asks for %d (%s), want 1325", action.Amount, action.PaymentIntentID)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	if to := h.FollowStatus(t, status); to != "/booking/current" {
		t.Fatalf("after the tap the page went to %q", to)
	}
	doc = h.Page("/booking/current", http.StatusOK)
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid €13.25") {
		t.Fatalf("booking after the card: %q", changes)
	}
	pi, ok := h.Prov.Get(action.PaymentIntentID)
	if !ok || pi.Status != payprovider.StatusPaid || pi.AmountInCents != 1325 {
		t.Fatalf("the provider's payment: %+v", pi)
	}

	// The customer gives the ticket back: 1325 goes back to that payment.
	doc = h.StartEdit(t)
	added := doc.Find(`[data-testid="line-kept"][data-ticket]`).Last().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {added}})
	h.Submit("/booking/edit/complete", "/booking/edit", nil)
	if list, _ := h.Prov.Refunds(action.PaymentIntentID); len(list) != 1 || list[0].Amount != 1325 {
		t.Fatalf("refunds of the card-present payment: %+v", list)
	}

	// A declined card: nothing taken, the change stays open, the page says declined.
	h.CounterAddAdult(t)
	resp, _ = h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	status = resp.Header.Get("Location")
	reader, _ = h.ReaderAsking(t)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4000000000000002"); err != nil {
		t.Fatal(err)
	}
	if to := h.FollowStatus(t, status); to != "/booking/edit/counter-payment" {
		t.Fatalf("after a declined card the page went to %q", to)
	}
	doc = h.Page("/booking/edit/counter-payment", http.StatusOK)
	if !strings.Contains(doc.Find("main").Text(), "declined") {
		t.Fatalf("the payment page does not say declined: %s", doc.Find("main").Text())
	}
	if resp, _ := h.Get("/booking/edit"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the change was not kept open: %d", resp.StatusCode)
	}
	es, _ := bfftest.Entries(t, h)
	failed := 0
	for _, e := range es {
		if e.AtReader() && e.State == ledger.StateFailed {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("ledger after the declined card: %+v", es)
	}
}

// TestCounterBackFromTheChangesReaderStopsIt: Back from the reader's page of a change, to the
// counter's payment page or to the change itself, stops the reader and says so; a card tapped
// afterwards pays nothing, and the change stays open to pay again.
func TestCounterBackFromTheChangesReaderStopsIt(t *testing.T) {
	for _, back := range []string{"/booking/edit/counter-payment", "/booking/edit"} {
		t.Run(back, func(t *testing.T) {
			h := bfftest.CounterHarness(t)
			h.EnrolWithReader(device.Counter)
			h.SignInAs("carl", "clerk horse battery")
			h.CounterFind("100002")
			h.CounterAddAdult(t)
			resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
			bfftest.ExpectRedirect(t, resp, body, "/booking/edit/status/")
			reader, asked := h.ReaderAsking(t)

			doc := h.Page(back, http.StatusOK)
			if main := doc.Find("main").Text(); !strings.Contains(main, "stopped asking because its page was left") {
				t.Fatalf("%s reached by Back says: %s", back, main)
			}
			bfftest.WaitCancelled(t, h, asked.PaymentIntentID)
			if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err == nil {
				t.Fatal("a card tapped after Back was taken")
			}
			resp, body = h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
			bfftest.ExpectRedirect(t, resp, body, "/booking/edit/status/")
			if _, again := h.ReaderAsking(t); again.PaymentIntentID == asked.PaymentIntentID || again.Amount != 1325 {
				t.Fatalf("paying again asks the reader %+v", again)
			}
		})
	}
}
