package booking_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// faultPoint is a way the world can fail after the customer paid.
type faultPoint struct {
	name string
	// arm sets the fault before the customer returns from the provider.
	arm func(h *bfftest.Harness, clock *testclock.Clock)
	// expire: the edit's hold ends before the reconciler gets to it.
	expire bool
}

var faultPoints = []faultPoint{
	{name: "complete-edit 503 once", arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", HTTPStatus: 503, Times: 1})
	}},
	{name: "complete-edit connection dropped once", arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Drop: true, Times: 1})
	}},
	{name: "complete-edit error code in a 200 body, twice", arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Result: 1, Times: 2})
	}},
	{name: "complete-edit down, then the edit expires", expire: true, arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", HTTPStatus: 503})
	}},
	{name: "complete-edit down, edit expires, first refund fails", expire: true, arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", HTTPStatus: 503})
		h.Prov.SetFailNext("refund", 1, 503)
	}},
	{name: "complete-edit down, edit expires, the refund's answer is lost", expire: true, arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", HTTPStatus: 503})
		h.DropAfter.Store(1) // the provider refunds, and the connection drops before the answer
	}},
	{name: "provider read fails on return", arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		h.Prov.SetFailNext("get", 3, 503)
	}},
	{name: "booking read fails while verifying", arm: func(h *bfftest.Harness, _ *testclock.Clock) {
		bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", HTTPStatus: 503, Times: 1})
		bfftest.MustFault(h, sandbox.Fault{Operation: "GetSingleBooking", HTTPStatus: 503, Times: 4})
	}},
	{name: "no fault", arm: func(*bfftest.Harness, *testclock.Clock) {}},
}

// TestMoneyIsNeverLost pays a positive balance and breaks the world at a random point after
// the payment, many times over. Whatever happens, after the reconciler every payment is either
// applied to the booking (once) or refunded in full, and nothing is taken twice.
func TestMoneyIsNeverLost(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	// MONEY_RUNS sets the number of randomised runs (`make money` runs 1,000); CI runs the
	// default.
	rounds := 24
	if testing.Short() {
		rounds = 8
	}
	if n, err := strconv.Atoi(os.Getenv("MONEY_RUNS")); err == nil && n > 0 {
		rounds = n
	}
	defer func() { t.Logf("%d randomised runs (seed %d)", rounds, seed) }()
	rng := rand.New(rand.NewPCG(seed, 42))
	t.Logf("seed %d", seed)
	for i := range rounds {
		fp := faultPoints[rng.IntN(len(faultPoints))]
		booking := []int{bfftest.BkPaid1, bfftest.BkPaid2, bfftest.BkPaid4}[rng.IntN(3)]
		t.Run(fmt.Sprintf("%02d %s", i, fp.name), func(t *testing.T) {
			clock := testclock.New(time.Now())
			// The faults are outages the breaker would rightly stop for (for 15 s of real
			// time, which this test does not wait); what is tested here is the ledger.
			h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock, Now: clock.Now,
				Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
			h.Find(booking)
			doc := h.StartEdit(t)
			typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
			h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {fmt.Sprint(1 + rng.IntN(2))}})
			resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("complete: %d %s", resp.StatusCode, body)
			}
			hosted := resp.Header.Get("Location")
			fp.arm(h, clock)
			h.PayAtProvider(t, hosted, "pay") // the page after it may say anything honest
			h.SB.Faults().Clear()
			if fp.expire {
				clock.Advance(11 * time.Minute)
			}
			// The reconciler runs; claims older than a minute are taken for crashes.
			for range 4 {
				clock.Advance(2 * time.Minute)
				h.Srv.Reconcile(context.Background())
			}
			assertSettled(t, h, booking)
		})
	}
}

func assertSettled(t *testing.T, h *bfftest.Harness, booking int) {
	t.Helper()
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 {
		t.Fatalf("%d ledger entries for one payment: %+v", len(es), es)
	}
	e := es[0]
	p, ok := h.Prov.Get(e.ProviderPaymentID)
	if !ok {
		t.Fatalf("provider has no payment %q", e.ProviderPaymentID)
	}
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", int64(booking))
	if err != nil {
		t.Fatal(err)
	}
	// The booking keeps the payment intent (Stripe's reference of the money), not the checkout.
	onBooking := 0
	for _, bp := range b.Payments {
		if e.ProviderReference != "" && bp.ProviderReference == e.ProviderReference {
			onBooking++
		}
	}
	switch e.State {
	case ledger.StateApplied:
		if p.Status != payprovider.StatusPaid || onBooking != 1 {
			t.Fatalf("applied, but provider status %s and %d times on the booking", p.Status, onBooking)
		}
	case ledger.StateRefunded:
		if p.Status != payprovider.StatusRefunded || p.RefundedInCents != p.AmountInCents || onBooking != 0 {
			t.Fatalf("refunded, but provider %s refunded %d of %d, %d times on the booking", p.Status, p.RefundedInCents, p.AmountInCents, onBooking)
		}
	default:
		evs, _ := h.Srv.Ledger.Events(context.Background(), e.ID)
		t.Fatalf("entry left in %s (last error %q), events %+v", e.State, e.LastError, evs)
	}
	// The customer's status page tells the truth about it.
	_, doc := h.Follow(h.Get("/booking/edit/status/" + e.ID))
	txt := doc.Text()
	if e.State == ledger.StateRefunded && !strings.Contains(txt, "refunded") && !strings.Contains(txt, "returned") {
		t.Fatalf("status page does not say the payment was refunded: %s", txt)
	}
}
