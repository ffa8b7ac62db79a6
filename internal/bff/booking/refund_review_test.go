package booking_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// strangerPayments is a payment provider that knows none of the ticketing system's booking
// payments: a site whose ticketing system was paid through another provider account.
type strangerPayments struct{ upstream.Payments }

func (strangerPayments) GetPayment(context.Context, string) (upstream.Payment, error) {
	return upstream.Payment{}, &upstream.Error{Op: upstream.OpGetPayment, Kind: upstream.ErrNotFound, Description: "No such payment_intent"}
}

// TestRefundTheProviderCannotMakeGoesToNeedsAttention: against a ticketing system whose
// payments the payment provider does not know, removing a ticket and completing says in words
// (for a customer, for a clerk, in English and German) that nothing was refunded and the
// booking is unchanged, never a generic error page; the refund is listed under Needs attention
// once, however often Complete is pressed, and nothing moved at the provider.
func TestRefundTheProviderCannotMakeGoesToNeedsAttention(t *testing.T) {
	cases := []struct {
		name    string
		counter bool
		header  http.Header
		want    []string
		notWant string
	}{
		{"customer", false, nil, []string{"This refund cannot be made online", "nothing was refunded", "your booking has not changed"}, "cannot be used that way"},
		{"clerk", true, nil, []string{"This refund cannot be made online", "Nothing was refunded", "Needs attention"}, "box office"},
		{"Kundin", false, bfftest.GermanBrowser, []string{"Diese Erstattung ist online nicht möglich", "nichts erstattet", "Buchung ist unverändert"}, "cannot"},
		{"Kassierer", true, bfftest.GermanBrowser, []string{"Diese Erstattung ist online nicht möglich", "nichts erstattet", "Zu erledigen"}, "Kinokasse"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, WrapPayments: func(p upstream.Payments) upstream.Payments { return strangerPayments{p} }})
			if c.counter {
				h.Enrol(device.Counter)
				h.SignInSupervisor()
				h.CounterFind("100003")
			} else {
				h.Find(bfftest.BkPaid3)
			}
			doc := h.StartEdit(t)
			ticket := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
			h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {ticket}})
			var page *goquery.Document
			for range 2 { // a second press finds the same refund
				form := url.Values{"_csrf": {h.CSRFToken("/booking/edit")}}
				resp, body := h.Do("POST", "/booking/edit/complete", form, c.header)
				page = h.Doc(body)
				if resp.StatusCode != http.StatusConflict {
					t.Fatalf("complete: %d %s", resp.StatusCode, page.Find("main").Text())
				}
			}
			text := bfftest.Squash(page.Find("main").Text())
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page does not say %q: %s", w, text)
				}
			}
			if strings.Contains(text, c.notWant) {
				t.Errorf("the page says %q: %s", c.notWant, text)
			}
			es, _ := bfftest.Entries(t, h)
			if len(es) != 1 || es[0].Kind != ledger.KindRefund || es[0].State != ledger.StateFailed || es[0].RefundID != "" || es[0].BookingNumber != bfftest.BkPaid3 {
				t.Fatalf("the ledger: %+v, want one refund failed for review with nothing refunded", es)
			}
			if !strings.Contains(text, es[0].ID[:12]) {
				t.Errorf("the page does not name the refund's reference %s: %s", es[0].ID[:12], text)
			}
			if list, _ := h.Prov.Refunds("pi_seed100003"); len(list) != 0 {
				t.Errorf("the provider refunded: %+v", list)
			}
			staffer := h.FreshBrowser()
			staffer.SignInSupervisor()
			list := staffer.Page("/staff/attention", http.StatusOK)
			row := list.Find(`[data-testid="attention-item"][data-kind="` + string(attention.KindLedger) + `"][data-ref="` + es[0].ID + `"]`)
			if row.Length() != 1 || !strings.Contains(row.Text(), "100003") || !strings.Contains(row.Text(), "payment provider cannot give back") {
				t.Fatalf("Needs attention does not list the refund: %s", bfftest.Squash(list.Find("main").Text()))
			}
			if resp, _ := h.Get("/booking/edit"); resp.StatusCode != http.StatusOK {
				t.Errorf("the change is no longer open to cancel: %d", resp.StatusCode)
			}
		})
	}
}
