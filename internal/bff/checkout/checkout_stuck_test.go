package checkout_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// untruePromises are words the failed-order page must not say: no refund is made by anything,
// and no page mentions e-mail until e-mail is sent.
var untruePromises = []string{"refund", "returned to you", "money back", "e-mail", "email"}

func checkNoPromises(t *testing.T, what, text string) {
	t.Helper()
	low := strings.ToLower(text)
	for _, w := range untruePromises {
		if strings.Contains(low, w) {
			t.Errorf("%s promises %q: %s", what, w, text)
		}
	}
}

// TestBuyNeverConfirmedInTimeThenLateCompletion: the page gives up waiting, the server keeps
// checking; the failed page says only what is true; a late completion is recorded without a
// visit, the same address then shows the confirmation to the visit that paid (never to another
// browser) and the booking can be found as usual.
func TestBuyNeverConfirmedInTimeThenLateCompletion(t *testing.T) {
	old, oldEvery := checkout.GiveUpAfter, checkout.WatchEvery
	checkout.GiveUpAfter = time.Second
	checkout.WatchEvery = func(time.Duration) time.Duration { return 50 * time.Millisecond }
	t.Cleanup(func() { checkout.GiveUpAfter, checkout.WatchEvery = old, oldEvery })
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1}) // the connector never completes by itself
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	_, body := h.Get(ret)
	if h.Doc(body).Find(`[data-testid="poller"]`).Length() != 1 {
		t.Fatalf("not confirming first: %s", body)
	}
	time.Sleep(1100 * time.Millisecond)
	resp, _ := h.Do("GET", ret, nil, http.Header{"Hx-Request": {"true"}})
	if resp.Header.Get("HX-Redirect") == "" {
		t.Fatal("the poll does not move the page on after the time is up")
	}
	_, body = h.Get(ret)
	doc := h.Doc(body)
	failed := doc.Find(`[data-testid="failed-order"]`)
	ref := strings.TrimSpace(doc.Find(`[data-testid="reference"]`).Text())
	if failed.Length() != 1 || len(ref) != 14 || doc.Find(`[data-testid="poller"]`).Length() != 0 {
		t.Fatalf("no failed-order page: %s", body)
	}
	status := strings.Join(strings.Fields(doc.Find(`[data-testid="failed-status"]`).Text()), " ")
	if want := "We have not received confirmation from the cinema yet. We keep checking; your reference is " + ref + "; this page shows the outcome."; status != want {
		t.Fatalf("failed page says %q, want %q", status, want)
	}
	checkNoPromises(t, "the failed page", failed.Text())
	if doc.Find(`[data-testid="check-again"]`).Length() != 1 || doc.Find(`[data-testid="failed-policy"]`).Length() != 0 {
		t.Fatalf("failed page while checking: %s", body)
	}
	rec := h.RecordOf(ret)
	if rec.State != purchases.StateAwaiting || !h.Srv.Watcher.Poller.Watching(rec.UserSessionID) {
		t.Fatalf("not being checked in the background: %s", rec.State)
	}
	// The connector completes late; nobody looks; the server records it.
	if !h.SB.CompleteAwaiting(rec.UserSessionID) {
		t.Fatal("sandbox did not complete the held-back order")
	}
	rec = h.WaitForState(rec.ID, purchases.StateCompleted, 5*time.Second)
	// Opened again later, the same address shows the confirmation to the visit that paid; in
	// another browser it names nothing and sends the owner to the booking look-up.
	resp, body = h.Get(ret)
	doc = h.Doc(body)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text()) != fmt.Sprint(rec.BookingNumber) {
		t.Fatalf("late completion not shown on revisit: %d %s", resp.StatusCode, body)
	}
	h.Client.Jar, _ = cookiejar.New(nil)
	resp, body = h.Get(ret)
	if resp.StatusCode != http.StatusNotFound || strings.Contains(body, fmt.Sprint(rec.BookingNumber)) {
		t.Fatalf("the late confirmation in another browser: %d %s", resp.StatusCode, body)
	}
	// The booking is findable as usual: cinema, number and the e-mail given at the purchase.
	resp, body = h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(rec.BookingNumber)}, "email": {"ada@example.com"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("find the late booking: %d %s", resp.StatusCode, body)
	}
	if got := h.Page("/booking/current", http.StatusOK).Find("h1").Text(); got != "Booking "+fmt.Sprint(rec.BookingNumber) {
		t.Fatalf("booking page %q", got)
	}
	// The customer, who may have left, is told by e-mail, once, with the tickets.
	m := h.OneMail("purchase_late")
	if !strings.Contains(m.Subject, fmt.Sprint(rec.BookingNumber)) || !strings.Contains(m.Text, "confirmed your booking") || len(m.Inline) != 2 {
		t.Fatalf("late-completion message %q with %d QR codes:\n%s", m.Subject, len(m.Inline), m.Text)
	}
	if n := len(h.DeliveredMail("purchase")); n != 0 {
		t.Fatalf("also %d ordinary purchase messages", n)
	}
}

// TestStuckOrderGivenUpAfterTheWindow: with the sandbox's completion disabled, an order is
// checked for the whole window (on the server's clock) and then given up: cancelled upstream,
// recorded with when and why, and the return page shows the outcome with the operator's
// policy text and nothing else about the money.
func TestStuckOrderGivenUpAfterTheWindow(t *testing.T) {
	oldEvery := checkout.WatchEvery
	checkout.WatchEvery = func(time.Duration) time.Duration { return 20 * time.Millisecond }
	t.Cleanup(func() { checkout.WatchEvery = oldEvery })
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, Now: clock.Now})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	rec := h.RecordOf(ret)
	if rec.State != purchases.StateAwaiting || !h.Srv.Watcher.Poller.Watching(rec.UserSessionID) {
		t.Fatalf("an unconfirmed payment is not watched from its start: %s", rec.State)
	}
	// Just before the end of the window nothing is given up.
	clock.Advance(24*time.Hour - time.Minute)
	time.Sleep(300 * time.Millisecond)
	if n := h.SB.Calls("CancelOrder"); n != 0 {
		t.Fatalf("cancelled %d times before the window ended", n)
	}
	if rec = h.RecordOf(ret); rec.State != purchases.StateAwaiting {
		t.Fatalf("given up early: %s", rec.State)
	}
	clock.Advance(2 * time.Minute)
	rec = h.WaitForState(rec.ID, purchases.StateGivenUp, 5*time.Second)
	if n := h.SB.Calls("CancelOrder"); n != 1 {
		t.Fatalf("CancelOrder called %d times, want 1", n)
	}
	if !rec.OrderCancelled || !rec.GivenUp.Equal(clock.Now().Truncate(time.Millisecond)) ||
		!strings.Contains(rec.GiveUpReason, "24 hours") || !strings.Contains(rec.GiveUpReason, "cancelled upstream") {
		t.Fatalf("give-up not recorded: %+v", rec)
	}
	// The seats are released: the upstream no longer knows the order.
	if _, err := h.Srv.Kernel.Ticketing.GetOrderDetails(context.Background(), rec.UserSessionID); !errors.Is(err, upstream.ErrNotFound) {
		t.Fatalf("order still upstream after the give-up: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for h.Srv.Watcher.Poller.Watching(rec.UserSessionID) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if h.Srv.Watcher.Poller.Watching(rec.UserSessionID) {
		t.Fatal("still watching a given-up order")
	}

	// The visit that bought goes to the outcome too, not to "nothing was charged".
	resp, body := h.Get("/checkout")
	bfftest.ExpectRedirect(t, resp, body, "/checkout/payments/"+rec.ID)

	// The same page shows the outcome: the default policy, which promises nothing.
	_, body = h.Get(ret)
	doc := h.Doc(body)
	failed := doc.Find(`[data-testid="failed-order"]`)
	if failed.Length() != 1 || !strings.Contains(doc.Find("h1").Text(), "not completed") ||
		strings.TrimSpace(doc.Find(`[data-testid="failed-policy"]`).Text()) != checkout.DefaultFailedOrderPolicy ||
		!strings.Contains(failed.Text(), "seats were released") || doc.Find(`[data-testid="check-again"]`).Length() != 0 {
		t.Fatalf("given-up page: %s", body)
	}
	checkNoPromises(t, "the given-up page", failed.Text())
	// The customer is told by e-mail: what happened, and the operator's words on the money.
	m := h.OneMail("order_given_up")
	if !strings.Contains(m.Text, checkout.DefaultFailedOrderPolicy) || !strings.Contains(m.Text, "cancelled upstream") || !strings.Contains(m.Subject, rec.Reference()) {
		t.Fatalf("given-up message %q:\n%s", m.Subject, m.Text)
	}
	// What is said about the money is the operator's text, word for word.
	h.Srv.Settings.FailedOrderPolicy = "Payments for orders we could not complete are paid back within 5 working days; the box office can help."
	_, body = h.Get(ret)
	if got := strings.TrimSpace(h.Doc(body).Find(`[data-testid="failed-policy"]`).Text()); got != h.Srv.Settings.FailedOrderPolicy {
		t.Fatalf("policy shown %q", got)
	}
	// A poll of the page after the give-up sends it to the outcome.
	if resp, _ := h.Do("GET", ret, nil, http.Header{"Hx-Request": {"true"}}); resp.Header.Get("HX-Redirect") == "" {
		t.Fatal("poll after the give-up does not move the page on")
	}
}

// TestCheckoutWatchersSurviveARestart: a second server on the same database (a restart) picks
// up the unconfirmed payment and records its late completion.
func TestCheckoutWatchersSurviveARestart(t *testing.T) {
	oldEvery := checkout.WatchEvery
	checkout.WatchEvery = func(time.Duration) time.Duration { return time.Hour } // the first server's watcher sleeps
	t.Cleanup(func() { checkout.WatchEvery = oldEvery })
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	rec := h.RecordOf(ret)

	bg, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	s := h.Srv
	again, err := bff.New(bff.Deps{Config: s.Config, Logger: s.Kernel.Logger, DB: s.DB, SessionStore: h.Store, Device: s.Kernel.Devices, Assets: s.Kernel.Assets,
		Ticketing: s.Kernel.Ticketing, Payments: s.Payments, Storage: s.Storage, Now: s.Kernel.Now, Background: bg, Mail: h.MailDeps})
	if err != nil {
		t.Fatal(err)
	}
	again.Watcher.Every = func(time.Duration) time.Duration { return 20 * time.Millisecond }
	if n, err := again.ResumeCheckoutWatchers(context.Background()); err != nil || n != 1 || !again.Watcher.Poller.Watching(rec.UserSessionID) {
		t.Fatalf("resumed %d watchers: %v", n, err)
	}
	if !h.SB.CompleteAwaiting(rec.UserSessionID) {
		t.Fatal("sandbox did not complete the order")
	}
	rec = h.WaitForState(rec.ID, purchases.StateCompleted, 5*time.Second)
	if rec.BookingNumber == 0 {
		t.Fatalf("completed without a booking number: %+v", rec)
	}
}
