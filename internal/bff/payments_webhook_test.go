package bff_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

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

func waitEntry(t *testing.T, h *bfftest.Harness, want ledger.State) ledger.Entry {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		es, _ := bfftest.Entries(t, h)
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
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	before := h.SB.Calls("CompleteEditBooking")
	payAndLeave(t, bfftest.StartPaidEdit(t, h))
	e := waitEntry(t, h, ledger.StateApplied)
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Tickets) != 3 {
		t.Fatalf("booking has %d tickets after the webhook", len(b.Tickets))
	}
	if got := h.SB.Calls("CompleteEditBooking") - before; got != 1 {
		t.Fatalf("%d complete-edit calls", got)
	}
	// Delivered again (Stripe retries; a second replica): acknowledged, not acted on again.
	ev, ok := h.Prov.LastEvent("checkout.session.completed")
	if !ok {
		t.Fatal("no checkout.session.completed was sent")
	}
	if err := h.Prov.Redeliver(context.Background(), ev.ID); err != nil {
		t.Fatal(err)
	}
	_ = h.Prov.Flush(context.Background())
	if got := h.SB.Calls("CompleteEditBooking") - before; got != 1 {
		t.Fatalf("%d complete-edit calls after a second delivery", got)
	}
	var processed int
	if err := h.DB.SQL.QueryRow(`SELECT COUNT(*) FROM payment_events WHERE event_id = $1 AND processed_at IS NOT NULL`, ev.ID).Scan(&processed); err != nil || processed != 1 {
		t.Fatalf("event %s recorded %d times (%v)", ev.ID, processed, err)
	}
	// And the booking page shows the change.
	doc := h.Page("/booking/current", http.StatusOK)
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 3 {
		t.Fatalf("booking page shows %d tickets (entry %s)", n, e.ID)
	}
}

// TestWebhookRefusesBadSignatures: a missing, wrong, other-secret or old signature gets 400 and
// changes nothing.
func TestWebhookRefusesBadSignatures(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Prov.SetWebhookURL("") // deliver by hand
	payAndLeave(t, bfftest.StartPaidEdit(t, h))
	ev, ok := h.Prov.LastEvent("checkout.session.completed")
	if !ok {
		t.Fatal("no event")
	}
	post := func(sig string) int {
		req, _ := http.NewRequest("POST", h.TS.URL+"/payments/webhook", bytes.NewReader(ev.Payload))
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
		"too old":        payprovider.Signature(ev.Payload, bfftest.TestWebhookSecret, time.Now().Add(-10*time.Minute)),
	} {
		if code := post(sig); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", name, code)
		}
	}
	if e := waitEntry(t, h, ledger.StateRedirected); e.State != ledger.StateRedirected {
		t.Fatalf("a refused event moved the entry: %s", e.State)
	}
	// The genuine one is accepted and applies the edit; a CSRF token is not asked for.
	if code := post(payprovider.Signature(ev.Payload, bfftest.TestWebhookSecret, time.Now())); code != http.StatusOK {
		t.Fatalf("valid event: %d", code)
	}
	waitEntry(t, h, ledger.StateApplied)
}

// TestCancelledCheckoutKeepsTheEdit: the customer turns back on the provider's page; the
// checkout is ended so it cannot be paid later, nothing is charged, and the edit is kept.
func TestCancelledCheckoutKeepsTheEdit(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	hosted := bfftest.StartPaidEdit(t, h)
	_, doc := h.PayAtProvider(t, hosted, "cancel")
	if !strings.Contains(doc.Text(), "nothing was charged") || doc.Find("#edit-title").Length() != 1 {
		t.Fatalf("after cancel: %s", doc.Find("main").Text())
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateFailed {
		t.Fatalf("entries %+v", es)
	}
	if cs, ok := h.Prov.CheckoutSession(es[0].ProviderPaymentID); !ok || cs.Status != "expired" {
		t.Fatalf("the checkout is still payable: %+v", cs)
	}
}
