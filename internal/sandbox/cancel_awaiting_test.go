package sandbox

import (
	"strings"
	"testing"
	"time"
)

// TestCancelWhileAwaitingPayment: an order whose redirect payment never completes can be given
// up with CancelOrder: the seats are released and the connector never completes it, whether the
// customer paid (completion held back) or never decided.
func TestCancelWhileAwaitingPayment(t *testing.T) {
	h := newHarness(t, withCompletionDelay(-1))
	paid, pending := newID(), newID()
	h.wantOK(h.addTickets(paid, "0001", 1113, []string{"0001"}, "N5"))
	h.wantOK(h.addTickets(pending, "0001", 1113, []string{"0001"}, "N7"))
	start := func(id string) string {
		j := h.post("/RESTTicketing.svc/order/startexternalpayment", startPayment(id, "https://bff.example/return", true))
		h.wantOK(j)
		return h.str(j, "PaymentRedirectUrl")
	}
	payURL := start(paid)
	start(pending)
	h.payAtProvider(payURL, "pay")
	eventually(t, "paid", func() bool { return h.str(h.details(paid), "OrderWebPaymentData.PaymentStatus") == payPaid })
	time.Sleep(20 * time.Millisecond)
	if h.val(h.details(paid), "OrderIdentifiers.IsCompletedOrder") != false {
		t.Fatal("completed although completion is disabled")
	}
	for _, id := range []string{paid, pending} {
		h.wantOK(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": id}))
		h.wantCodes(h.details(id), 4, extOrderNotFound)
	}
	for _, seat := range []string{"N5", "N7"} {
		if st := h.seatStatus("0001", 1113, seat); st != seatEmpty {
			t.Fatalf("seat %s not released after the cancel: %d", seat, st)
		}
	}
	if h.srv.CompleteAwaiting(paid) {
		t.Fatal("a cancelled order was completed late")
	}
	// A completed order cannot be cancelled.
	done := newID()
	h.wantOK(h.addTickets(done, "0001", 1113, []string{"0001"}, "N9"))
	h.payAtProvider(start(done), "pay")
	eventually(t, "paid", func() bool { return h.str(h.details(done), "OrderWebPaymentData.PaymentStatus") == payPaid })
	if !h.srv.CompleteAwaiting(done) || h.srv.CompleteAwaiting(done) {
		t.Fatal("CompleteAwaiting did not complete the held-back order exactly once")
	}
	d := h.details(done)
	if h.val(d, "OrderIdentifiers.IsCompletedOrder") != true || !strings.HasPrefix(h.str(d, "OrderIdentifiers.VistaBookingId"), "BK") {
		t.Fatalf("late completion: %s", compact(d))
	}
	h.wantCodes(h.post("/RESTTicketing.svc/order/cancel", map[string]any{"UserSessionId": done}), 4, extOrderCompleted)
	if h.seatStatus("0001", 1113, "N9") != seatSold {
		t.Fatal("seat of the completed order not sold")
	}
}
