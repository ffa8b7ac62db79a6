package booking_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// TestEditPaymentReturnBindsToTheVisit: the provider's ids are in the payment page's address,
// so the way back is no key. A fresh browser that opens the success return address, or the
// provider's page and its Cancel, gets a page that names nothing of the booking (no number,
// seat, name or QR code), is given no access to it and changes nothing; the visit that started
// the payment then pays and completes as usual.
func TestEditPaymentReturnBindsToTheVisit(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	hosted := bfftest.StartPaidEdit(t, h)
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 {
		t.Fatalf("entries %+v", es)
	}
	entry := es[0]
	p, ok := h.Prov.Get(entry.ProviderPaymentID)
	if !ok {
		t.Fatalf("no provider payment %s", entry.ProviderPaymentID)
	}
	success := "/booking/edit/payment/" + entry.ID + "?token=" + url.QueryEscape(p.Token)

	stranger := h.FreshBrowser()
	neutral := func(what string, resp *http.Response, doc *goquery.Document) {
		t.Helper()
		main := doc.Find("main")
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(main.Text(), "Open this on the device you paid with") {
			t.Errorf("%s: %d %s", what, resp.StatusCode, main.Text())
		}
		for _, leak := range []string{"100002", "Ada", "Row ", "seat"} {
			if strings.Contains(main.Text(), leak) {
				t.Errorf("%s shows %q: %s", what, leak, main.Text())
			}
		}
		if main.Find(`[data-testid="ticket-card"], svg`).Length() != 0 {
			t.Errorf("%s shows tickets or QR codes", what)
		}
	}
	resp, body := stranger.Get(success)
	neutral("the success address", resp, stranger.Doc(body))
	resp, doc := stranger.PayAtProvider(t, hosted, "cancel")
	neutral("Cancel on the provider's page", resp, doc)
	if resp, _ := stranger.Get("/booking/current"); resp.StatusCode == http.StatusOK {
		t.Error("the stranger's browser was given the booking")
	}
	if p, _ := h.Prov.Get(entry.ProviderPaymentID); p.Status != "pending" {
		t.Errorf("the owner's payment is %s after the stranger's Cancel, want still open", p.Status)
	}

	_, doc = h.PayAtProvider(t, hosted, "pay")
	if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "Paid") {
		t.Fatalf("the owner after paying: %s", doc.Find("main").Text())
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 1 || es[0].State != ledger.StateApplied {
		t.Fatalf("entries %+v", es)
	}
}
