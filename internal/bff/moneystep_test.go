package bff_test

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// newBareServer is a server without upstream or database, for the money step's machinery.
func newBareServer(t *testing.T, cfg bff.Config) *bff.Server {
	t.Helper()
	cfg.PublicURL = &url.URL{Scheme: "http", Host: "example.test"}
	s, err := bff.New(bff.Deps{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMoneyStepWaitsForTheConfiguredBudget: without a read deadline in its context, a page
// waits for a money step as long as the configured ReadBudget (not the default 1.5 s).
func TestMoneyStepWaitsForTheConfiguredBudget(t *testing.T) {
	s := newBareServer(t, bff.Config{Config: web.Config{ReadBudget: 100 * time.Millisecond}})
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	_, done, err := s.Visits.MoneyStep(context.Background(), "entry:1", func(ctx context.Context) (any, error) {
		select {
		case <-release:
		case <-time.After(time.Second):
		}
		return nil, nil
	})
	if done || err != nil {
		t.Fatalf("done %v, err %v: the page waited past the configured budget for a 1 s step", done, err)
	}
	if took := time.Since(start); took > 700*time.Millisecond {
		t.Errorf("the page waited %v, want about max(ReadBudget, minMoneyWait) = %v", took, visit.MinMoneyWait)
	}
}

// slowCreate is a payment provider whose CreatePayment takes took (createTook when 0); calls
// counts them, when set.
type slowCreate struct {
	upstream.Payments
	took  time.Duration
	calls *atomic.Int32
}

const createTook = 2500 * time.Millisecond

func (p slowCreate) CreatePayment(ctx context.Context, r upstream.PaymentRequest) (upstream.Payment, error) {
	if p.calls != nil {
		p.calls.Add(1)
	}
	select {
	case <-time.After(cmp.Or(p.took, createTook)):
	case <-ctx.Done():
		return upstream.Payment{}, ctx.Err()
	}
	return p.Payments.CreatePayment(ctx, r)
}

// TestSlowPaymentCreationIsNotCalledFailed: the provider takes longer than the page's budget to
// create the payment. The page must not say "nothing was charged" and fail the entry while the
// step goes on creating the payment: it sends the customer to the status page, and the entry
// ends with the provider's payment page, not failed.
func TestSlowPaymentCreationIsNotCalledFailed(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		WrapPayments: func(p upstream.Payments) upstream.Payments { return slowCreate{Payments: p} }})
	h.Find(bfftest.BkPaid2)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	start := time.Now()
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if took := time.Since(start); took > pageWithin {
		t.Errorf("complete answered after %v, want within %v", took, pageWithin)
	}
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/booking/edit/status/") {
		t.Errorf("complete: status %d, Location %q; want 303 to the status page: %s", resp.StatusCode, loc, body)
	}
	deadline := time.Now().Add(createTook + 5*time.Second)
	var e ledger.Entry
	for time.Now().Before(deadline) {
		es, _ := bfftest.Entries(t, h)
		if len(es) != 1 {
			t.Fatalf("%d ledger entries for one payment", len(es))
		}
		if e = es[0]; e.State != ledger.StateCreated {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if e.State != ledger.StateRedirected || e.HostedURL == "" {
		t.Errorf("entry in %s (hosted page %q, last error %q), want redirected to the payment page the step created",
			e.State, e.HostedURL, e.LastError)
	}
}

// TestStatusPollsJoinTheRunningStep: while a slow payment creation goes on, every poll of the
// status page joins the step already running instead of starting another one (before, each
// poll started a detached settler step of its own, and each asked the provider again).
func TestStatusPollsJoinTheRunningStep(t *testing.T) {
	var calls atomic.Int32
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		WrapPayments: func(p upstream.Payments) upstream.Payments {
			return slowCreate{Payments: p, took: 3500 * time.Millisecond, calls: &calls}
		}})
	h.Find(bfftest.BkPaid2)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	status := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(status, "/booking/edit/status/") {
		t.Fatalf("complete: status %d, Location %q; want 303 to the status page: %s", resp.StatusCode, status, body)
	}
	for range 2 { // two polls while the creation goes on (each waits out its budget)
		if r, _ := h.Get(status); r.StatusCode != http.StatusOK {
			t.Fatalf("status page: %d", r.StatusCode)
		}
	}
	if err := h.Srv.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the provider was asked %d times for the payment, want once (the polls join the step)", n)
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateRedirected {
		t.Errorf("entries %+v, want one, redirected", es)
	}
}

// TestWaitWaitsForMoneySteps: Wait returns once the steps running in the background end, and
// gives up with ctx.
func TestWaitWaitsForMoneySteps(t *testing.T) {
	s := newBareServer(t, bff.Config{Config: web.Config{ReadBudget: 10 * time.Millisecond}})
	release := make(chan struct{})
	ended := make(chan struct{})
	if _, done, _ := s.Visits.MoneyStep(context.Background(), "entry:1", func(context.Context) (any, error) {
		<-release
		close(ended)
		return nil, nil
	}); done {
		t.Fatal("a step that waits for release was done")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with a step running = %v, want the deadline", err)
	}
	close(release)
	if err := s.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	default:
		t.Error("Wait returned before the step ended")
	}
}
