package bff

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// startPaidEdit adds a ticket to bkPaid2 and returns the provider's checkout page of the
// difference.
func startPaidEdit(t *testing.T, h *harness) string {
	t.Helper()
	h.find(bkPaid2)
	doc := h.startEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body := h.post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}

// payAndLeave presses Pay on the provider's page and does not come back (the tab is closed).
func payAndLeave(t *testing.T, hosted string) {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.PostForm(hosted, url.Values{"action": {"pay"}, "card": {"4242 4242 4242 4242"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", resp.StatusCode)
	}
}

func waitEntry(t *testing.T, h *harness, want ledger.State) ledger.Entry {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		es, _ := entries(t, h)
		if len(es) == 1 && es[0].State == want {
			return es[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("ledger entries %+v, want one %s", es, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookAppliesAnEditWhoseCustomerNeverCameBack: paid on the checkout page, tab closed;
// the provider's signed checkout.session.completed applies the edit, once, even when it is
// delivered twice.
func TestWebhookAppliesAnEditWhoseCustomerNeverCameBack(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	before := h.sb.Calls("CompleteEditBooking")
	payAndLeave(t, startPaidEdit(t, h))
	e := waitEntry(t, h, ledger.StateApplied)
	b, err := h.srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tickets) != 3 {
		t.Fatalf("booking has %d tickets after the webhook", len(b.Tickets))
	}
	if got := h.sb.Calls("CompleteEditBooking") - before; got != 1 {
		t.Fatalf("%d complete-edit calls", got)
	}
	// Delivered again (Stripe retries; a second replica): acknowledged, not acted on again.
	ev, ok := h.prov.LastEvent("checkout.session.completed")
	if !ok {
		t.Fatal("no checkout.session.completed was sent")
	}
	if err := h.prov.Redeliver(context.Background(), ev.ID); err != nil {
		t.Fatal(err)
	}
	_ = h.prov.Flush(context.Background())
	if got := h.sb.Calls("CompleteEditBooking") - before; got != 1 {
		t.Fatalf("%d complete-edit calls after a second delivery", got)
	}
	var processed int
	if err := h.db.SQL.QueryRow(`SELECT COUNT(*) FROM payment_events WHERE event_id = $1 AND processed_at IS NOT NULL`, ev.ID).Scan(&processed); err != nil || processed != 1 {
		t.Fatalf("event %s recorded %d times (%v)", ev.ID, processed, err)
	}
	// And the booking page shows the change.
	doc := h.page("/booking/current", http.StatusOK)
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 3 {
		t.Fatalf("booking page shows %d tickets (entry %s)", n, e.ID)
	}
}

// TestWebhookRefusesBadSignatures: a missing, wrong, other-secret or old signature gets 400 and
// changes nothing.
func TestWebhookRefusesBadSignatures(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.prov.SetWebhookURL("") // deliver by hand
	payAndLeave(t, startPaidEdit(t, h))
	ev, ok := h.prov.LastEvent("checkout.session.completed")
	if !ok {
		t.Fatal("no event")
	}
	post := func(sig string) int {
		req, _ := http.NewRequest("POST", h.ts.URL+"/payments/webhook", bytes.NewReader(ev.Payload))
		req.Header.Set("Content-Type", "application/json")
		if sig != "" {
			req.Header.Set("Stripe-Signature", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, sig := range map[string]string{
		"none":           "",
		"garbage":        "t=1,v1=00",
		"another secret": payprovider.Signature(ev.Payload, "whsec_someone_else", time.Now()),
		"too old":        payprovider.Signature(ev.Payload, testWebhookSecret, time.Now().Add(-10*time.Minute)),
	} {
		if code := post(sig); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", name, code)
		}
	}
	if e := waitEntry(t, h, ledger.StateRedirected); e.State != ledger.StateRedirected {
		t.Fatalf("a refused event moved the entry: %s", e.State)
	}
	// The genuine one is accepted and applies the edit; a CSRF token is not asked for.
	if code := post(payprovider.Signature(ev.Payload, testWebhookSecret, time.Now())); code != http.StatusOK {
		t.Fatalf("valid event: %d", code)
	}
	waitEntry(t, h, ledger.StateApplied)
}

// TestCancelledCheckoutKeepsTheEdit: the customer turns back on the provider's page; the
// checkout is ended so it cannot be paid later, nothing is charged, and the edit is kept.
func TestCancelledCheckoutKeepsTheEdit(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	hosted := startPaidEdit(t, h)
	_, doc := h.payAtProvider(t, hosted, "cancel")
	if !strings.Contains(doc.Text(), "nothing was charged") || doc.Find("#edit-title").Length() != 1 {
		t.Fatalf("after cancel: %s", doc.Find("main").Text())
	}
	es, _ := entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed {
		t.Fatalf("entries %+v", es)
	}
	if cs, ok := h.prov.CheckoutSession(es[0].ProviderPaymentID); !ok || cs.Status != "expired" {
		t.Fatalf("the checkout is still payable: %+v", cs)
	}
}
