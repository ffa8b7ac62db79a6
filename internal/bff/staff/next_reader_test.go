package staff_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// readerLetGo checks that the reader asks for nothing after Next customer, that the payment it
// asked for is cancelled at the provider, that a card tapped now takes nothing, and that the
// ledger ended the payment with nothing taken; it returns that entry.
func readerLetGo(t *testing.T, h *bfftest.Harness, reader payprovider.TerminalReader, asked payprovider.ReaderAction) ledger.Entry {
	t.Helper()
	if r, _ := h.Prov.Reader(reader.ID); r.Action != nil {
		t.Fatalf("after Next customer the reader still has an action: %+v", *r.Action)
	}
	if pi, _ := h.Prov.Get(asked.PaymentIntentID); pi.Status != payprovider.StatusCancelled {
		t.Fatalf("the card payment after Next customer: %+v", pi)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err == nil {
		t.Fatal("a card tapped after Next customer was taken")
	}
	h.Srv.Reconcile(context.Background())
	es, _ := bfftest.Entries(t, h)
	for _, e := range es {
		if e.ProviderPaymentID == asked.PaymentIntentID {
			if e.State != ledger.StateFailed {
				t.Fatalf("the reader's entry after Next customer: %s (%s)", e.State, e.LastError)
			}
			return e
		}
	}
	t.Fatalf("no ledger entry for %s: %+v", asked.PaymentIntentID, es)
	return ledger.Entry{}
}

// TestNextCustomerStopsTheReaderOfASale: a walk-in's tickets are on the reader when the clerk
// presses Next customer. The reader stops asking, its payment is cancelled, the order is
// cancelled (its seats free again), nothing is booked, and the clerk is ready for the next
// customer.
func TestNextCustomerStopsTheReaderOfASale(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.EnrolWithReader(device.Counter)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	seats := h.HeldSeats()
	status := h.WalkInToReader(t)
	reader, asked := h.ReaderAsking(t)

	resp, body := h.Post("/staff/next-customer", status, url.Values{"confirm": {"1"}})
	bfftest.ExpectRedirect(t, resp, body, "/booking")
	e := readerLetGo(t, h, reader, asked)
	if e.BookingNumber != 0 {
		t.Fatalf("a booking was made: %d", e.BookingNumber)
	}
	for i, s := range h.SeatStates("1113", seats) {
		if s != cinema.SeatFree {
			t.Fatalf("seat %+v of the let-go order is %v", seats[i], s)
		}
	}
	if doc := h.Page("/booking", http.StatusOK); !strings.Contains(doc.Find("main").Text(), "Ready for the next customer") || h.StaffUser() != "Carl Clerk" {
		t.Fatalf("after Next customer: %s", doc.Find("main").Text())
	}
}

// changeOnReader is a clerk at a counter with a card reader who adds an adult to booking
// 100002 and sends the difference to the reader: the harness, the booking before, and the
// change's status page.
func changeOnReader(t *testing.T) (h *bfftest.Harness, before cinema.Booking, status string) {
	t.Helper()
	h = bfftest.CounterHarness(t)
	h.EnrolWithReader(device.Counter)
	h.SignInAs("carl", "clerk horse battery")
	before, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	h.CounterFind("100002")
	h.CounterAddAdult(t)
	resp, body := h.Post("/booking/edit/counter-payment", "/booking/edit/counter-payment", url.Values{"method": {"reader"}})
	return h, before, bfftest.ExpectRedirect(t, resp, body, "/booking/edit/status/")
}

// TestNextCustomerStopsTheReaderOfAChange: the reader asks for a change's €13.25 when the clerk
// presses Next customer. The reader stops asking, its payment is cancelled, the change is let
// go (the booking keeps its tickets), and Next customer goes on instead of waiting for a
// payment nobody will make.
func TestNextCustomerStopsTheReaderOfAChange(t *testing.T) {
	h, before, status := changeOnReader(t)
	reader, asked := h.ReaderAsking(t)
	if asked.Amount != 1325 {
		t.Fatalf("the reader asks for %d", asked.Amount)
	}
	cancels := h.SB.Calls("CancelOrder")

	resp, body := h.Post("/staff/next-customer", status, url.Values{"confirm": {"1"}})
	bfftest.ExpectRedirect(t, resp, body, "/booking")
	readerLetGo(t, h, reader, asked)
	if n := h.SB.Calls("CancelOrder") - cancels; n != 1 {
		t.Fatalf("the edit order was cancelled %d times", n)
	}
	after, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil || len(after.Tickets) != len(before.Tickets) || after.Total != before.Total {
		t.Fatalf("booking 100002 after Next customer: %d tickets, %v (before: %d, %v) %v", len(after.Tickets), after.Total, len(before.Tickets), before.Total, err)
	}
	if resp, _ := h.Get("/booking/current"); resp.StatusCode == http.StatusOK {
		t.Fatal("the booking is still bound after Next customer")
	}
}

// TestNextCustomerLetsAChangeGoWhenTheReaderDoesNotAnswer: the reader asks for a change's
// €13.25 and the provider does not answer the request to stop it when the clerk presses Next
// customer. The change is let go all the same (its edit order cancelled, so a card tapped
// later cannot pay it for the next person), the booking keeps its tickets, and the clerk is
// told the reader did not answer.
func TestNextCustomerLetsAChangeGoWhenTheReaderDoesNotAnswer(t *testing.T) {
	h, before, status := changeOnReader(t)
	h.ReaderAsking(t)
	cancels := h.SB.Calls("CancelOrder")

	stops := []string{payprovider.OpTerminalReadersCancelAction, payprovider.OpPaymentIntentsCancel}
	for _, op := range stops {
		h.Prov.SetFailNext(op, 20, http.StatusServiceUnavailable)
	}
	resp, body := h.Post("/staff/next-customer", status, url.Values{"confirm": {"1"}})
	for _, op := range stops {
		h.Prov.SetFailNext(op, 0, 0)
	}
	bfftest.ExpectRedirect(t, resp, body, "/booking")
	if n := h.SB.Calls("CancelOrder") - cancels; n != 1 {
		t.Fatalf("the edit order was cancelled %d times, want once", n)
	}
	page := strings.Join(strings.Fields(h.Page("/booking", http.StatusOK).Find("main").Text()), " ")
	if !strings.Contains(page, "The card reader did not answer when the change was given up") {
		t.Fatalf("after Next customer: %s", page)
	}
	after, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil || len(after.Tickets) != len(before.Tickets) || after.Total != before.Total {
		t.Fatalf("booking 100002 after Next customer: %d tickets, %v (before: %d, %v) %v", len(after.Tickets), after.Total, len(before.Tickets), before.Total, err)
	}
}
