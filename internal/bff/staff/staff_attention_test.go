package staff_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// with is form with more values.
func with(form url.Values, more url.Values) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// attentionRow finds the list's row of an item.
func attentionRow(doc *goquery.Document, kind attention.Kind, ref string) *goquery.Selection {
	return doc.Find(`[data-testid="attention-item"][data-kind="` + string(kind) + `"][data-ref="` + ref + `"]`)
}

// TestStuckOrderNeedsAttention: a stuck order (sandbox completion disabled) appears on
// /staff/attention for signed-in staff, never for a customer; Retry checks it now and is
// recorded; Mark resolved needs a note and then removes it, recorded with the staff username.
func TestStuckOrderNeedsAttention(t *testing.T) {
	oldEvery := checkout.WatchEvery
	checkout.WatchEvery = func(time.Duration) time.Duration { return time.Hour } // Retry, not the watcher, finds the completion
	t.Cleanup(func() { checkout.WatchEvery = oldEvery })
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, Now: clock.Now})
	ctx := context.Background()
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	stuck := h.RecordOf(ret)
	customer := h.Client.Jar

	// A second stuck order, to resolve.
	h.Client.Jar, _ = cookiejar.New(nil)
	h.BuyUpToSummary("1113", url.Values{"qty-0002": {"1"}})
	other := h.RecordOf(h.ActAtProvider(h.PressPay(), "pay"))
	clock.Advance(11 * time.Minute) // "being checked for more than a few minutes"

	// A customer never sees the list, nor can act on it.
	h.Client.Jar = customer
	resp, body := h.Get("/staff/attention")
	if resp.StatusCode != http.StatusForbidden || strings.Contains(body, stuck.Reference()) || !strings.Contains(body, "/staff/sign-in") {
		t.Fatalf("customer sees the list: %d %s", resp.StatusCode, body)
	}
	for _, action := range []string{"retry", "resolve"} {
		resp, body = h.Post("/staff/attention/checkout/"+stuck.ID+"/"+action, "/booking", url.Values{"note": {"sneaky"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("customer %s: %d %s", action, resp.StatusCode, body)
		}
	}
	if hist, _ := attention.New(h.DB.SQL, nil).Actions(ctx, attention.KindCheckout, stuck.ID); len(hist) != 0 {
		t.Fatalf("a customer's action was recorded: %+v", hist)
	}

	h.SignInStaff("anna", "Anna Box")
	doc := h.Page("/staff/attention", http.StatusOK)
	if doc.Find(`nav a[href="/staff/attention"]`).Length() != 1 {
		t.Fatal("no Needs attention link in the staff header")
	}
	row := attentionRow(doc, attention.KindCheckout, stuck.ID)
	if row.Length() != 1 || attentionRow(doc, attention.KindCheckout, other.ID).Length() != 1 {
		t.Fatalf("stuck orders not listed: %s", doc.Find("main").Text())
	}
	if got := row.Find(`[data-testid="attention-reference"]`).Text(); got != stuck.Reference() {
		t.Fatalf("reference %q, want %q", got, stuck.Reference())
	}
	if got := row.Find(`[data-testid="attention-amount"]`).Text(); got != "€26.50" {
		t.Fatalf("amount %q", got)
	}
	if got := row.Find(`[data-testid="attention-age"]`).Text(); got != "11 min" {
		t.Fatalf("age %q", got)
	}
	if !strings.Contains(row.Text(), "Order not confirmed") || !strings.Contains(row.Text(), "ada@example.com") ||
		row.Find(`form[data-testid="retry-form"] input[name="_csrf"]`).Length() != 1 || row.Find(`form[data-testid="resolve-form"] input[name="note"][required]`).Length() != 1 {
		t.Fatalf("row: %s", row.Text())
	}

	// Retry: checks the order now (still not confirmed), recorded with who did it.
	before := h.SB.Calls("GetOrderDetails")
	_, doc = h.Submit("/staff/attention/checkout/"+stuck.ID+"/retry", "/staff/attention", nil)
	if h.SB.Calls("GetOrderDetails") == before {
		t.Fatal("Retry did not ask the upstream")
	}
	if !strings.Contains(doc.Find(`[data-testid="notice-info"]`).Text(), "Still not confirmed") {
		t.Fatalf("retry outcome not shown: %s", doc.Find("main").Text())
	}
	if last := attentionRow(doc, attention.KindCheckout, stuck.ID).Find(`[data-testid="attention-last"]`).Text(); !strings.Contains(last, "retried by anna") {
		t.Fatalf("last action %q", last)
	}
	// The connector completes late; Retry finds it: recorded completed, off the list.
	if !h.SB.CompleteAwaiting(stuck.UserSessionID) {
		t.Fatal("sandbox did not complete the order")
	}
	_, doc = h.Submit("/staff/attention/checkout/"+stuck.ID+"/retry", "/staff/attention", nil)
	done, _ := h.Srv.Purchases.Get(ctx, stuck.ID)
	if done.State != purchases.StateCompleted || !strings.Contains(doc.Find(`[data-testid="notice-info"]`).Text(), fmt.Sprintf("booking %d", done.BookingNumber)) ||
		attentionRow(doc, attention.KindCheckout, stuck.ID).Length() != 0 {
		t.Fatalf("retry of a completed order: %s, %s", done.State, doc.Find("main").Text())
	}
	hist, _ := attention.New(h.DB.SQL, nil).Actions(ctx, attention.KindCheckout, stuck.ID)
	if len(hist) != 2 || hist[0].Staff != "anna" || hist[0].Action != attention.ActionRetry || !strings.Contains(hist[1].Note, "completed") {
		t.Fatalf("retries recorded: %+v", hist)
	}

	// Mark resolved without a note is refused (422) and changes nothing.
	for _, note := range []string{"", "   "} {
		resp, body = h.Post("/staff/attention/checkout/"+other.ID+"/resolve", "/staff/attention", url.Values{"note": {note}})
		doc = h.Doc(body)
		if resp.StatusCode != http.StatusUnprocessableEntity || attentionRow(doc, attention.KindCheckout, other.ID).Find(`[data-testid="note-error"]`).Length() != 1 {
			t.Fatalf("resolve with note %q: %d %s", note, resp.StatusCode, body)
		}
		if in := attentionRow(doc, attention.KindCheckout, other.ID).Find(`input[name="note"]`); in.AttrOr("aria-invalid", "") != "true" || in.AttrOr("autofocus", "x") == "x" {
			t.Fatal("the note field is not marked invalid and focused")
		}
	}
	// An order that may have been paid is about money: a clerk's note alone does not resolve
	// it (403, the form asks for a supervisor), nor a wrong PIN.
	approval := h.AddApprover()
	h.SignInStaff("ben", "Ben Counter")
	note := url.Values{"note": {"Customer called; sold at the box office instead."}}
	for _, form := range []url.Values{note, with(note, url.Values{"approver": {bfftest.TestSupervisor}, "pin": {"000000"}}), with(note, url.Values{"approver": {"ben"}, "pin": {"123456"}})} {
		resp, body = h.Post("/staff/attention/checkout/"+other.ID+"/resolve", "/staff/attention", form)
		row := attentionRow(h.Doc(body), attention.KindCheckout, other.ID)
		if resp.StatusCode != http.StatusForbidden || row.Find(`[data-testid="resolve-approval"] input[name="pin"]`).Length() != 1 {
			t.Fatalf("a clerk's resolve with %v: %d %s", form, resp.StatusCode, row.Text())
		}
	}
	if _, ok, _ := attention.New(h.DB.SQL, nil).Resolution(ctx, attention.KindCheckout, other.ID); ok {
		t.Fatal("resolved without a supervisor's approval")
	}
	// With a supervisor's username and PIN it leaves the list, recorded with the staff
	// username and who approved it.
	_, doc = h.Submit("/staff/attention/checkout/"+other.ID+"/resolve", "/staff/attention", with(note, approval))
	if attentionRow(doc, attention.KindCheckout, other.ID).Length() != 0 || !strings.Contains(doc.Find(`[data-testid="notice-info"]`).Text(), "Marked resolved: "+other.Reference()) {
		t.Fatalf("resolved item still listed: %s", doc.Find("main").Text())
	}
	res, ok, err := attention.New(h.DB.SQL, nil).Resolution(ctx, attention.KindCheckout, other.ID)
	if err != nil || !ok || res.Staff != "ben" || res.ApprovedBy != bfftest.TestSupervisor || res.Note != "Customer called; sold at the box office instead." || res.At.IsZero() {
		t.Fatalf("resolution %+v %v %v", res, ok, err)
	}
	// Again (an old page): nothing new recorded, and it says who resolved it.
	_, doc = h.Submit("/staff/attention/checkout/"+other.ID+"/resolve", "/staff/attention", with(url.Values{"note": {"again"}}, approval))
	if !strings.Contains(doc.Find(`[data-testid="notice-info"]`).Text(), "already marked resolved by ben") {
		t.Fatalf("second resolve: %s", doc.Find("main").Text())
	}
	if hist, _ := attention.New(h.DB.SQL, nil).Actions(ctx, attention.KindCheckout, other.ID); len(hist) != 1 {
		t.Fatalf("%d actions after a repeated resolve", len(hist))
	}
	if doc.Find(`[data-testid="attention-empty"]`).Length() != 1 {
		t.Fatalf("list not empty: %s", doc.Find("main").Text())
	}
}

// TestLedgerEntriesNeedAttention: a refund paid out that the booking never took (staff review)
// and a refund that keeps failing are listed; Retry advances the failing one with the settler;
// the ended one offers no Retry, only Mark resolved.
func TestLedgerEntriesNeedAttention(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	ctx := context.Background()
	mk := func(key string, cents int64) ledger.Entry {
		e, _, err := h.Srv.Ledger.Create(ctx, ledger.Entry{Kind: ledger.KindRefund, IdempotencyKey: key, AmountCents: cents, Currency: "EUR",
			CinemaID: "0001", BookingID: "BK1", BookingNumber: 100001, EditSessionID: upstream.NewUserSessionID(), ProviderPaymentID: "pi_" + key})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	review := mk("review", 850)
	if _, err := h.Srv.Ledger.Transition(ctx, review.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "refund issued, edit not applied: staff review",
		func(x *ledger.Entry) {
			x.RefundID, x.LastError = "re_1", "refund issued but the booking change could not be completed"
		}); err != nil {
		t.Fatal(err)
	}
	failing := mk("failing", 475)
	for range 3 {
		_ = h.Srv.Ledger.Note(ctx, failing.ID, "check the edit before refunding: upstream unavailable")
	}
	h.SignInStaff("anna", "Anna Box")
	doc := h.Page("/staff/attention", http.StatusOK)
	rr, fr := attentionRow(doc, attention.KindLedger, review.ID), attentionRow(doc, attention.KindLedger, failing.ID)
	if rr.Length() != 1 || fr.Length() != 1 {
		t.Fatalf("ledger entries not listed: %s", doc.Find("main").Text())
	}
	if !strings.Contains(rr.Text(), "Refund needs review") || rr.Find(`[data-testid="attention-reference"]`).Text() != review.ID[:12] ||
		rr.Find(`[data-testid="attention-amount"]`).Text() != "€8.50" || rr.Find(`[data-testid="retry-form"]`).Length() != 0 {
		t.Fatalf("review row: %s", rr.Text())
	}
	if !strings.Contains(fr.Text(), "Refund keeps failing") || fr.Find(`[data-testid="retry-form"]`).Length() != 1 {
		t.Fatalf("failing row: %s", fr.Text())
	}
	// Retry advances it: the edit is gone, so nothing is refunded and the entry ends; it then
	// needs nobody and leaves the list.
	_, doc = h.Submit("/staff/attention/ledger/"+failing.ID+"/retry", "/staff/attention", nil)
	after, _ := h.Srv.Ledger.Get(ctx, failing.ID)
	if after.State != ledger.StateFailed || !strings.Contains(doc.Find(`[data-testid="notice-info"]`).Text(), "now failed") ||
		attentionRow(doc, attention.KindLedger, failing.ID).Length() != 0 {
		t.Fatalf("retry: %s, %s", after.State, doc.Find("main").Text())
	}
	if hist, _ := attention.New(h.DB.SQL, nil).Actions(ctx, attention.KindLedger, failing.ID); len(hist) != 1 || hist[0].Staff != "anna" {
		t.Fatalf("retry not recorded: %+v", hist)
	}
	// A supervisor resolves money items with a note alone.
	h.AddApprover()
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	doc = h.Page("/staff/attention", http.StatusOK)
	if attentionRow(doc, attention.KindLedger, review.ID).Find(`[data-testid="resolve-approval"]`).Length() != 0 {
		t.Fatal("a supervisor is asked for a supervisor's approval")
	}
	_, doc = h.Submit("/staff/attention/ledger/"+review.ID+"/resolve", "/staff/attention", url.Values{"note": {"Booking changed by hand at the counter."}})
	if attentionRow(doc, attention.KindLedger, review.ID).Length() != 0 {
		t.Fatal("resolved ledger entry still listed")
	}
	if res, _, _ := attention.New(h.DB.SQL, nil).Resolution(ctx, attention.KindLedger, review.ID); res.ApprovedBy != bfftest.TestSupervisor {
		t.Fatalf("resolution %+v", res)
	}
	if resp, _ := h.Post("/staff/attention/nonsense/"+review.ID+"/retry", "/staff/attention", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown kind: %d", resp.StatusCode)
	}
}

// TestAttentionAfterIsASetting: with -attention-after 1m an order whose redirect
// payment never completes is listed one minute after its payment started, not before, and the
// page says which value applies.
func TestAttentionAfterIsASetting(t *testing.T) {
	oldEvery := checkout.WatchEvery
	checkout.WatchEvery = func(time.Duration) time.Duration { return time.Hour } // the list, not the watcher, is under test
	t.Cleanup(func() { checkout.WatchEvery = oldEvery })
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, Now: clock.Now, AttentionAfter: time.Minute})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	stuck := h.RecordOf(h.ActAtProvider(h.PressPay(), "pay"))
	h.Client.Jar, _ = cookiejar.New(nil)
	h.SignInStaff("anna", "Anna Clerk")
	listed := func() (bool, string) {
		resp, body := h.Get("/staff/attention")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("attention list: %d %s", resp.StatusCode, body)
		}
		return attentionRow(h.Doc(body), attention.KindCheckout, stuck.ID).Length() == 1, body
	}
	clock.Advance(50 * time.Second)
	if on, _ := listed(); on {
		t.Fatalf("listed 50 s after the payment started, with -attention-after 1m")
	}
	clock.Advance(15 * time.Second)
	on, body := listed()
	if !on {
		t.Fatalf("not listed 65 s after the payment started, with -attention-after 1m: %s", body)
	}
	if want := webtest.English(t).Duration(time.Minute); !strings.Contains(h.Doc(body).Find(".lead").Text(), want) {
		t.Errorf("the page does not say the setting (%q): %s", want, h.Doc(body).Find(".lead").Text())
	}
}
