package bff

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/ledger"
)

// freshBrowser is another browser on the same site: no cookies of this visit.
func (h *harness) freshBrowser() *harness {
	jar, _ := cookiejar.New(nil)
	b := *h
	b.client = &http.Client{Jar: jar, CheckRedirect: h.client.CheckRedirect}
	return &b
}

// TestEditPaymentReturnBindsToTheVisit: the provider's ids are in the payment page's address,
// so the way back is no key. A fresh browser that opens the success return address, or the
// provider's page and its Cancel, gets a page that names nothing of the booking (no number,
// seat, name or QR code), is given no access to it and changes nothing; the visit that started
// the payment then pays and completes as usual.
func TestEditPaymentReturnBindsToTheVisit(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	hosted := startPaidEdit(t, h)
	es, _ := entries(t, h)
	if len(es) != 1 {
		t.Fatalf("entries %+v", es)
	}
	entry := es[0]
	p, ok := h.prov.Get(entry.ProviderPaymentID)
	if !ok {
		t.Fatalf("no provider payment %s", entry.ProviderPaymentID)
	}
	success := "/booking/edit/payment/" + entry.ID + "?token=" + url.QueryEscape(p.Token)

	stranger := h.freshBrowser()
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
	resp, body := stranger.get(success)
	neutral("the success address", resp, stranger.doc(body))
	resp, doc := stranger.payAtProvider(t, hosted, "cancel")
	neutral("Cancel on the provider's page", resp, doc)
	if resp, _ := stranger.get("/booking/current"); resp.StatusCode == http.StatusOK {
		t.Error("the stranger's browser was given the booking")
	}
	if p, _ := h.prov.Get(entry.ProviderPaymentID); p.Status != "pending" {
		t.Errorf("the owner's payment is %s after the stranger's Cancel, want still open", p.Status)
	}

	_, doc = h.payAtProvider(t, hosted, "pay")
	if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "Paid") {
		t.Fatalf("the owner after paying: %s", doc.Find("main").Text())
	}
	if es, _ := entries(t, h); len(es) != 1 || es[0].State != ledger.StateApplied {
		t.Fatalf("entries %+v", es)
	}
}
