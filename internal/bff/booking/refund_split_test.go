package booking_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// bkSplit (docs/sandbox.md) was paid in two external payments: 20,00 € by VISA (pi_seed100020a,
// the older) and 9,00 € by PAYPAL (pi_seed100020b, the newer); two seniors and a child.
const bkSplit = 100020

const (
	splitCard   = "pi_seed100020a"
	splitPayPal = "pi_seed100020b"
)

func init() { bfftest.BookingEmails[bkSplit] = "split@example.com" }

// removeTwoOfSplit finds 100020, starts an edit and removes two of its three tickets; it
// returns the refund shown.
func removeTwoOfSplit(t *testing.T, h *bfftest.Harness) string {
	t.Helper()
	h.Find(bkSplit)
	doc := h.StartEdit(t)
	for range 2 {
		id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
		if id == "" {
			t.Fatalf("no ticket to remove: %s", doc.Find("main").Text())
		}
		_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	}
	if !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To refund") {
		t.Fatalf("no refund shown: %s", doc.Find(`[data-testid="edit-money"]`).Text())
	}
	return splitNorm(bfftest.Text(doc, "balance"))
}

// norm folds every run of white space (the non-breaking one in "9,00 €" too) into one space.
func splitNorm(s string) string { return strings.Join(strings.Fields(s), " ") }

// refundedAt is what the provider refunded from a payment intent.
func splitRefundedAt(t *testing.T, h *bfftest.Harness, pi string) int64 {
	t.Helper()
	p, ok := h.Prov.Get(pi)
	if !ok {
		t.Fatalf("provider does not know %s", pi)
	}
	return p.RefundedInCents
}

func splitParts(doc *goquery.Document) []string {
	var out []string
	doc.Find(`[data-testid="refund-part"]`).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-state", "")+": "+splitNorm(s.Text()))
	})
	return out
}

// TestRefundSplitOverTwoPayments is the Done-when of 100020: removing two tickets refunds
// across both payments (the newest, PayPal, first and in full; the rest from the card), each
// part its own ledger entry and provider refund, complete-edit once with both parts, and the
// booking page names both parts.
func TestRefundSplitOverTwoPayments(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	refund := removeTwoOfSplit(t, h)
	_, doc := h.Submit("/booking/edit/complete", "/booking/edit", nil)
	changes := splitNorm(doc.Find(`[data-testid="changes"]`).Text())
	if !strings.Contains(changes, "Refunded "+refund) || !strings.Contains(changes, "€9.00 back to PAYPAL") ||
		!strings.Contains(changes, "back to VISA ************4242") || !strings.Contains(changes, "Removed:") {
		t.Fatalf("the booking page does not name both parts: %q (refund %s): %s", changes, refund, doc.Find("main").Text())
	}
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 1 {
		t.Fatalf("%d tickets after removing two of three", n)
	}
	// The booking's payments list both refunds too, each with its card.
	payments := splitNorm(doc.Find("main").Text())
	if !strings.Contains(payments, "€9.00 refunded to PAYPAL") || !strings.Contains(payments, "refunded to VISA ************4242") {
		t.Fatalf("the booking's payments do not list both refunds: %s", payments)
	}
	// The provider: all of the newest payment, the rest from the older.
	total := splitCents(t, refund)
	if got := splitRefundedAt(t, h, splitPayPal); got != 900 {
		t.Fatalf("PayPal payment refunded %d, want all 900", got)
	}
	if got := splitRefundedAt(t, h, splitCard); got != total-900 {
		t.Fatalf("card payment refunded %d, want %d", got, total-900)
	}
	for _, pi := range []string{splitPayPal, splitCard} {
		if list, _ := h.Prov.Refunds(pi); len(list) != 1 {
			t.Fatalf("%s has %d refunds, want 1", pi, len(list))
		}
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 2 || es[0].IdempotencyKey == es[1].IdempotencyKey || es[0].RefundGroup == "" || es[0].RefundGroup != es[1].RefundGroup {
		t.Fatalf("ledger: want two parts of one refund with their own keys: %+v", es)
	}
	for _, e := range es {
		if e.Kind != ledger.KindRefund || e.State != ledger.StateApplied || e.RefundID == "" {
			t.Fatalf("part not applied: %+v", e)
		}
	}
	if n := h.SB.Calls("CompleteEditBooking"); n != 1 {
		t.Fatalf("complete-edit called %d times, want once", n)
	}
	// The booking record carries both refunds (negative amounts).
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bkSplit)
	if err != nil {
		t.Fatal(err)
	}
	var back int64
	for _, p := range b.Payments {
		if p.Amount.Cents < 0 {
			back -= p.Amount.Cents
		}
	}
	if back != total || len(b.Payments) != 4 {
		t.Fatalf("booking payments %+v: refunds add up to %d, want %d", b.Payments, back, total)
	}
	// One message names both parts.
	if m := h.OneMail("edit"); !bfftest.ContainsAmount(t, m.Text, "Refunded: ", 900) || !strings.Contains(m.Text, "PAYPAL") || !strings.Contains(m.Text, "VISA ************4242") {
		t.Fatalf("edit message of a split refund:\n%s", m.Text)
	}
}

// TestRefundSplitOnePartFails: the provider fails the first part (the newest payment); the
// other part is made and stays made, the status page names both and says which one is still
// under way (never "refunded"), and the reconciler finishes it: complete-edit happens once.
func TestRefundSplitOnePartFails(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	refund := removeTwoOfSplit(t, h)
	total := splitCents(t, refund)
	h.Prov.SetFailNext(payprovider.OpRefundsCreate, 1, http.StatusServiceUnavailable)
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(loc, "/booking/edit/status/") {
		t.Fatalf("complete with a failing part: %d %q %s", resp.StatusCode, loc, body)
	}
	if got := splitRefundedAt(t, h, splitPayPal); got != 0 {
		t.Fatalf("the failed part refunded %d", got)
	}
	if got := splitRefundedAt(t, h, splitCard); got != total-900 {
		t.Fatalf("the other part refunded %d, want %d", got, total-900)
	}
	if n := h.SB.Calls("CompleteEditBooking"); n != 0 {
		t.Fatalf("complete-edit called %d times with a part missing", n)
	}
	// The provider is still failing when the customer looks: the page says what is done and
	// what is not.
	h.Prov.SetFailNext(payprovider.OpRefundsCreate, 1, http.StatusServiceUnavailable)
	doc := h.Page(loc, http.StatusOK)
	status := splitNorm(doc.Find(`[data-testid="payment-status"]`).Text())
	parts := splitParts(doc)
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "pending: €9.00 back to PAYPAL") || !strings.Contains(parts[0], "still under way") ||
		!strings.HasPrefix(parts[1], "done: ") || !strings.Contains(parts[1], "back to VISA ************4242") {
		t.Fatalf("status page parts %q: %s", parts, status)
	}
	if low := strings.ToLower(status); strings.Contains(low, "refunded") || strings.Contains(low, "refund complete") {
		t.Fatalf("status page says refunded while a part is still under way: %s", status)
	}
	// The booking page says it too (it only reads the ledger).
	doc = h.Page("/booking/current", http.StatusOK)
	if main := splitNorm(doc.Find("main").Text()); !strings.Contains(main, "€9.00 back to PAYPAL: still under way") || !strings.Contains(main, "back to VISA ************4242: sent back") {
		t.Fatalf("booking page while a part is under way: %s", main)
	}
	if n := h.SB.Calls("CompleteEditBooking"); n != 0 {
		t.Fatalf("complete-edit called %d times with a part missing", n)
	}
	// The reconciler retries the failing part; then complete-edit, once, with both. The
	// provider tells of the refund by webhook too, and that may arrive while the reconciler
	// runs: whichever claims the entries first applies them and the other leaves them be, so
	// the entries settle shortly after (complete-edit still once: checked below).
	h.Srv.Reconcile(context.Background())
	var es []ledger.Entry
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		es, _ = bfftest.Entries(t, h)
		if !slices.ContainsFunc(es, func(e ledger.Entry) bool { return e.State != ledger.StateApplied }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the reconciler: %+v", es)
		}
	}
	if got := splitRefundedAt(t, h, splitPayPal); got != 900 {
		t.Fatalf("PayPal payment refunded %d after the retry", got)
	}
	if got := splitRefundedAt(t, h, splitCard); got != total-900 {
		t.Fatalf("card payment refunded %d, want %d (made once)", got, total-900)
	}
	h.Srv.Reconcile(context.Background())
	if n := h.SB.Calls("CompleteEditBooking"); n != 1 {
		t.Fatalf("complete-edit called %d times, want once", n)
	}
	// The status page now sends the customer to the booking, which names both parts.
	_, doc = h.Follow(h.Get(loc))
	changes := splitNorm(doc.Find(`[data-testid="changes"]`).Text())
	if !strings.Contains(changes, "Refunded "+refund) || !strings.Contains(changes, "€9.00 back to PAYPAL") || !strings.Contains(changes, "back to VISA ************4242") {
		t.Fatalf("booking page after the retry: %q: %s", changes, doc.Find("main").Text())
	}
}

// TestRefundSplitTwoTabs: two presses at the same moment share one refund: one set of parts,
// each refunded once.
func TestRefundSplitTwoTabs(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	refund := removeTwoOfSplit(t, h)
	tok := h.CSRFToken("/booking/edit")
	done := make(chan struct{})
	for range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			req, _ := http.NewRequest("POST", h.TS.URL+"/booking/edit/complete", strings.NewReader(url.Values{"_csrf": {tok}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if resp, err := h.Client.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range 3 {
		<-done
	}
	h.Srv.Reconcile(context.Background())
	es, _ := bfftest.Entries(t, h)
	if len(es) != 2 {
		t.Fatalf("%d ledger entries, want the two parts of one refund: %+v", len(es), es)
	}
	total := splitCents(t, refund)
	if splitRefundedAt(t, h, splitPayPal)+splitRefundedAt(t, h, splitCard) != total {
		t.Fatalf("refunded %d + %d, want %d in all", splitRefundedAt(t, h, splitPayPal), splitRefundedAt(t, h, splitCard), total)
	}
	if n := h.SB.Calls("CompleteEditBooking"); n != 1 {
		t.Fatalf("complete-edit called %d times, want once", n)
	}
}

// splitCents reads "€18.75" (or "18,75 €") as 1875.
func splitCents(t *testing.T, s string) int64 {
	t.Helper()
	var cents int64
	digits := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			cents = cents*10 + int64(r-'0')
			digits++
		}
	}
	if digits < 3 || !strings.ContainsAny(s, ",.") {
		t.Fatalf("not an amount: %q", s)
	}
	return cents
}

// TestStatusNeverSaysRefundedWhileTheRefundFails: a payment the edit could
// not take is being returned, but the provider keeps failing the refund: the status page says
// it is being returned, never that it was refunded, until the provider has refunded it.
func TestStatusNeverSaysRefundedWhileTheRefundFails(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock, Now: clock.Now,
		Breaker: &upstream.BreakerSettings{ConsecutiveFailures: 50, OpenTimeout: time.Second}})
	h.Find(bfftest.BkPaid1)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	hosted := resp.Header.Get("Location")
	bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", HTTPStatus: 503})
	h.PayAtProvider(t, hosted, "pay")
	h.SB.Faults().Clear()
	clock.Advance(11 * time.Minute) // the edit's hold ends: the payment must go back
	h.Prov.SetFailNext(payprovider.OpRefundsCreate, 100, http.StatusServiceUnavailable)
	clock.Advance(2 * time.Minute)
	h.Srv.Reconcile(context.Background())
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateRefundRequested {
		t.Fatalf("want the payment's refund under way: %+v", es)
	}
	doc = h.Page("/booking/edit/status/"+es[0].ID, http.StatusOK)
	status := splitNorm(doc.Find(`[data-testid="payment-status"]`).Text())
	if strings.Contains(strings.ToLower(status), "refunded") || !strings.Contains(status, "being returned") {
		t.Fatalf("status page while the refund keeps failing: %s", status)
	}
	h.Prov.SetFailNext(payprovider.OpRefundsCreate, 0, 0)
	h.Srv.Reconcile(context.Background())
	_, doc = h.Follow(h.Get("/booking/edit/status/" + es[0].ID))
	if status := splitNorm(doc.Find(`[data-testid="payment-status"]`).Text()); !strings.Contains(status, "payment refunded") || !strings.Contains(status, "was returned") {
		t.Fatalf("status page after the refund: %s", status)
	}
}

// TestRefundNothingSentSaysSo: a refund that ended before any money went out (the edit expired
// while the ticketing API was down) says nothing was refunded, not that it was sent.
func TestRefundNothingSentSaysSo(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock, Now: clock.Now})
	removeTwoOfSplit(t, h)
	bfftest.MustFault(h, sandbox.Fault{Operation: "ResetOrderExpiry", HTTPStatus: 503})
	_, doc := h.Submit("/booking/edit/complete", "/booking/edit", nil)
	status := splitNorm(doc.Find(`[data-testid="payment-status"]`).Text())
	if !strings.Contains(status, "Refunding") || strings.Contains(strings.ToLower(status), "refunded") || len(splitParts(doc)) != 2 {
		t.Fatalf("status page while the refund has not started: %s", status)
	}
	h.SB.Faults().Clear()
	clock.Advance(11 * time.Minute)
	h.Srv.Reconcile(context.Background())
	es, _ := bfftest.Entries(t, h)
	if len(es) != 2 || es[0].State != ledger.StateFailed || es[1].State != ledger.StateFailed || es[0].RefundID != "" || es[1].RefundID != "" {
		t.Fatalf("want both parts failed without a refund: %+v", es)
	}
	if splitRefundedAt(t, h, splitCard)+splitRefundedAt(t, h, splitPayPal) != 0 {
		t.Fatal("money went out for an edit that is gone")
	}
	_, doc = h.Follow(h.Get("/booking/edit/status/" + es[0].ID))
	if status := splitNorm(doc.Find(`[data-testid="payment-status"]`).Text()); !strings.Contains(status, "Nothing was refunded") || strings.Contains(status, "was sent") {
		t.Fatalf("status page after the edit ended: %s", status)
	}
}

// TestRefundSplitAtTheCounter: staff at the counter use the same pages and get the same split.
func TestRefundSplitAtTheCounter(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	if err := h.Srv.Staff.Put(context.Background(), "anna", "Anna Box", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {"correct horse battery"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", resp.StatusCode)
	}
	refund := removeTwoOfSplit(t, h)
	_, doc := h.Submit("/booking/edit/complete", "/booking/edit", nil)
	changes := splitNorm(doc.Find(`[data-testid="changes"]`).Text())
	if !strings.Contains(changes, "Refunded "+refund+": €9.00 back to PAYPAL, ") || !strings.Contains(changes, "back to VISA ************4242") {
		t.Fatalf("counter: booking page after the refund: %q", changes)
	}
	if splitRefundedAt(t, h, splitPayPal) != 900 || splitRefundedAt(t, h, splitCard) != splitCents(t, refund)-900 {
		t.Fatal("counter: the refund was not split over both payments")
	}
}
