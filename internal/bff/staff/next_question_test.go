package staff_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestCounterNextCustomerAsksFirst: Next customer with a sale still open (its seats held) asks
// before letting go, as plain pages without JavaScript: the post without confirm releases
// nothing and leads to the question, which names the sale, offers the release (confirm=1, key
// y) and the way back to the page it was pressed on (Esc); the release then cancels the order
// and says what it released. With nothing open there is no question.
func TestCounterNextCustomerAsksFirst(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.SignInAs("carl", "clerk horse battery")
	h.BuyUpToDetails("1113", bfftest.TwoAdults())
	cancels := h.SB.Calls("CancelOrder")

	resp, body := h.Post("/staff/next-customer", "/checkout/details", url.Values{"from": {"/checkout/details"}})
	question := bfftest.ExpectRedirect(t, resp, body, "/staff/next-customer?from=%2Fcheckout%2Fdetails")
	if n := h.SB.Calls("CancelOrder"); n != cancels {
		t.Fatalf("Next customer released the open sale before asking (%d cancels)", n-cancels)
	}
	doc := h.Page(question, http.StatusOK)
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid="next-question"]`).Text()), " "); !strings.Contains(got, "Still open: 2 tickets for") {
		t.Errorf("the question does not name the open sale: %q", got)
	}
	yes := doc.Find(`[data-testid="next-confirm"]`)
	form := yes.Closest("form")
	if yes.AttrOr("data-shortcut", "") != "y" || form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != "/staff/next-customer" ||
		form.Find(`input[name="confirm"][value="1"]`).Length() != 1 || form.Find(`input[name="_csrf"]`).Length() != 1 {
		html, _ := goquery.OuterHtml(form)
		t.Errorf("the release is not a form with confirm=1 and key y: %s", html)
	}
	if keep := doc.Find(`[data-testid="next-keep"]`); keep.AttrOr("href", "") != "/checkout/details" || keep.AttrOr("data-shortcut", "") != "Escape" {
		html, _ := goquery.OuterHtml(keep)
		t.Errorf("the way back: %s", html)
	}
	// A look elsewhere does not end the sale: the question is still asked while it is open.
	if resp, _ := h.Get("/checkout/details"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the sale's page after the question: %d", resp.StatusCode)
	}

	_, doc = h.Submit("/staff/next-customer", question, url.Values{"confirm": {"1"}})
	if h.SB.Calls("CancelOrder") == cancels {
		t.Fatal("the confirmed release did not cancel the sale's order")
	}
	if got := doc.Find(`[data-testid="notice-success"]`).Text(); !strings.Contains(got, "Released: 2 tickets for") || !strings.Contains(got, "Ready for the next customer.") {
		t.Errorf("after the release: %q", got)
	}
	// Nothing open: no question, the look-up at once.
	resp, body = h.Post("/staff/next-customer", "/booking", nil)
	bfftest.ExpectRedirect(t, resp, body, "/booking")
	resp, body = h.Get("/staff/next-customer")
	bfftest.ExpectRedirect(t, resp, body, "/booking")
}
