package bff

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// TestTwoTabsStartOnePayment: two "Pay and confirm" presses at the same moment (two tabs, a
// double click) lead to the same provider payment.
func TestTwoTabsStartOnePayment(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid1)
	doc := h.startEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	tok := h.csrfToken("/booking/edit")
	var wg sync.WaitGroup
	locs := make([]string, 4)
	for i := range locs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", h.ts.URL+"/booking/edit/complete", strings.NewReader(url.Values{"_csrf": {tok}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := h.client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			locs[i] = resp.Header.Get("Location")
		}()
	}
	wg.Wait()
	es, _ := entries(t, h)
	if len(es) != 1 {
		t.Fatalf("%d ledger entries for one payment", len(es))
	}
	p, _ := h.prov.Get(es[0].ProviderPaymentID)
	for _, l := range locs {
		if l != h.prov.HostedURL(p.ID) && !strings.Contains(l, "/booking/edit/status/") {
			t.Fatalf("a press went to %q, not the one payment %q", l, h.prov.HostedURL(p.ID))
		}
	}
}

// TestNoChangesWhilePaying: once the payment has started, the order cannot be changed or
// cancelled under it.
func TestNoChangesWhilePaying(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid2)
	doc := h.startEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	tok := h.csrfToken("/booking/edit")
	resp, _ := h.do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d", resp.StatusCode)
	}
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/booking/edit/tickets", url.Values{"type": {typ}, "qty": {"1"}}},
		{"/booking/edit/tickets/remove", url.Values{"ticket": {"1"}}},
		{"/booking/edit/cancel", url.Values{}},
		{"/booking/edit/seats", url.Values{"seat": {"1-0-0"}}},
	} {
		tc.form.Set("_csrf", tok)
		resp, body := h.do("POST", tc.path, tc.form, nil)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "A payment is in progress") {
			t.Errorf("%s while paying: %d", tc.path, resp.StatusCode)
		}
	}
}

// TestRefundNotPaidOutForAGoneEdit: a refund that could not be made at once is not paid out
// later if the edit has expired meanwhile (the customer would keep money and tickets).
func TestRefundNotPaidOutForAGoneEdit(t *testing.T) {
	clock := sandbox.NewManualClock(time.Now())
	h := newHarness(t, harnessOpts{sandbox: true, clock: clock, now: clock.Now})
	h.find(bkPaid3)
	doc := h.startEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	mustFault(h, sandbox.Fault{Operation: "ResetOrderExpiry", HTTPStatus: 503})
	_, doc = h.submit("/booking/edit/complete", "/booking/edit", nil)
	if !strings.Contains(doc.Text(), "Refunding") {
		t.Fatalf("status page: %s", doc.Text())
	}
	h.sb.Faults().Clear()
	clock.Advance(11 * time.Minute)
	h.srv.Reconcile(context.Background())
	es, _ := entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed || es[0].RefundID != "" {
		t.Fatalf("entry %+v, want failed without a refund", es)
	}
	if p, _ := h.prov.Get(fmt.Sprintf("pi_seed%06d", bkPaid3)); p.RefundedInCents != 0 {
		t.Fatalf("refunded %d cents for an edit that is gone", p.RefundedInCents)
	}
}

// TestRefundPaidButNotAppliedBlocksTheEdit: when a refund went out but complete-edit refused it,
// the edit can be neither completed again (a second refund) nor cancelled (money and tickets).
func TestRefundPaidButNotAppliedBlocksTheEdit(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid4)
	doc := h.startEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	tok := h.csrfToken("/booking/edit")
	// A definitive refusal (not an outage): the edit will not take this refund.
	mustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Result: 4, ExtendedResultCode: 49})
	resp, _ := h.do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
	h.follow(resp, "")
	h.sb.Faults().Clear()
	es, _ := entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed || es[0].RefundID == "" {
		t.Fatalf("entry %+v, want a failed refund that was paid out", es)
	}
	resp, _ = h.do("POST", "/booking/edit/cancel", url.Values{"_csrf": {tok}}, nil)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("cancel after a refund went out: %d", resp.StatusCode)
	}
	resp, _ = h.do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
	if loc := resp.Header.Get("Location"); !strings.Contains(loc, "/booking/edit/status/") {
		t.Fatalf("second complete went to %q, not the status page", loc)
	}
	if es, _ := entries(t, h); len(es) != 1 {
		t.Fatalf("a second refund entry was made: %+v", es)
	}
}
