package booking_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

const soldEmail = "walkin@example.com"

// sellOnKioskReader buys two tickets at a kiosk with a card reader (with an e-mail address for
// the tickets) and pays on the reader; it returns the booking number.
func sellOnKioskReader(t *testing.T, h *bfftest.Harness) string {
	t.Helper()
	kiosk := h.FreshBrowser()
	kiosk.EnrolWithReader(device.Kiosk)
	page := "/whats-on/0001/1113"
	resp, body := kiosk.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	resp, body = kiosk.Post("/checkout/seats", "/checkout/seats", kiosk.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = kiosk.Post("/checkout/details", "/checkout", url.Values{"email": {soldEmail}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = kiosk.Post("/checkout/pay", "/checkout", nil)
	status := bfftest.ExpectRedirect(t, resp, body, "/checkout/reader/")
	reader, _ := kiosk.ReaderAsking(t)
	if err := kiosk.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	return confirmedNumber(t, kiosk, kiosk.FollowStatus(t, status))
}

// sellForCash sells two tickets at a counter for cash to a customer with an e-mail address; it
// returns the booking number.
func sellForCash(t *testing.T, h *bfftest.Harness) string {
	t.Helper()
	counter := h.FreshBrowser()
	counter.Enrol(device.Counter)
	counter.SignInSupervisor()
	counter.BuyUpToDetails("1113", bfftest.TwoAdults())
	resp, body := counter.Post("/checkout/details", "/checkout/details", url.Values{"name": {"Walk In"}, "email": {soldEmail}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = counter.Post("/checkout/pay", "/checkout", nil)
	bfftest.ExpectRedirect(t, resp, body, "/checkout/counter-payment")
	resp, body = counter.Post("/checkout/counter-payment", "/checkout/counter-payment", url.Values{"method": {"cash"}})
	return confirmedNumber(t, counter, bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/"))
}

func confirmedNumber(t *testing.T, h *bfftest.Harness, confirmation string) string {
	t.Helper()
	doc := h.Page(confirmation, http.StatusOK)
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	if number == "" {
		t.Fatalf("no booking confirmed: %s", doc.Find("main").Text())
	}
	return number
}

// customerFinds looks the booking up as its customer does, by number and e-mail address.
func customerFinds(t *testing.T, h *bfftest.Harness, number string) {
	t.Helper()
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}, "email": {soldEmail}})
	bfftest.ExpectRedirect(t, resp, body, "/booking/current")
}

// TestBoxOfficeSaleOffersNoChange: a booking this site sold at a kiosk on its card reader, or
// at a counter for cash, was completed with the cinema's own payment, and the ticketing
// system changes only bookings paid through an external provider. Its booking page says so
// up front, for a clerk (never sending them to the box office) and for a customer (in English
// and German), offers neither a change nor a move to another show, and still offers other
// seats; a change asked for anyway (an old tab) is refused in the same words before the
// ticketing system is asked.
func TestBoxOfficeSaleOffersNoChange(t *testing.T) {
	sales := map[string]func(*testing.T, *bfftest.Harness) string{"kiosk reader": sellOnKioskReader, "counter cash": sellForCash}
	for name, sell := range sales {
		t.Run(name, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
			number := sell(t, h)

			clerk := h.FreshBrowser()
			clerk.Enrol(device.Counter)
			clerk.AddClerk("carl", "Carl Clerk", "clerk horse battery")
			clerk.SignInAs("carl", "clerk horse battery")
			clerk.CounterFind(number)
			doc := clerk.Page("/booking/current", http.StatusOK)
			wantNoChange(t, doc, "Sold at a box office or a kiosk", "Seats can still be swapped.")
			if doc.Find(`[data-testid="action-swap"] a.button-primary`).Length() != 1 {
				t.Errorf("the clerk's primary action is not Change seats: %s", doc.Find(`[data-testid="actions"]`).Text())
			}
			if text := doc.Find("main").Text(); strings.Contains(text, "ask at the box office") || strings.Contains(text, "Please ask") {
				t.Errorf("the clerk is sent to the box office: %s", bfftest.Squash(text))
			}
			refusedBeforeAsking(t, clerk, "The ticketing system changes and refunds only bookings paid through the online payment provider")

			customer := h.FreshBrowser()
			customerFinds(t, customer, number)
			doc = customer.Page("/booking/current", http.StatusOK)
			wantNoChange(t, doc, "This booking was paid at the cinema", "You can still change your seats.")
			doc = customer.GermanPage("/booking/current")
			wantNoChange(t, doc, "Diese Buchung wurde im Kino bezahlt", "Ihre Plätze können Sie weiterhin ändern.")
			refusedBeforeAsking(t, customer, "changes only bookings paid online")
		})
	}
}

// wantNoChange checks that the booking page says want up front, offers neither a change nor
// another show (both pointing to those words), and offers other seats, saying so (seats).
func wantNoChange(t *testing.T, doc *goquery.Document, want, seats string) {
	t.Helper()
	line := bfftest.Squash(doc.Find(`[data-testid="box-office-sale"]`).Text())
	if !strings.Contains(line, want) || !strings.Contains(line, seats) {
		t.Errorf("the booking page says %q, want %q and %q", line, want, seats)
	}
	for _, id := range []string{"action-edit", "action-showtime"} {
		a := doc.Find(`[data-testid="` + id + `"]`)
		if a.Length() != 1 || a.Find("form, a").Length() != 0 || a.Find(`button[disabled][aria-describedby="box-office-sale"]`).Length() != 1 {
			t.Errorf("%s is offered or does not point to why not: %s", id, bfftest.Squash(doc.Find(`[data-testid="actions"]`).Text()))
		}
	}
	if doc.Find(`[data-testid="action-swap"] a[href]`).Length() != 1 {
		t.Errorf("other seats are not offered: %s", bfftest.Squash(doc.Find(`[data-testid="actions"]`).Text()))
	}
}

// refusedBeforeAsking posts the start of a change anyway: refused in words, and the ticketing
// system is not asked.
func refusedBeforeAsking(t *testing.T, h *bfftest.Harness, want string) {
	t.Helper()
	before := h.SB.Calls("EditBooking")
	resp, body := h.Post("/booking/edit/start", "/booking/current", nil)
	text := bfftest.Squash(h.Doc(body).Find("main").Text())
	if resp.StatusCode != http.StatusConflict || !strings.Contains(text, want) {
		t.Errorf("a change asked for anyway: %d %s", resp.StatusCode, text)
	}
	if n := h.SB.Calls("EditBooking"); n != before {
		t.Errorf("the ticketing system was asked to change it (%d calls)", n-before)
	}
}

// TestOnlineBookingStillChangesAndRefusalsSpeakToStaff: a booking paid online says nothing of
// the box office and offers its change; one the ticketing system refuses for its payment
// (100016, paid through the service's own payment processing, which the booking record does
// not tell) is offered, and the refusal speaks to a clerk without sending them to the box
// office, and to a customer as before.
func TestOnlineBookingStillChangesAndRefusalsSpeakToStaff(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.CounterFind("100001")
	doc := h.Page("/booking/current", http.StatusOK)
	if doc.Find(`[data-testid="box-office-sale"]`).Length() != 0 || doc.Find(`[data-testid="action-edit"] form`).Length() != 1 {
		t.Fatalf("an online booking at the counter: %s", bfftest.Squash(doc.Find("main").Text()))
	}
	h.CounterFind("100016")
	resp, body := h.Post("/booking/edit/start", "/booking/current", nil)
	text := bfftest.Squash(h.Doc(body).Find("main").Text())
	if resp.StatusCode != http.StatusConflict || !strings.Contains(text, "not taken through the online payment provider") || strings.Contains(text, "box office") {
		t.Errorf("the ticketing system's refusal to a clerk: %d %s", resp.StatusCode, text)
	}
	customer := h.FreshBrowser()
	customer.Find(100016)
	resp, body = customer.Post("/booking/edit/start", "/booking/current", nil)
	if text := bfftest.Squash(customer.Doc(body).Find("main").Text()); resp.StatusCode != http.StatusConflict || !strings.Contains(text, "Please ask at the box office") {
		t.Errorf("the ticketing system's refusal to a customer: %d %s", resp.StatusCode, text)
	}
}
