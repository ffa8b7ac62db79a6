package bff

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// enrolWithReader enrols this browser as mode with a new simulated card reader (the provider's
// test mode), as a supervisor does on /device; whoever was signed in is signed out.
func (h *harness) enrolWithReader(mode device.Mode) {
	h.t.Helper()
	h.signInSupervisor()
	resp, body := h.post("/device", "/device", url.Values{"mode": {string(mode)}, "name": {"Reader " + string(mode)},
		"reader": {"new"}, "reader_code": {"simulated-wpe"}, "cinema": {"0001"}})
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("enrol as %s with a reader: %d %s", mode, resp.StatusCode, h.doc(body).Find("main").Text())
	}
	h.signOutStaff()
}

// readerAsking is the sandbox's reader with a payment in progress, and that action.
func (h *harness) readerAsking(t *testing.T) (payprovider.TerminalReader, payprovider.ReaderAction) {
	t.Helper()
	for _, r := range h.prov.Readers() {
		if r.Action != nil && r.Action.Status == payprovider.ActionInProgress {
			return r, *r.Action
		}
	}
	t.Fatalf("no reader asks for a card: %+v", h.prov.Readers())
	return payprovider.TerminalReader{}, payprovider.ReaderAction{}
}

// followStatus GETs the status page until it sends the browser elsewhere, and returns where.
func (h *harness) followStatus(t *testing.T, status string) string {
	t.Helper()
	for range 50 {
		resp, _ := h.get(status)
		if resp.StatusCode == http.StatusSeeOther {
			return resp.Header.Get("Location")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never moved on", status)
	return ""
}

// TestCounterTakesTheCardOnTheReader: at a counter with a card reader, a clerk sends the
// change's amount to the reader (no reference typed, no provider page): the reader asks for
// 1325; an approved tap pays it, the page moves on by itself and the booking carries the
// ticket, with a succeeded card-present payment of 1325 at the provider; giving the ticket back
// refunds 1325 to that payment. A declined card leaves the change open and says declined.
func TestCounterTakesTheCardOnTheReader(t *testing.T) {
	h := counterHarness(t)
	h.enrolWithReader(device.Counter)
	h.signInAs("carl", "clerk horse battery")
	h.counterFind("100002")
	h.counterAddAdult(t)
	for _, u := range []string{"/booking/edit", "/booking/edit/seats", "/booking/edit/counter-payment"} {
		strip := h.page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Text(), "Booking 100002") || strip.Find(`[data-testid="strip-who"]`).Text() == "" ||
			!strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €13.25") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	doc := h.page("/booking/edit/counter-payment", http.StatusOK)
	if doc.Find(`#method-reader[checked]`).Length() != 1 {
		t.Fatalf("the card reader is not the way offered first: %s", doc.Find("form").Text())
	}
	resp, _ := h.post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	status := resp.Header.Get("Location")
	if !strings.HasPrefix(status, "/booking/edit/status/") {
		t.Fatalf("the reader payment went to %q", status)
	}
	// Every page of the customer names them, the booking and what is due.
	for _, u := range []string{status} {
		strip := h.page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Text(), "Booking 100002") || strip.Find(`[data-testid="strip-who"]`).Text() == "" ||
			!strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €13.25") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	if doc := h.page(status, http.StatusOK); !strings.Contains(doc.Find("main").Text(), "Insert, tap or swipe the card on the reader") ||
		doc.Find(`[data-testid="reader-cancel"]`).Length() != 1 {
		t.Fatalf("the reader's page: %s", doc.Find("main").Text())
	}
	reader, action := h.readerAsking(t)
	if action.Amount != 1325 || action.PaymentIntentID == "" {
		t.Fatalf("the reader asks for %d (%s), want 1325", action.Amount, action.PaymentIntentID)
	}
	if err := h.prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	if to := h.followStatus(t, status); to != "/booking/current" {
		t.Fatalf("after the tap the page went to %q", to)
	}
	doc = h.page("/booking/current", http.StatusOK)
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid €13.25") {
		t.Fatalf("booking after the card: %q", changes)
	}
	pi, ok := h.prov.Get(action.PaymentIntentID)
	if !ok || pi.Status != payprovider.StatusPaid || pi.AmountInCents != 1325 {
		t.Fatalf("the provider's payment: %+v", pi)
	}

	// The customer gives the ticket back: 1325 goes back to that payment.
	doc = h.startEdit(t)
	added := doc.Find(`[data-testid="line-kept"][data-ticket]`).Last().AttrOr("data-ticket", "")
	h.submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {added}})
	h.submit("/booking/edit/complete", "/booking/edit", nil)
	if list, _ := h.prov.Refunds(action.PaymentIntentID); len(list) != 1 || list[0].Amount != 1325 {
		t.Fatalf("refunds of the card-present payment: %+v", list)
	}

	// A declined card: nothing taken, the change stays open, the page says declined.
	h.counterAddAdult(t)
	resp, _ = h.post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	status = resp.Header.Get("Location")
	reader, _ = h.readerAsking(t)
	if err := h.prov.PresentPaymentMethod(reader.ID, "4000000000000002"); err != nil {
		t.Fatal(err)
	}
	if to := h.followStatus(t, status); to != "/booking/edit/counter-payment" {
		t.Fatalf("after a declined card the page went to %q", to)
	}
	doc = h.page("/booking/edit/counter-payment", http.StatusOK)
	if !strings.Contains(doc.Find("main").Text(), "declined") {
		t.Fatalf("the payment page does not say declined: %s", doc.Find("main").Text())
	}
	if resp, _ := h.get("/booking/edit"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the change was not kept open: %d", resp.StatusCode)
	}
	es, _ := entries(t, h)
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
