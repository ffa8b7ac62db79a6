package bff

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// TestKioskSellsOnTheReader: a kiosk guest buys two tickets without a name or an e-mail
// address, pays on the kiosk's card reader (no provider page, no redirect payment upstream),
// and the page moves on by itself to the confirmation, which prints with Done as its primary
// action and lists the card payment. A declined card first leaves the order to pay again.
func TestKioskSellsOnTheReader(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.enrolWithReader(device.Kiosk)
	page := "/whats-on/0001/1113"
	resp, body := h.post(page, page, twoAdults())
	expectRedirect(t, resp, body, "/checkout/seats")
	resp, body = h.post("/checkout/seats", "/checkout/seats", h.checkedSeats())
	expectRedirect(t, resp, body, "/checkout") // no name or e-mail asked
	doc := h.page("/checkout", http.StatusOK)
	if who := doc.Find(`[data-testid="summary-who"]`).Text(); !strings.Contains(who, "printed here") {
		t.Fatalf("the kiosk summary says %q", who)
	}
	due := strings.TrimSpace(doc.Find(`[data-testid="to-pay"]`).Text())

	// A declined card: back to the summary, which says so; nothing booked.
	resp, body = h.post("/checkout/pay", "/checkout", nil)
	status := expectRedirect(t, resp, body, "/checkout/reader/")
	reader, action := h.readerAsking(t)
	if action.Amount <= 0 || "€"+centsText(action.Amount) != due {
		t.Fatalf("the reader asks for %d, the order is %s", action.Amount, due)
	}
	if err := h.prov.PresentPaymentMethod(reader.ID, "4000000000000002"); err != nil {
		t.Fatal(err)
	}
	if to := h.followStatus(t, status); to != "/checkout" {
		t.Fatalf("after a declined card the page went to %q", to)
	}
	if doc := h.page("/checkout", http.StatusOK); !strings.Contains(doc.Find("main").Text(), "declined") {
		t.Fatalf("the summary does not say declined: %s", doc.Find("main").Text())
	}

	// Paid: the confirmation, with the card and printing.
	resp, body = h.post("/checkout/pay", "/checkout", nil)
	status = expectRedirect(t, resp, body, "/checkout/reader/")
	if doc := h.page(status, http.StatusOK); doc.Find(`[data-testid="reader-waiting"]`).Length() != 1 || doc.Find(`[data-testid="reader-cancel"]`).Length() != 1 {
		t.Fatalf("the reader page: %s", doc.Find("main").Text())
	}
	reader, action = h.readerAsking(t)
	if err := h.prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	to := h.followStatus(t, status)
	if !strings.HasPrefix(to, "/checkout/payments/") {
		t.Fatalf("after the tap the page went to %q", to)
	}
	doc = h.page(to, http.StatusOK)
	if doc.Find(`[data-testid="booking-number"]`).Text() == "" || doc.Find(`[data-testid="ticket-card"]`).Length() != 2 {
		t.Fatalf("confirmation: %s", doc.Find("main").Text())
	}
	if doc.Find(`[data-testid="kiosk-done"].button-primary`).Length() != 1 || doc.Find(`[data-autoprint]`).Length() != 1 {
		t.Fatalf("the kiosk confirmation neither prints nor ends with Done: %s", doc.Find(`[data-testid="confirmation-actions"]`).Text())
	}
	if pays := doc.Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Card") || !strings.Contains(pays, due) {
		t.Fatalf("confirmation payments: %q", pays)
	}
	if n := h.sb.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a redirect payment was started at the kiosk (%d)", n)
	}
	pi, ok := h.prov.Get(action.PaymentIntentID)
	if !ok || pi.Status != payprovider.StatusPaid || pi.AmountInCents != action.Amount {
		t.Fatalf("the provider's payment: %+v", pi)
	}
	es, _ := entries(t, h)
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
	h := counterHarness(t)
	h.enrolWithReader(device.Counter)
	h.signInAs("carl", "clerk horse battery")
	h.buyUpToDetails("1113", twoAdults())
	resp, body := h.post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	expectRedirect(t, resp, body, "/checkout")
	doc := h.page("/checkout", http.StatusOK)
	if who := doc.Find(`[data-testid="summary-who"]`).Text(); !strings.Contains(who, "Walk-in") || strings.Contains(who, " ;") || strings.Contains(who, " .") {
		t.Fatalf("the walk-in review says %q", who)
	}
	for _, u := range []string{"/checkout/seats", "/checkout/details", "/checkout"} {
		strip := h.page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Find(`[data-testid="strip-who"]`).Text(), "Walk-in") || !strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	resp, body = h.post("/checkout/pay", "/checkout", nil)
	expectRedirect(t, resp, body, "/checkout/counter-payment")
	if doc := h.page("/checkout/counter-payment", http.StatusOK); doc.Find(`#method-reader[checked]`).Length() != 1 {
		t.Fatalf("the card reader is not offered first: %s", doc.Find("form").Text())
	}
	resp, body = h.post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"reader"}})
	status := expectRedirect(t, resp, body, "/checkout/reader/")
	// Every page of the walk-in names the customer and what is due.
	for _, u := range []string{status} {
		strip := h.page(u, http.StatusOK).Find(`[data-testid="customer-strip"]`)
		if !strings.Contains(strip.Find(`[data-testid="strip-who"]`).Text(), "Walk-in") || !strings.Contains(strip.Find(`[data-testid="strip-due"]`).Text(), "To pay €") {
			t.Errorf("the customer strip on %s: %q", u, strip.Text())
		}
	}
	reader, action := h.readerAsking(t)
	if err := h.prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	to := h.followStatus(t, status)
	doc = h.page(to, http.StatusOK)
	if doc.Find(`[data-testid="print"][data-shortcut="p"]`).Length() != 1 {
		t.Fatalf("Print has no key: %s", doc.Find(`[data-testid="confirmation-actions"]`).Text())
	}
	if pays := doc.Find(`[data-testid="payment"]`).Text(); !strings.Contains(pays, "Card") || !strings.Contains(pays, "€"+centsText(action.Amount)) {
		t.Fatalf("confirmation payments: %q", pays)
	}
}

// TestCounterCashSaleShowsTheChange: a walk-in pays cash; the confirmation names the tender,
// the amount taken, the cash given and the change, in the page's language.
func TestCounterCashSaleShowsTheChange(t *testing.T) {
	h := counterHarness(t)
	h.signInAs("carl", "clerk horse battery")
	h.buyUpToDetails("1113", twoAdults())
	resp, body := h.post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {""}})
	expectRedirect(t, resp, body, "/checkout")
	resp, body = h.post("/checkout/pay", "/checkout", nil)
	expectRedirect(t, resp, body, "/checkout/counter-payment")
	resp, body = h.post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}, "given": {"50"}, "confirm": {"1"}})
	to := expectRedirect(t, resp, body, "/checkout/payments/")
	doc := h.page(to, http.StatusOK)
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

// centsText writes cents as the English pages do, without the currency: 2650 → "26.50".
func centsText(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// TestKioskChangesABookingFoundByItsTicket: at a kiosk with a card reader, a guest holds a
// printed ticket of 100001 under the scanner (no keyboard, no cinema asked), adds an Adult, and
// pays on the reader; the booking carries the ticket. A code of a ticket no longer in the
// booking finds nothing and says so; keys typed on the keypads survive a scan.
func TestKioskChangesABookingFoundByItsTicket(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.enrolWithReader(device.Kiosk)
	doc := h.page("/booking", http.StatusOK)
	if doc.Find(`select[name="cinema"]`).Length() != 0 || doc.Find(`#find-code[autofocus][inputmode="none"]`).Length() != 1 ||
		doc.Find(`[data-testid="number-keypad"]`).Length() != 1 || doc.Find(`[data-testid="email-keypad"]`).Length() != 1 {
		t.Fatalf("the kiosk's look-up: %s", doc.Find("main").Text())
	}
	// Keys typed, then a code that is no ticket: the typed digits stay.
	resp, body := h.post("/booking", "/booking", url.Values{"number": {"1000"}, "email": {""}, "key": {"number:0"}})
	if resp.StatusCode != http.StatusOK || h.doc(body).Find("#number").AttrOr("value", "") != "10000" {
		t.Fatalf("a keypad key: %d %q", resp.StatusCode, h.doc(body).Find("#number").AttrOr("value", ""))
	}
	resp, body = h.post("/booking", "/booking", url.Values{"number": {"10000"}, "email": {"a@b"}, "code": {"TKT1 booking=1 sig=bad"}})
	doc = h.doc(body)
	if resp.StatusCode != http.StatusUnprocessableEntity || doc.Find(`[data-testid="find-scan-error"]`).Length() != 1 ||
		doc.Find("#number").AttrOr("value", "") != "10000" || doc.Find("#email").AttrOr("value", "") != "a@b" {
		t.Fatalf("a bad scan: %d, number %q, email %q: %s", resp.StatusCode, doc.Find("#number").AttrOr("value", ""), doc.Find("#email").AttrOr("value", ""), doc.Find("main").Text())
	}

	code := ticketCodes(t, h, 100001)[0]
	resp, body = h.post("/booking", "/booking", url.Values{"code": {code}, "number": {""}, "email": {""}})
	expectRedirect(t, resp, body, "/booking/current")
	doc = h.startEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	_, doc = h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body = h.post("/booking/edit/complete", "/booking/edit", nil)
	status := expectRedirect(t, resp, body, "/booking/edit/status/")
	reader, action := h.readerAsking(t)
	if action.Amount <= 0 {
		t.Fatalf("the reader asks for %d", action.Amount)
	}
	if err := h.prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	if to := h.followStatus(t, status); to != "/booking/tickets" {
		t.Fatalf("after the tap the page went to %q", to)
	}
	// The kiosk prints the tickets as they are now, says what changed, and Done ends the visit.
	doc = h.page("/booking/tickets", http.StatusOK)
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Paid €"+centsText(action.Amount)) {
		t.Fatalf("tickets after the card: %q", changes)
	}
	if doc.Find(`[data-testid="kiosk-done"].button-primary`).Length() != 1 || doc.Find(`[data-autoprint]`).Length() != 1 || doc.Find(`[data-testid="ticket-card"]`).Length() != 3 {
		t.Fatalf("the kiosk's tickets after the change: %s", doc.Find("main").Text())
	}
	if again := h.page("/booking/tickets", http.StatusOK); again.Find(`[data-autoprint]`).Length() != 0 {
		t.Fatal("the tickets print again on a second look")
	}
	if n := h.sb.Calls("ExternalPaymentStarting"); n != 0 {
		t.Fatalf("a web payment was started at the kiosk (%d)", n)
	}
}
