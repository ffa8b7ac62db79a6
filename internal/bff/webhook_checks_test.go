package bff_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// heldEvent pays an edit at the provider with delivery by hand and returns the provider's
// checkout.session.completed, not yet delivered.
func heldEvent(t *testing.T, h *bfftest.Harness) payprovider.Event {
	t.Helper()
	h.Prov.SetWebhookURL("") // deliver by hand
	payAndLeave(t, bfftest.StartPaidEdit(t, h))
	ev, ok := h.Prov.LastEvent("checkout.session.completed")
	if !ok {
		t.Fatal("no checkout.session.completed was made")
	}
	return ev
}

// postWebhook posts payload to the site's webhook with signature sig and returns the status.
func postWebhook(t *testing.T, h *bfftest.Harness, payload []byte, sig string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", h.TS.URL+"/payments/webhook", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", sig)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// padded is payload (a JSON object) with a field that makes it size bytes long.
func padded(payload []byte, size int) []byte {
	const field = `{"padding":"",`
	pad := max(size-len(payload)-len(field)+1, 0)
	return []byte(`{"padding":"` + strings.Repeat("x", pad) + `",` + string(payload[1:]))
}

// TestWebhookRefusesFutureEvents: an event signed 10 minutes ahead of now is refused
// like an old one and changes nothing; one signed now is taken.
func TestWebhookRefusesFutureEvents(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	ev := heldEvent(t, h)
	for _, ahead := range []time.Duration{10 * time.Minute, time.Hour} {
		if code := postWebhook(t, h, ev.Payload, payprovider.Signature(ev.Payload, bfftest.TestWebhookSecret, time.Now().Add(ahead))); code != http.StatusBadRequest {
			t.Errorf("signed %v ahead: %d, want 400", ahead, code)
		}
	}
	if e := waitEntry(t, h, ledger.StateRedirected); e.State != ledger.StateRedirected {
		t.Fatalf("a refused event moved the entry: %s", e.State)
	}
	if code := postWebhook(t, h, ev.Payload, payprovider.Signature(ev.Payload, bfftest.TestWebhookSecret, time.Now().Add(time.Minute))); code != http.StatusOK {
		t.Fatalf("signed a minute ahead (clock skew): %d", code)
	}
	waitEntry(t, h, ledger.StateApplied)
}

// TestWebhookTakesLargeEvents: the site's 64 KB body limit is not the webhook's; a
// signed 200 KB event is taken, one over the webhook's own limit is not.
func TestWebhookTakesLargeEvents(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	ev := heldEvent(t, h)
	huge := padded(ev.Payload, bff.MaxWebhookBytes+1)
	if code := postWebhook(t, h, huge, payprovider.Signature(huge, bfftest.TestWebhookSecret, time.Now())); code != http.StatusBadRequest && code != http.StatusRequestEntityTooLarge {
		t.Errorf("an event over the webhook's limit: %d", code)
	}
	big := padded(ev.Payload, 200<<10)
	if len(big) != 200<<10 {
		t.Fatalf("padded to %d bytes", len(big))
	}
	if code := postWebhook(t, h, big, payprovider.Signature(big, bfftest.TestWebhookSecret, time.Now())); code != http.StatusOK {
		t.Fatalf("a signed 200 KB event: %d, want 200", code)
	}
	waitEntry(t, h, ledger.StateApplied)
	// Everything else keeps the site's limit.
	resp, _ := h.Do("POST", "/booking", map[string][]string{"x": {strings.Repeat("x", 100<<10)}}, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 100 KB form: %d, want 413", resp.StatusCode)
	}
}

// paidIn is a provider whose payments read back in another currency (same amount).
type paidIn struct {
	upstream.Payments
	currency string
}

func (p paidIn) GetPayment(ctx context.Context, id string) (upstream.Payment, error) {
	pay, err := p.Payments.GetPayment(ctx, id)
	pay.Amount.Currency = p.currency
	return pay, err
}

// TestSettlementComparesTheCurrency: a payment of the right amount in another
// currency is never taken as paid: the entry waits (noted, for staff) and the edit is not
// applied. The same currency written in lower case is the same currency.
func TestSettlementComparesTheCurrency(t *testing.T) {
	for _, tc := range []struct {
		currency string
		want     ledger.State
	}{
		{"USD", ledger.StateRedirected},
		{"eur", ledger.StateApplied},
	} {
		t.Run(tc.currency, func(t *testing.T) {
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
				WrapPayments: func(p upstream.Payments) upstream.Payments { return paidIn{Payments: p, currency: tc.currency} }})
			before := h.SB.Calls("CompleteEditBooking")
			ev := heldEvent(t, h)
			code := postWebhook(t, h, ev.Payload, payprovider.Signature(ev.Payload, bfftest.TestWebhookSecret, time.Now()))
			e := waitEntry(t, h, tc.want)
			if e.Currency != "EUR" {
				t.Fatalf("the entry is in %q: the test expects EUR", e.Currency)
			}
			if tc.want == ledger.StateApplied {
				return
			}
			if code == http.StatusOK {
				t.Errorf("webhook answered %d: the provider would not deliver it again", code)
			}
			if !strings.Contains(e.LastError, "USD") {
				t.Errorf("the entry's note %q does not name the currency", e.LastError)
			}
			if n := h.SB.Calls("CompleteEditBooking") - before; n != 0 {
				t.Fatalf("%d complete-edit calls for a payment in another currency", n)
			}
		})
	}
}
