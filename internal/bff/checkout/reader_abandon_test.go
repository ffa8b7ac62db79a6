package checkout_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/settlement"
)

// kioskAtReader walks a kiosk guest from the session's tickets to "present your card": the
// reader asks for the order. It returns the reader page, the amount the summary said is due
// and the seats the order holds.
func kioskAtReader(t *testing.T, h *bfftest.Harness, qty url.Values) (status, due string, seats []cinema.SeatPosition) {
	t.Helper()
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, qty)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	seats = h.HeldSeats()
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	due = strings.TrimSpace(h.Page("/checkout", http.StatusOK).Find(`[data-testid="to-pay"]`).Text())
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	status = bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	return status, due, seats
}

// standIn calls the Stripe stand-in's API as the account's owner and decodes the answer into
// out (nil: not read).
func standIn(t *testing.T, h *bfftest.Harness, method, path string, form url.Values, out any) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, h.UpstreamURL+"/pay"+path, body)
	req.Header.Set("Authorization", "Bearer "+bfftest.TestPayKey)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s at the stand-in: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// readerAction is a reader's action as GET /v1/terminal/readers shows it.
type readerAction struct {
	Status               string `json:"status"`
	ProcessPaymentIntent struct {
		PaymentIntent string `json:"payment_intent"`
	} `json:"process_payment_intent"`
}

// readerActionsAtProvider reads GET /v1/terminal/readers from the Stripe stand-in, as the
// readers' owner sees them: each reader's action (nil when it asks for nothing).
func readerActionsAtProvider(t *testing.T, h *bfftest.Harness) map[string]*readerAction {
	t.Helper()
	var list struct {
		Data []struct {
			ID     string        `json:"id"`
			Action *readerAction `json:"action"`
		} `json:"data"`
	}
	standIn(t, h, http.MethodGet, "/v1/terminal/readers", nil, &list)
	out := map[string]*readerAction{}
	for _, r := range list.Data {
		out[r.ID] = r.Action
	}
	return out
}

// saleEntries are the ledger's card-reader sales.
func saleEntries(t *testing.T, h *bfftest.Harness) []ledger.Entry {
	t.Helper()
	es, _ := bfftest.Entries(t, h)
	var out []ledger.Entry
	for _, e := range es {
		if e.Kind == ledger.KindSale {
			out = append(out, e)
		}
	}
	return out
}

// TestKioskStartOverStopsTheReader: guest A reaches "present your card" and presses Start
// over. The reader asks for nothing any more and A's PaymentIntent is canceled at the provider;
// a card tapped afterwards pays nothing and books nothing, and A's seats are free again. Guest
// B's purchase then asks the reader for B's own amount, and B's tap books B's tickets.
func TestKioskStartOverStopsTheReader(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	statusA, dueA, seatsA := kioskAtReader(t, h, bfftest.TwoAdults())
	reader, actionA := h.ReaderAsking(t)

	resp, body := h.Post("/visit/reset", statusA, nil) // Start over on the reader's page
	bfftest.ExpectRedirect(t, resp, body, "/")

	if a := readerActionsAtProvider(t, h)[reader.ID]; a != nil {
		t.Fatalf("after Start over the reader still has an action: %+v", *a)
	}
	if pi, ok := h.Prov.Get(actionA.PaymentIntentID); !ok || pi.Status != payprovider.StatusCancelled {
		t.Fatalf("A's PaymentIntent after Start over: %+v", pi)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err == nil {
		t.Fatal("a card tapped after Start over was taken")
	}
	h.Srv.Reconcile(context.Background())
	for _, e := range saleEntries(t, h) {
		if e.State != ledger.StateFailed || e.BookingNumber != 0 {
			t.Fatalf("A's sale after Start over and a tap: %s booking %d (%s)", e.State, e.BookingNumber, e.LastError)
		}
	}
	if pi, _ := h.Prov.Get(actionA.PaymentIntentID); pi.Status == payprovider.StatusPaid {
		t.Fatalf("A's %s was paid after Start over", dueA)
	}
	for i, s := range h.SeatStates("1113", seatsA) {
		if s != cinema.SeatFree {
			t.Fatalf("A's seat %+v is still %v after Start over", seatsA[i], s)
		}
	}

	// Guest B: one ticket, a different amount, asked of the reader and paid.
	statusB, dueB, _ := kioskAtReader(t, h, url.Values{"qty-0001": {"1"}})
	if dueB == dueA {
		t.Fatalf("B's order costs what A's did (%s): the test cannot tell them apart", dueB)
	}
	_, actionB := h.ReaderAsking(t)
	if "€"+bfftest.CentsText(actionB.Amount) != dueB || actionB.PaymentIntentID == actionA.PaymentIntentID {
		t.Fatalf("the reader asks B for %d (%s); B owes %s", actionB.Amount, actionB.PaymentIntentID, dueB)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	to := h.FollowStatus(t, statusB)
	if !strings.HasPrefix(to, "/checkout/payments/") {
		t.Fatalf("after B's tap the page went to %q", to)
	}
	if doc := h.Page(to, http.StatusOK); doc.Find(`[data-testid="ticket-card"]`).Length() != 1 {
		t.Fatalf("B's confirmation: %s", doc.Find("main").Text())
	}
}

// refusedWhileReaderAsks checks that a gift card and a change of seats sent while the reader
// asks for €26.50 are refused in words and change nothing: the reader asks for the same
// payment, the seats asked for stay free, the order's own seats stay held.
func refusedWhileReaderAsks(t *testing.T, h *bfftest.Harness, token string, gift url.Values, held []cinema.SeatPosition, asked payprovider.ReaderAction) {
	t.Helper()
	other := []cinema.SeatPosition{{AreaNumber: 1, RowIndex: 1, ColumnIndex: 14}, {AreaNumber: 1, RowIndex: 1, ColumnIndex: 15}}
	for _, change := range []struct {
		what, path string
		form       url.Values
	}{
		{"a gift card", "/checkout/gift-card", gift},
		{"other seats", "/checkout/seats", url.Values{"seat": {bfftest.Seat(1, 1, 14), bfftest.Seat(1, 1, 15)}}},
	} {
		resp, body := h.PostToken(change.path, token, change.form)
		main := h.Doc(body).Find("main").Text()
		if resp.StatusCode != http.StatusConflict || !strings.Contains(main, "Cancel the card payment first") || !strings.Contains(main, "€26.50") {
			t.Fatalf("%s while the reader asks: %d %s", change.what, resp.StatusCode, main)
		}
	}
	if _, now := h.ReaderAsking(t); now.PaymentIntentID != asked.PaymentIntentID || now.Amount != 2650 {
		t.Fatalf("the reader after the refused changes asks %+v", now)
	}
	for i, s := range h.SeatStates("1113", other) {
		if s != cinema.SeatFree {
			t.Fatalf("seat %+v asked for while the reader asked is %v", other[i], s)
		}
	}
	if got := h.SeatStates("1113", held); got[0] != cinema.SeatHeld || got[1] != cinema.SeatHeld {
		t.Fatalf("the order's own seats are %v", got)
	}
}

// TestOrderChangesWaitForTheReader: while the reader asks for a kiosk guest's €26.50, a gift
// card sent from the summary's form (a second tab, or the form as it stood) and a change of
// seats are refused in words, and hold nothing. The guest cancels the card payment, uses the
// gift card and pays again: the reader asks for what is left, the tap books the order, the
// card paid exactly the booking's total less the gift card, and nothing had to be refunded.
func TestOrderChangesWaitForTheReader(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	status, _, held := kioskAtReader(t, h, bfftest.TwoAdults())
	reader, first := h.ReaderAsking(t)
	gift := url.Values{"card": {"6000000000000002"}, "pin": {"2222"}} // €10.00 on it
	// The forms as they stood before Pay (one token per visit): reading the summary again would
	// stop the reader, its page having been left.
	refusedWhileReaderAsks(t, h, h.CSRFToken(status), gift, held, first)

	// Cancel, the gift card (its whole balance is there), Pay again: the reader asks for the rest.
	resp, body := h.Post(status+"/cancel", status, nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Post("/checkout/gift-card", "/checkout", gift)
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	status = bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	_, second := h.ReaderAsking(t)
	if second.Amount != 1650 {
		t.Fatalf("after the gift card the reader asks for %d, want 1650", second.Amount)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	if to := h.FollowStatus(t, status); !strings.HasPrefix(to, "/checkout/payments/") {
		t.Fatalf("after the tap the page went to %q", to)
	}
	var sale ledger.Entry
	for _, e := range saleEntries(t, h) {
		if e.State == ledger.StateApplied {
			sale = e
		}
	}
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", sale.BookingNumber)
	if err != nil {
		t.Fatal(err)
	}
	pi, _ := h.Prov.Get(second.PaymentIntentID)
	if pi.Status != payprovider.StatusPaid || pi.AmountInCents != b.Total.Cents-1000 || sale.AmountCents != pi.AmountInCents {
		t.Fatalf("the card paid %d (%v), the booking's total is %d with €10.00 on the gift card; the sale says %d", pi.AmountInCents, pi.Status, b.Total.Cents, sale.AmountCents)
	}
	for _, id := range []string{first.PaymentIntentID, second.PaymentIntentID} {
		if refunds, _ := h.Prov.Refunds(id); len(refunds) != 0 {
			t.Fatalf("refunds of %s: %+v", id, refunds)
		}
	}
}

// TestKioskTapAsTheGuestStartsOver: a card is tapped in the instant the guest presses Start
// over, before anything took the payment up. Nothing is lost and the start screen tells the
// truth: the card's money goes straight back to it, the ledger says the order was given up,
// and no booking is made.
func TestKioskTapAsTheGuestStartsOver(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	h.Prov.SetWebhookURL("") // the provider's event would take the payment up first
	status, _, _ := kioskAtReader(t, h, bfftest.TwoAdults())
	reader, asked := h.ReaderAsking(t)
	token := h.CSRFToken(status)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	resp, body := h.PostToken("/visit/reset", token, nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	main := strings.Join(strings.Fields(h.Page("/", http.StatusOK).Find("main").Text()), " ")
	if !strings.Contains(main, "A card payment of €26.50 went through as the purchase was given up. No tickets were booked, and the €26.50 goes back to the card it came from.") {
		t.Fatalf("the start screen after the tap and Start over: %s", main)
	}
	h.Srv.Reconcile(context.Background())
	sale := saleEntries(t, h)[0]
	refunds, _ := h.Prov.Refunds(asked.PaymentIntentID)
	if sale.State != ledger.StateRefunded || sale.BookingNumber != 0 || len(refunds) != 1 || refunds[0].Amount != 2650 ||
		settlement.SaleReversalOf(sale) != settlement.SaleGivenUp {
		t.Fatalf("entry %s (%s) booking %d, refunds %+v", sale.State, sale.LastError, sale.BookingNumber, refunds)
	}
	if n := h.SB.Calls("CompleteOrder"); n != 0 {
		t.Fatalf("the given-up order was completed %d times", n)
	}
}

// secondTab is an upstream transport that, once armed, does what a second tab of the visit
// would do in the instant after the Pay press reset the order's hold: it uses a gift card on
// the order.
type secondTab struct {
	next  http.RoundTripper
	armed atomic.Bool
	apply func()
}

func (s *secondTab) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if strings.HasSuffix(r.URL.Path, "/order/reset-expiry") && s.armed.CompareAndSwap(true, false) {
		s.apply()
	}
	return resp, err
}

// TestReaderAsksOnlyTheOrderAsItIs: a gift card lands on the order (another tab) while Pay is
// starting the card payment for the amount read a moment before. The reader is never asked for
// that old amount: the guest is told the order changed and what the reader will ask, and the
// next Pay asks for what is left.
func TestReaderAsksOnlyTheOrderAsItIs(t *testing.T) {
	tab := &secondTab{}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		UpstreamTransport: func(next http.RoundTripper) http.RoundTripper { tab.next = next; return tab }})
	h.EnrolWithReader(device.Kiosk)
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	tab.apply = func() {
		ctx := context.Background()
		paying, err := h.Srv.Purchases.Pending(ctx, 10, time.Now().Add(time.Minute)) // starting ones too
		if err != nil || len(paying) != 1 {
			t.Errorf("the purchase being paid: %+v %v", paying, err)
			return
		}
		if _, err := h.Srv.Kernel.Ticketing.ApplyGiftCard(ctx, paying[0].UserSessionID, "6000000000000002", "2222", nil); err != nil {
			t.Errorf("the other tab's gift card: %v", err)
		}
	}
	tab.armed.Store(true)

	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	if tab.armed.Load() {
		t.Fatal("the other tab never used its gift card")
	}
	for _, r := range h.Prov.Readers() {
		if r.Action != nil {
			t.Fatalf("the reader was asked for %d although the order changed", r.Action.Amount)
		}
	}
	notice := h.Page("/checkout", http.StatusOK).Find(`[data-testid="notice-warning"]`).Text()
	if !strings.Contains(notice, "The order changed while the card payment was being started") || !strings.Contains(notice, "€16.50") {
		t.Fatalf("the summary after the order changed: %q", notice)
	}
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	if _, asked := h.ReaderAsking(t); asked.Amount != 1650 {
		t.Fatalf("the reader asks for %d, want 1650", asked.Amount)
	}
}

// TestKioskStartOverWhenTheReaderDoesNotAnswer: the provider's answers to stopping the reader
// are lost. Start over still ends the visit and cancels the order (its seats free), the start
// screen says the reader did not answer and that a late payment goes back by itself, and the
// payment, followed later, ends with nothing taken.
func TestKioskStartOverWhenTheReaderDoesNotAnswer(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	status, _, seats := kioskAtReader(t, h, bfftest.TwoAdults())
	token := h.CSRFToken(status)
	h.DropAfter.Store(10) // the provider stops the reader and cancels the intent; every answer is lost
	resp, body := h.PostToken("/visit/reset", token, nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	h.DropAfter.Store(0)
	main := strings.Join(strings.Fields(h.Page("/", http.StatusOK).Find("main").Text()), " ")
	if !strings.Contains(main, "The card reader did not answer when the purchase was given up.") {
		t.Fatalf("the start screen: %s", main)
	}
	for i, s := range h.SeatStates("1113", seats) {
		if s != cinema.SeatFree {
			t.Fatalf("seat %+v is %v after Start over", seats[i], s)
		}
	}
	sale := saleEntries(t, h)[0]
	if sale, _ = h.Srv.Settler.Advance(context.Background(), sale.ID); sale.State != ledger.StateFailed || sale.BookingNumber != 0 {
		t.Fatalf("the payment followed later: %s (%s)", sale.State, sale.LastError)
	}
}
