package booking_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// TestTwoTabsStartOnePayment: two "Pay and confirm" presses at the same moment (two tabs, a
// double click) lead to the same provider payment.
func TestTwoTabsStartOnePayment(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	tok := h.CSRFToken("/booking/edit")
	var wg sync.WaitGroup
	locs := make([]string, 4)
	for i := range locs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", h.TS.URL+"/booking/edit/complete", strings.NewReader(url.Values{"_csrf": {tok}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := h.Client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			locs[i] = resp.Header.Get("Location")
		}()
	}
	wg.Wait()
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 {
		t.Fatalf("%d ledger entries for one payment", len(es))
	}
	p, _ := h.Prov.Get(es[0].ProviderPaymentID)
	for _, l := range locs {
		if l != h.Prov.HostedURL(p.ID) && !strings.Contains(l, "/booking/edit/status/") {
			t.Fatalf("a press went to %q, not the one payment %q", l, h.Prov.HostedURL(p.ID))
		}
	}
}

// TestNoChangesWhilePaying: once the payment has started, the order cannot be changed or
// cancelled under it.
func TestNoChangesWhilePaying(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid2)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	tok := h.CSRFToken("/booking/edit")
	resp, _ := h.Do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
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
		resp, body := h.Do("POST", tc.path, tc.form, nil)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "A payment is in progress") {
			t.Errorf("%s while paying: %d", tc.path, resp.StatusCode)
		}
	}
}

// TestRefundNotPaidOutForAGoneEdit: a refund that could not be made at once is not paid out
// later if the edit has expired meanwhile (the customer would keep money and tickets).
func TestRefundNotPaidOutForAGoneEdit(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock, Now: clock.Now})
	h.Find(bfftest.BkPaid3)
	doc := h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	bfftest.MustFault(h, sandbox.Fault{Operation: "ResetOrderExpiry", HTTPStatus: 503})
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	if !strings.Contains(doc.Text(), "Refunding") {
		t.Fatalf("status page: %s", doc.Text())
	}
	h.SB.Faults().Clear()
	clock.Advance(11 * time.Minute)
	h.Srv.Reconcile(context.Background())
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed || es[0].RefundID != "" {
		t.Fatalf("entry %+v, want failed without a refund", es)
	}
	if p, _ := h.Prov.Get(fmt.Sprintf("pi_seed%06d", bfftest.BkPaid3)); p.RefundedInCents != 0 {
		t.Fatalf("refunded %d cents for an edit that is gone", p.RefundedInCents)
	}
}

// TestRefundPaidButNotAppliedBlocksTheEdit: when a refund went out but complete-edit refused it,
// the edit can be neither completed again (a second refund) nor cancelled (money and tickets).
func TestRefundPaidButNotAppliedBlocksTheEdit(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid4)
	doc := h.StartEdit(t)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	tok := h.CSRFToken("/booking/edit")
	// A definitive refusal (not an outage): the edit will not take this refund.
	bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Result: 4, ExtendedResultCode: 49})
	resp, _ := h.Do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
	h.Follow(resp, "")
	h.SB.Faults().Clear()
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed || es[0].RefundID == "" {
		t.Fatalf("entry %+v, want a failed refund that was paid out", es)
	}
	resp, _ = h.Do("POST", "/booking/edit/cancel", url.Values{"_csrf": {tok}}, nil)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("cancel after a refund went out: %d", resp.StatusCode)
	}
	resp, _ = h.Do("POST", "/booking/edit/complete", url.Values{"_csrf": {tok}}, nil)
	if loc := resp.Header.Get("Location"); !strings.Contains(loc, "/booking/edit/status/") {
		t.Fatalf("second complete went to %q, not the status page", loc)
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 1 {
		t.Fatalf("a second refund entry was made: %+v", es)
	}
}
