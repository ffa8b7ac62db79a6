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

// TestKioskSellsOnTheReader: a kiosk guest buys two tickets without a name or an e-mail
// address, pays on the kiosk's card reader (no provider page, no redirect payment upstream),
// and the page moves on by itself to the confirmation, which prints with Done as its primary
// action and lists the card payment. A declined card first leaves the order to pay again.
func TestKioskSellsOnTheReader(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout") // no name or e-mail asked
	doc := h.Page("/checkout", http.StatusOK)
	if who := doc.Find(`[data-testid="summary-who"]`).Text(); !strings.Contains(who, "printed here") {
		t.Fatalf("the kiosk summary says %q", who)
	}
	due := strings.TrimSpace(doc.Find(`[data-testid="to-pay"]`).Text())

	// A declined card: back to the summary, which says so; nothing booked.
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	status := bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	reader, action := h.ReaderAsking(t)
	if action.Amount <= 0 || "€"+bfftest.CentsText(action.Amount) != due {
		t.Fatalf("the reader asks for %d, the order is %s", action.Amount, due)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4000000000000002"); err != nil {
		t.Fatal(err)
	}
	if to := h.FollowStatus(t, status); to != "/checkout" {
		t.Fatalf("after a declined card the page went to %q", to)
	}
	if doc := h.Page("/checkout", http.StatusOK); !strings.Contains(doc.Find("main").Text(), "declined") {
		t.Fatalf("the summary does not say declined: %s", doc.Find("main").Text())
	}

	// Paid: the confirmation, with the card and printing.
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	status = bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	if doc := h.Page(status, http.StatusOK); doc.Find(`[data-testid="reader-waiting"]`).Length() != 1 || doc.Find(`[data-testid="reader-cancel"]`).Length() != 1 {
		t.Fatalf("the reader page: %s", doc.Find("main").Text())
	}
	reader, action = h.ReaderAsking(t)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	to := h.FollowStatus(t, status)
	if !strings.HasPrefix(to, "/checkout/payments/") {
		t.Fatalf("after the tap the page went to %q", to)
	}
	doc = h.Page(to, http.StatusOK)
	if doc.Find(`[data-testid="booking-number"]`).Text() == "" || doc.Find(`[data-testid="ticket-card"]`).Length() != 2 {
		t.Fatalf("confirmation: %s", doc.Find("main").Text())
	}
	if doc.Find(`[data-testid="kiosk-done"].button-primary`).Length() != 1 || doc.Find(`[data-autoprint]`).Length() != 1 {
		t.Fatalf("the kiosk confirmation neither prints nor ends with Done: %s", doc.Find(`[data-testid="confirmation-actions"]`).Text())
	}
	if pays := doc.Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Card") || !strings.Contains(pays, due) {
		t.Fatalf("confirmation payments: %q", pays)
	}
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a redirect payment was started at the kiosk (%d)", n)
	}
	pi, ok := h.Prov.Get(action.PaymentIntentID)
	if !ok || pi.Status != payprovider.StatusPaid || pi.AmountInCents != action.Amount {
		t.Fatalf("the provider's payment: %+v", pi)
	}
	es, _ := bfftest.Entries(t, h)
	applied := 0
	for _, e := range es {
		if e.Kind == ledger.KindSale && e.State == ledger.StateApplied && e.ProviderPaymentID == action.PaymentIntentID && e.BookingNumber != 0 {
			applied++
		}
	}
	if applied != 1 {
		t.Fatalf("ledger after the sale: %+v", es)
	}
}

// TestCounterSellsOnTheReader: a walk-in sale at a counter with a card reader: no name or
// e-mail, the review says where the tickets go without blanks, the amount goes to the reader,
// and the confirmation names the tender and the amount and has Print on a key.
func TestCounterSellsOnTheReader(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.EnrolWithReader(device.Counter)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	resp, body := h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	doc := h.Page("/checkout", http.StatusOK)
	if who := doc.Find(`[data-testid="summary-who"]`).Text(); !strings.Contains(who, "Walk-in") || strings.Contains(who, " ;") || strings.Contains(who, " .") {
		t.Fatalf("the walk-in review says %q", who)
	}
	for _, u := range []string{"/checkout/seats", "/checkout/details", "/checkout"} {
		strip := h.Page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Find(`[data-testid="strip-who"]`).Text(), "Walk-in") || !strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	resp, body = h.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/counter-payment")
	if doc := h.Page("/checkout/counter-payment", http.StatusOK); doc.Find(`#method-reader[checked]`).Length() != 1 {
		t.Fatalf("the card reader is not offered first: %s", doc.Find("form").Text())
	}
	resp, body = h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"reader"}})
	status := bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	// Every page of the walk-in names the customer and what is due.
	for _, u := range []string{status} {
		strip := h.Page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Find(`[data-testid="strip-who"]`).Text(), "Walk-in") || !strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	reader, action := h.ReaderAsking(t)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	to := h.FollowStatus(t, status)
	doc = h.Page(to, http.StatusOK)
	if doc.Find(`[data-testid="print"][data-shortcut="p"]`).Length() != 1 {
		t.Fatalf("Print has no key: %s", doc.Find(`[data-testid="confirmation-actions"]`).Text())
	}
	if pays := doc.Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Card") || !strings.Contains(pays, "€"+bfftest.CentsText(action.Amount)) {
		t.Fatalf("confirmation payments: %q", pays)
	}
}

// TestCounterCashSaleShowsTheChange: a walk-in pays cash; the confirmation names the tender,
// the amount taken, the cash given and the change, in the page's language.
func TestCounterCashSaleShowsTheChange(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	h.WalkInToCounterPayment(t)
	resp, body := h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}, "given": {"50"}, "confirm": {"1"}})
	to := bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/")
	doc := h.Page(to, http.StatusOK)
	pays := doc.Find(`[data-testid="payment"]`).Text()
	given, change := doc.Find(`[data-testid="cash-given"]`).Text(), doc.Find(`[data-testid="change-given"]`).Text()
	if !strings.Contains(pays, "Cash") || given != "€50.00" || change == "" {
		t.Fatalf("the cash sale's confirmation: payments %q, given %q, change %q", pays, given, change)
	}
	total := strings.TrimSpace(doc.Find(`[data-testid="total"]`).Text())
	if !strings.Contains(pays, total) {
		t.Fatalf("the amount taken %q is not the total %s", pays, total)
	}
}

// TestKioskChangesABookingFoundByItsTicket: at a kiosk with a card reader, a guest holds a
// printed ticket of 100001 under the scanner (no keyboard, no cinema asked), adds an Adult, and
// pays on the reader; the booking carries the ticket. A code of a ticket no longer in the
// booking finds nothing and says so; keys typed on the keypads survive a scan.
func TestKioskChangesABookingFoundByItsTicket(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.EnrolWithReader(device.Kiosk)
	doc := h.Page("/booking", http.StatusOK)
	if doc.Find(`select[name="cinema"]`).Length() != 0 || doc.Find(`#find-code[autofocus][inputmode="none"]`).Length() != 1 ||
		doc.Find(`[data-testid="number-keypad"]`).Length() != 1 || doc.Find(`[data-testid="email-keypad"]`).Length() != 1 {
		t.Fatalf("the kiosk's look-up: %s", doc.Find("main").Text())
	}
	// Keys typed, then a code that is no ticket: the typed digits stay.
	resp, body := h.Post("/booking", "/booking", url.Values{"number": {"1000"}, "email": {""}, "key": {"number:0"}})
	if resp.StatusCode != http.StatusOK || h.Doc(body).Find("#number").AttrOr("value", "") != "10000" {
		t.Fatalf("a keypad key: %d %q", resp.StatusCode, h.Doc(body).Find("#number").AttrOr("value", ""))
	}
	resp, body = h.Post("/booking", "/booking", url.Values{"number": {"10000"}, "email": {"a@b"}, "code": {"TKT1 booking=1 sig=bad"}})
	doc = h.Doc(body)
	if resp.StatusCode != http.StatusUnprocessableEntity || doc.Find(`[data-testid="find-scan-error"]`).Length() != 1 ||
		doc.Find("#number").AttrOr("value", "") != "10000" || doc.Find("#email").AttrOr("value", "") != "a@b" {
		t.Fatalf("a bad scan: %d, number %q, email %q: %s", resp.StatusCode, doc.Find("#number").AttrOr("value", ""), doc.Find("#email").AttrOr("value", ""), doc.Find("main").Text())
	}

	code := bfftest.TicketCodes(t, h, 100001)[0]
	resp, body = h.Post("/booking", "/booking", url.Values{"code": {code}, "number": {""}, "email": {""}})
	bfftest.ExpectRedirect(t, resp, body, "/booking/current")
	doc = h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body = h.Post("/booking/edit/complete", "/booking/edit", nil)
	status := bfftest.ExpectRedirect(t, resp, body, "/booking/edit/status/")
	reader, action := h.ReaderAsking(t)
	if action.Amount <= 0 {
		t.Fatalf("the reader asks for %d", action.Amount)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	if to := h.FollowStatus(t, status); to != "/booking/tickets" {
		t.Fatalf("after the tap the page went to %q", to)
	}
	// The kiosk prints the tickets as they are now, says what changed, and Done ends the visit.
	doc = h.Page("/booking/tickets", http.StatusOK)
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid €"+bfftest.CentsText(action.Amount)) {
		t.Fatalf("tickets after the card: %q", changes)
	}
	if doc.Find(`[data-testid="kiosk-done"].button-primary`).Length() != 1 || doc.Find(`[data-autoprint]`).Length() != 1 || doc.Find(`[data-testid="ticket-card"]`).Length() != 3 {
		t.Fatalf("the kiosk's tickets after the change: %s", doc.Find("main").Text())
	}
	if again := h.Page("/booking/tickets", http.StatusOK); again.Find(`[data-autoprint]`).Length() != 0 {
		t.Fatal("the tickets print again on a second look")
	}
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a web payment was started at the kiosk (%d)", n)
	}
}

// TestCounterBackFromTheReaderStopsIt: at the counter's "present your card", the clerk goes
// Back to the payment page. The reader stops asking, the page says so in the clerk's words, and
// a card tapped afterwards pays nothing; cash then completes the sale.
func TestCounterBackFromTheReaderStopsIt(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.EnrolWithReader(device.Counter)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	h.WalkInToReader(t)
	reader, asked := h.ReaderAsking(t)

	doc := h.Page("/checkout/counter-payment", http.StatusOK) // Back
	if main := doc.Find("main").Text(); !strings.Contains(main, "stopped asking because its page was left") {
		t.Fatalf("the payment page reached by Back says: %s", main)
	}
	bfftest.WaitCancelled(t, h, asked.PaymentIntentID)
	if r, _ := h.Prov.Reader(reader.ID); r.Action != nil && r.Action.Status == payprovider.ActionInProgress {
		t.Fatalf("after Back the reader still asks: %+v", *r.Action)
	}
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err == nil {
		t.Fatal("a card tapped after Back was taken")
	}
	resp, body := h.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}, "given": {"50"}, "confirm": {"1"}})
	to := bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/")
	if pays := h.Page(to, http.StatusOK).Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Cash") || strings.Contains(pays, "Card") {
		t.Fatalf("the sale after Back was paid by %q", pays)
	}
}
