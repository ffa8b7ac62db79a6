package bff

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/web/webtest"
	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Ready-made sandbox bookings (docs/sandbox.md), all cinema 0001.
const (
	bkPaid1       = 100001
	bkPaid2       = 100002
	bkPaid3       = 100003
	bkPaid4       = 100004
	bkPremium     = 100005 // one premium adult in Saal 1
	bkUnpaid      = 100010
	bkConcessions = 100011
	bkPackage     = 100012
	bkLoyalty     = 100013
	bkVoucher     = 100014
	bkPartner     = 100015
	bkInternal    = 100016
	bkInSeat      = 100017
	bkFeeChange   = 100018
)

var bookingEmails = map[int]string{
	bkPaid1: "paid1@example.com", bkPaid2: "paid2@example.com", bkPaid3: "paid3@example.com", bkPaid4: "paid4@example.com",
	bkUnpaid: "unpaid@example.com", bkConcessions: "concessions@example.com", bkPackage: "package@example.com",
	bkLoyalty: "loyalty@example.com", bkVoucher: "voucher@example.com", bkPartner: "partner@example.com",
	bkInternal: "internal@example.com", bkInSeat: "inseat@example.com", bkFeeChange: "feechange@example.com",
	bkPremium: "paid5@example.com",
}

// find looks a booking up and returns the booking page.
func (h *harness) find(number int) *goquery.Document {
	h.t.Helper()
	resp, body := h.post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(number)}, "email": {bookingEmails[number]}})
	if resp.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("find %d: status %d: %s", number, resp.StatusCode, body)
	}
	return h.page("/booking/current", http.StatusOK)
}

// page GETs a page and checks its status.
func (h *harness) page(path string, want int) *goquery.Document {
	h.t.Helper()
	resp, body := h.get(path)
	if resp.StatusCode != want {
		h.t.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, want, body)
	}
	return h.doc(body)
}

// submit POSTs a form scraped from tokenPage and follows redirects within the site to the
// final page; it returns that page and its status.
func (h *harness) submit(path, tokenPage string, form url.Values) (*http.Response, *goquery.Document) {
	h.t.Helper()
	resp, body := h.post(path, tokenPage, form)
	return h.follow(resp, body)
}

// follow follows 303/302 redirects (also to the payment provider) and returns the last answer.
func (h *harness) follow(resp *http.Response, body string) (*http.Response, *goquery.Document) {
	h.t.Helper()
	for i := 0; i < 10 && (resp.StatusCode == http.StatusSeeOther || resp.StatusCode == http.StatusFound); i++ {
		loc, err := resp.Location()
		if err != nil {
			h.t.Fatal(err)
		}
		resp, body = h.getURL(loc.String())
	}
	return resp, h.doc(body)
}

// getURL GETs an absolute URL (our site or the provider's page) with the visit's cookies.
func (h *harness) getURL(u string) (*http.Response, string) {
	h.t.Helper()
	resp, err := h.client.Get(u)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// startEdit starts an edit from the booking page and returns the edit page.
func (h *harness) startEdit(t testing.TB) *goquery.Document {
	t.Helper()
	resp, doc := h.submit("/booking/edit/start", "/booking/current", nil)
	if resp.StatusCode != http.StatusOK || doc.Find("#edit-title").Length() == 0 {
		t.Fatalf("start edit: status %d: %s", resp.StatusCode, doc.Text())
	}
	return doc
}

// payAtProvider answers the provider's hosted page at hostedURL with action (pay, decline,
// cancel) and follows the way back to our site.
func (h *harness) payAtProvider(t *testing.T, hostedURL, action string) (*http.Response, *goquery.Document) {
	t.Helper()
	resp, body := h.getURL(hostedURL)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Sandbox payment") {
		t.Fatalf("provider page %s: %d %s", hostedURL, resp.StatusCode, body)
	}
	if action == "decline" {
		// A declined card keeps the customer on the provider's page (Stripe Checkout); they
		// then turn back to us.
		r, err := h.client.PostForm(hostedURL, url.Values{"action": {"decline"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(b)), "declined") {
			t.Fatalf("declined card: %d %s", r.StatusCode, b)
		}
		action = "cancel"
	}
	r, err := h.client.PostForm(hostedURL, url.Values{"action": {action}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return h.follow(r, string(b))
}

func lineStates(doc *goquery.Document) map[string]int {
	out := map[string]int{}
	doc.Find(`[data-testid="edit-lines"] li`).Each(func(_ int, s *goquery.Selection) {
		out[strings.TrimPrefix(s.AttrOr("data-testid", ""), "line-")]++
	})
	return out
}

func text(doc *goquery.Document, testid string) string {
	return strings.TrimSpace(doc.Find(`[data-testid="` + testid + `"]`).First().Text())
}

// containsAmount reports whether text has prefix followed by the amount of cents euros, in
// English or German ("Paid: €13.25", "Paid: 13,25 €"): e-mails are written in the language of
// their booking, pages in the visitor's.
func containsAmount(t testing.TB, text, prefix string, cents int64) bool {
	t.Helper()
	en, de := webtest.Localizers(t)
	m := cinema.Money{Cents: cents, Currency: "EUR"}
	return strings.Contains(text, prefix+en.Money(m)) || strings.Contains(text, prefix+de.Money(m))
}
