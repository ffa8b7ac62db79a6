package bff_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// tenSeconds is an upstream that takes 10 s to answer every call.
var tenSeconds = sandbox.Fault{Operation: "*", Latency: sandbox.Duration(10 * time.Second)}

// pageWithin is how long a page may take in these tests: half the 10 s an upstream call takes
// in them, so a page within it did not wait for the upstream (its read budget is 1.5 s), with
// room for a machine busy with the rest of the tests.
const pageWithin = 5 * time.Second

// TestSlowUpstreamBookingPage: with every upstream call taking 10 s, the booking page answers
// within the budget with the slow page (full page, or the fragment for htmx), 503 with
// Retry-After, a retry of the same address, and the truth: nothing was changed.
func TestSlowUpstreamBookingPage(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.Find(bfftest.BkPaid2)
	bfftest.MustFault(h, tenSeconds)

	tests := []struct {
		name      string
		header    http.Header
		wantFrag  bool
		wantRetry string
	}{
		{"full page", nil, false, "/booking/current"},
		{"htmx fragment", http.Header{"Hx-Request": {"true"}, "Hx-Current-Url": {"/booking/current?x=1"}}, true, "/booking/current?x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			resp, body := h.Do("GET", "/booking/current", nil, tt.header)
			took := time.Since(start)
			if took > pageWithin {
				t.Errorf("answered after %v, want within %v", took, pageWithin)
			}
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
				t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			doc := h.Doc(body)
			if got := resp.Header.Get("HX-Retarget") != ""; got != tt.wantFrag {
				t.Errorf("fragment %v, want %v", got, tt.wantFrag)
			}
			// The fragment goes into the page's error region, under the page's own heading.
			if h1 := doc.Find("h1#error-title").Text(); !tt.wantFrag && h1 != "The cinema's system is slow right now" {
				t.Errorf("heading %q, want the slow page's: %s", h1, doc.Text())
			}
			if !strings.Contains(bfftest.Text(doc, "error-message"), "Nothing was changed.") {
				t.Errorf("message %q does not say nothing was changed", bfftest.Text(doc, "error-message"))
			}
			if href := doc.Find(`[data-testid="error-retry"]`).AttrOr("href", ""); href != tt.wantRetry {
				t.Errorf("retry link %q, want %q", href, tt.wantRetry)
			}
		})
	}
}

// TestSlowUpstreamPostChangesNothing: a POST that starts a change reads the booking first;
// when that read runs out of time nothing is sent upstream, and the page says so.
func TestSlowUpstreamPostChangesNothing(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.Find(bfftest.BkPaid2)
	token := h.CSRFToken("/booking/current")
	bfftest.MustFault(h, tenSeconds)
	start := time.Now()
	resp, body := h.Do("POST", "/booking/edit/start", url.Values{"_csrf": {token}}, nil)
	if took := time.Since(start); took > pageWithin {
		t.Errorf("answered after %v, want within %v", took, pageWithin)
	}
	doc := h.Doc(body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(bfftest.Text(doc, "error-message"), "Nothing was changed.") {
		t.Fatalf("status %d: %s", resp.StatusCode, doc.Text())
	}
	if doc.Find(`[data-testid="error-retry"]`).Length() != 0 {
		t.Errorf("a retry link on a POST's page: it would GET a form's address")
	}
	h.SB.Faults().Clear()
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	if b.BeingEdited {
		t.Errorf("the booking was put into edit state although the page said nothing was changed")
	}
}

// TestSlowUpstreamRecoversWithoutRestart: an upstream that hangs past the calls' own timeout
// (here 300 ms, inside the page's read budget) opens the circuit breaker; once the upstream
// answers again, the breaker lets a trial call through (half-open), closes, and the same page
// works, with no restart. (A read cut off by the page's budget alone does not open it:
// TestReadBudgetLeavesBreakerClosed.)
func TestSlowUpstreamRecoversWithoutRestart(t *testing.T) {
	open := 300 * time.Millisecond
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CallTimeout: 300 * time.Millisecond,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 1, OpenTimeout: open}})
	h.Find(bfftest.BkPaid2)
	bfftest.MustFault(h, tenSeconds)
	if resp, _ := h.Get("/booking/current"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("slow upstream: status %d, want 503", resp.StatusCode)
	}
	if err := h.Srv.Upstream.Ready(); err == nil {
		t.Fatal("breaker still closed after the timed-out read; this test would not show recovery")
	}
	h.SB.Faults().Clear()
	time.Sleep(open + 100*time.Millisecond) // open → half-open
	doc := h.Page("/booking/current", http.StatusOK)
	if !strings.Contains(doc.Text(), "100002") {
		t.Errorf("booking page after recovery does not show the booking: %s", doc.Text())
	}
	if err := h.Srv.Upstream.Ready(); err != nil {
		t.Errorf("breaker not closed after the upstream recovered: %v", err)
	}
}

// TestReadBudgetLeavesBreakerClosed: pages whose reads ran out of the read budget show the
// slow page, but the budget is the page's, not the upstream's failure: the circuit breaker
// stays closed, so writes and payments are not refused because pages were slow.
func TestReadBudgetLeavesBreakerClosed(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 1, OpenTimeout: time.Minute}})
	h.Find(bfftest.BkPaid2)
	bfftest.MustFault(h, tenSeconds)
	for range 2 {
		resp, body := h.Get("/booking/current")
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(bfftest.Text(h.Doc(body), "error-message"), "Nothing was changed.") {
			t.Fatalf("slow upstream: status %d, want the slow page: %s", resp.StatusCode, body)
		}
	}
	if err := h.Srv.Upstream.Ready(); err != nil {
		t.Errorf("reads cut off by the page's read budget opened the breaker: %v", err)
	}
}

// TestSlowMoneyStepIsHandedOn: the customer pays, and complete-edit then takes 10 s. The page
// after the payment answers in time and says the change is being processed (neither done nor
// failed); the step is not cut off by the page, and the entry ends applied, by the request's
// own step or by the reconciler.
func TestSlowMoneyStepIsHandedOn(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.Find(bfftest.BkPaid2)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	hosted := resp.Header.Get("Location")
	bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Latency: sandbox.Duration(10 * time.Second)})

	h.GetURL(hosted) // the provider's page
	r, err := h.Client.PostForm(hosted, url.Values{"action": {"pay"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	loc, err := r.Location()
	if err != nil {
		t.Fatalf("provider did not send the customer back: %d", r.StatusCode)
	}
	start := time.Now()
	back, doc2 := h.Follow(h.GetURL(loc.String()))
	if took := time.Since(start); took > pageWithin {
		t.Errorf("the page after paying answered after %v, want within %v", took, pageWithin)
	}
	txt := doc2.Text()
	if back.StatusCode != http.StatusOK || !strings.Contains(txt, "finishing your change") {
		t.Errorf("status %d, want the 'being processed' page: %s", back.StatusCode, txt)
	}
	for _, claim := range []string{"could not be saved", "refunded", "Your changes are saved", "was not completed"} {
		if strings.Contains(txt, claim) {
			t.Errorf("page claims %q while the change is still being made", claim)
		}
	}

	// The step goes on after the page; once the upstream answers again the reconciler
	// finishes whatever it left.
	h.SB.Faults().Clear()
	deadline := time.Now().Add(20 * time.Second)
	var e ledger.Entry
	for time.Now().Before(deadline) {
		es, _ := bfftest.Entries(t, h)
		if len(es) != 1 {
			t.Fatalf("%d ledger entries for one payment", len(es))
		}
		if e = es[0]; e.State == ledger.StateApplied {
			break
		}
		if e.State == ledger.StatePaid { // the request's step gave its claim back: the reconciler's turn
			h.Srv.Reconcile(context.Background())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if e.State != ledger.StateApplied {
		t.Fatalf("entry left in %s (last error %q)", e.State, e.LastError)
	}
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	on := 0
	for _, p := range b.Payments {
		if p.ProviderReference == e.ProviderReference {
			on++
		}
	}
	if on != 1 {
		t.Errorf("payment on the booking %d times, want once", on)
	}
}

// overlap is an upstream transport that counts how many of the ticketing calls it sees are
// under way at once: two reads that run concurrently are both in flight while each is held up
// by the sandbox's latency, however slowly the machine runs; two run in turn never are.
type overlap struct {
	next     http.RoundTripper
	counts   func(path string) bool // the calls counted, by their URL path
	mu       sync.Mutex
	now, max int
}

func (o *overlap) RoundTrip(r *http.Request) (*http.Response, error) {
	if !o.counts(r.URL.Path) {
		return o.next.RoundTrip(r)
	}
	o.mu.Lock()
	o.now++
	o.max = max(o.max, o.now)
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.now--
		o.mu.Unlock()
	}()
	return o.next.RoundTrip(r)
}

// mostAtOnce is the most calls that were under way at once since the last reset.
func (o *overlap) mostAtOnce() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.max
}

func (o *overlap) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.max = 0
}

// overlapHarness is a harness whose ticketing calls go through an overlap counter of the calls
// whose path ends in one of suffixes.
func overlapHarness(t *testing.T, suffixes ...string) (*bfftest.Harness, *overlap) {
	return overlapHarnessWith(t, nil, suffixes...)
}

// overlapHarnessWith is overlapHarness with the site's configuration changed by configure.
func overlapHarnessWith(t *testing.T, configure func(*bff.Config), suffixes ...string) (*bfftest.Harness, *overlap) {
	o := &overlap{counts: func(p string) bool {
		return slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(p, s) })
	}}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Configure: configure, UpstreamTransport: func(next http.RoundTripper) http.RoundTripper {
		o.next = next
		return o
	}})
	return h, o
}

// TestBudgetEditReadsRunConcurrently: the edit page's order and ticket types are independent
// reads: with 300 ms on each, both are under way at once. The types are shared for the
// listing's interval; here it is a nanosecond, so the view reads them again.
func TestBudgetEditReadsRunConcurrently(t *testing.T) {
	h, o := overlapHarnessWith(t, func(c *bff.Config) { c.ListingTTL = time.Nanosecond }, "/order", "/tickets")
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
	const each = 300 * time.Millisecond
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetOrder", Latency: sandbox.Duration(each)})
	bfftest.MustFault(h, sandbox.Fault{Operation: "TicketTypes", Latency: sandbox.Duration(each)})
	o.reset()
	doc := h.Page("/booking/edit", http.StatusOK)
	if doc.Find(`[data-testid="stepper"] input[name="type"]`).Length() == 0 {
		t.Fatal("edit page without ticket types: the second read did not happen")
	}
	if n := o.mostAtOnce(); n < 2 {
		t.Errorf("the edit page's reads ran one after the other (at most %d at once), want the order and the ticket types together", n)
	}
}

// TestBudgetSeatMapReadsRunConcurrently: a seat map page's order and seat plan are
// independent reads: with the plan not kept and 300 ms on each, both are under way at once.
func TestBudgetSeatMapReadsRunConcurrently(t *testing.T) {
	h, o := overlapHarness(t, "/order", "/seat-plan")
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	const each = 300 * time.Millisecond
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetOrder", Latency: sandbox.Duration(each)})
	bfftest.MustFault(h, sandbox.Fault{Operation: "SeatPlan", Latency: sandbox.Duration(each)})
	before := h.SB.Calls("SeatPlan")
	h.Srv.SeatPlans.Invalidate("0001", b.SessionID()) // not kept: read with the order
	o.reset()
	doc := h.Page("/booking/edit/seats", http.StatusOK)
	if doc.Find(`[data-testid="seatmap"]`).Length() == 0 {
		t.Fatal("seat page without its map")
	}
	if n := h.SB.Calls("SeatPlan") - before; n != 1 {
		t.Fatalf("%d seat plan reads for a view of a plan not kept, want 1", n)
	}
	if n := o.mostAtOnce(); n < 2 {
		t.Errorf("the seat page's reads ran one after the other (at most %d at once), want the order and the seat plan together", n)
	}
}

// TestSlowUpstreamWhatsOn: with every upstream call taking 10 s, What's on answers within the
// budget: with the last good listing and its age once it is old, with the slow page when it
// never had one.
func TestSlowUpstreamWhatsOn(t *testing.T) {
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Now: now,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	if resp, _ := h.Get("/whats-on?cinema=0001"); resp.StatusCode != http.StatusOK {
		t.Fatalf("what's on: %d", resp.StatusCode)
	}
	read := now()
	bfftest.MustFault(h, tenSeconds)
	t.Cleanup(h.SB.Faults().Clear)
	offset.Store(int64(5 * time.Minute))

	start := time.Now()
	resp, body := h.Get("/whats-on?cinema=0001")
	if took := time.Since(start); took > pageWithin {
		t.Errorf("answered after %v, want within %v", took, pageWithin)
	}
	doc := h.Doc(body)
	notice := strings.Join(strings.Fields(doc.Find(`[data-testid="listing-as-of"]`).Text()), " ")
	if resp.StatusCode != http.StatusOK || !strings.Contains(notice, read.In(bfftest.MustLoc(t, "Europe/Berlin")).Format("15:04")) ||
		doc.Find(`[data-testid="film"]`).Length() == 0 {
		t.Fatalf("status %d, notice %q, %d films", resp.StatusCode, notice, doc.Find(`[data-testid="film"]`).Length())
	}

	// A cinema whose listing was never read: the slow page, within the budget.
	start = time.Now()
	resp, _ = h.Get("/whats-on?cinema=0002")
	if took := time.Since(start); took > pageWithin {
		t.Errorf("cinema 0002: answered after %v, want within %v", took, pageWithin)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("cinema 0002: status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestSlowUpstreamReturnPage: with every upstream call taking 10 s, the return page and its
// poll answer within the budget and say that the order is still being checked (the read of
// the order carries on for the next poll); nothing is marked failed.
func TestSlowUpstreamReturnPage(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	bfftest.MustFault(h, tenSeconds)
	t.Cleanup(h.SB.Faults().Clear)
	time.Sleep(purchases.PollInterval) // the poller's last read is too old to be shown again

	for _, tt := range []struct {
		name   string
		header http.Header
	}{
		{"page", nil},
		{"htmx poll", http.Header{"Hx-Request": {"true"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			resp, body := h.Do("GET", ret, nil, tt.header)
			if took := time.Since(start); took > pageWithin {
				t.Errorf("answered after %v, want within %v", took, pageWithin)
			}
			if text := strings.Join(strings.Fields(h.Doc(body).Text()), " "); resp.StatusCode != http.StatusOK ||
				!strings.Contains(text, "We are still checking with the ticketing system") {
				t.Errorf("status %d, want 200 saying the order is still being checked: %s", resp.StatusCode, text)
			}
		})
	}
}

// TestSlowUpstreamReturnTokenNotYetKnown: a return whose token could not be read when the
// payment started is checked with the ticketing system; when that read outlasts the budget,
// the person gets the slow page within it (try again), not "this link is not valid".
func TestSlowUpstreamReturnTokenNotYetKnown(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetOrderDetails", HTTPStatus: http.StatusServiceUnavailable, Times: 10})
	hosted := h.PressPay() // the expected token is not read
	h.SB.Faults().Clear()
	ret := h.ActAtProvider(hosted, "pay")
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetOrderDetails", Latency: sandbox.Duration(10 * time.Second)})
	t.Cleanup(h.SB.Faults().Clear)
	time.Sleep(purchases.PollInterval) // nothing recent about the order: the check reads it

	start := time.Now()
	resp, body := h.Get(ret)
	if took := time.Since(start); took > pageWithin {
		t.Errorf("answered after %v, want within %v", took, pageWithin)
	}
	doc := h.Doc(body)
	if h1 := doc.Find("h1").First().Text(); resp.StatusCode != http.StatusServiceUnavailable || h1 != "The cinema's system is slow right now" ||
		!strings.Contains(doc.Text(), "Nothing was changed") {
		t.Errorf("status %d, heading %q; want 503 with the slow page saying nothing was changed", resp.StatusCode, h1)
	}
}

// TestSeatMapPageDoesNotWaitForThePlanOfAFailedOrder: when the order cannot be read, the seat
// page answers without waiting for a slow read of the seat plan.
func TestSeatMapPageDoesNotWaitForThePlanOfAFailedOrder(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	h.Srv.SeatPlans.Invalidate("0001", b.SessionID())
	bfftest.MustFault(h, sandbox.Fault{Operation: "SeatPlan", Latency: sandbox.Duration(3 * time.Second)})
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetOrder", HTTPStatus: http.StatusInternalServerError})
	t.Cleanup(h.SB.Faults().Clear)
	start := time.Now()
	resp, _ := h.Get("/booking/edit/seats")
	if took := time.Since(start); took >= 2*time.Second {
		t.Errorf("answered after %v with the order failed at once; want without waiting for the 3 s plan", took)
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503 (the order could not be read)", resp.StatusCode)
	}
}

// TestSlowSpellEndsPagesAnswerAtOnce: after a spell of 10 s per call, the first look-up of
// booking 100002 answers 200: no request waits for a shared read begun during the spell (the
// cinemas, the listing, the seat plan, the ticket types).
func TestSlowSpellEndsPagesAnswerAtOnce(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	bfftest.MustFault(h, tenSeconds)
	if resp, _ := h.Get("/booking"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the find page in the spell: status %d, want the slow page (503)", resp.StatusCode)
	}
	h.SB.Faults().Clear()
	start := time.Now()
	resp, body := h.Get("/booking")
	if took := time.Since(start); resp.StatusCode != http.StatusOK || took > pageWithin {
		t.Fatalf("the find page after the spell: status %d after %v, want 200 within %v: %s", resp.StatusCode, took, pageWithin, h.Doc(body).Text())
	}
	start = time.Now()
	h.Find(bfftest.BkPaid2)
	if took := time.Since(start); took > 2*pageWithin {
		t.Errorf("looking up %d after the spell took %v", bfftest.BkPaid2, took)
	}
}
