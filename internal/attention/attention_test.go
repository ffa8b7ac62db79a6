package attention_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

type env struct {
	checkouts *purchases.Store
	ledger    *ledger.Store
	actions   *attention.Store
	lister    attention.Lister
	now       time.Time
}

// envs opens a migrated database of each dialect.
func envs(t *testing.T) map[string]*env {
	out := map[string]*env{}
	for name, db := range testenv.MigratedDatabases(t) {
		e := &env{now: time.Now().Add(-2 * time.Hour).Truncate(time.Millisecond)}
		clock := func() time.Time { return e.now }
		e.checkouts = purchases.NewStore(db.SQL, clock)
		e.ledger = ledger.New(db.SQL)
		e.actions = attention.New(db.SQL, clock)
		e.lister = attention.Lister{Checkouts: e.checkouts, Ledger: e.ledger, Actions: e.actions, Now: clock, StuckAfter: 10 * time.Minute, MinAttempts: 3}
		out[name] = e
	}
	return out
}

func (e *env) awaiting(t *testing.T, order string, cents int64) purchases.Record {
	t.Helper()
	r, err := e.checkouts.Create(context.Background(), purchases.Record{UserSessionID: order, CinemaID: "0001", SessionID: "1113",
		CustomerName: "Ada", CustomerEmail: "ada@example.com", AmountCents: cents, Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = e.checkouts.MarkAwaiting(context.Background(), r.ID, "https://pay.example/"+order, "tok-"+order); err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) refund(t *testing.T, key string, cents int64) ledger.Entry {
	t.Helper()
	en, _, err := e.ledger.Create(context.Background(), ledger.Entry{Kind: ledger.KindRefund, IdempotencyKey: key, AmountCents: cents, Currency: "EUR",
		CinemaID: "0001", BookingID: "BK1", BookingNumber: 100001, EditSessionID: "edit-" + key, ProviderPaymentID: "pi_" + key})
	if err != nil {
		t.Fatal(err)
	}
	return en
}

func refs(items []attention.Item) string {
	var out []string
	for _, it := range items {
		out = append(out, string(it.Kind)+":"+it.Ref+":"+string(it.Reason))
	}
	return strings.Join(out, " ")
}

func TestNeedsAttentionListAndActions(t *testing.T) {
	for name, e := range envs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			stuck := e.awaiting(t, "stuck", 2650)
			e.now = e.now.Add(time.Minute)
			givenUp := e.awaiting(t, "gone", 1250)
			e.now = e.now.Add(30 * time.Minute)
			fresh := e.awaiting(t, "fresh", 900) // started just now: not stuck yet
			if _, err := e.checkouts.MarkGivenUp(ctx, givenUp.ID, "no confirmation within 24 hours", true); err != nil {
				t.Fatal(err)
			}
			// Ledger: a refund paid out that the booking never took (staff review), a refund that
			// keeps failing, one that failed only once, and a payment declined (nothing to do).
			review := e.refund(t, "review", 850)
			if _, err := e.ledger.Transition(ctx, review.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed,
				"refund issued, edit not applied: staff review", func(x *ledger.Entry) { x.RefundID, x.LastError = "re_1", "edit gone" }); err != nil {
				t.Fatal(err)
			}
			failing := e.refund(t, "failing", 475)
			for range 3 {
				if err := e.ledger.Note(ctx, failing.ID, "provider refund: timeout"); err != nil {
					t.Fatal(err)
				}
			}
			once := e.refund(t, "once", 100)
			_ = e.ledger.Note(ctx, once.ID, "provider refund: timeout")
			declined, _, _ := e.ledger.Create(ctx, ledger.Entry{Kind: ledger.KindPayment, IdempotencyKey: "declined", AmountCents: 300, Currency: "EUR",
				CinemaID: "0001", BookingID: "BK1", BookingNumber: 100001, EditSessionID: "e-d"})
			if _, err := e.ledger.Transition(ctx, declined.ID, []ledger.State{ledger.StateCreated}, ledger.StateFailed, "provider says declined", nil); err != nil {
				t.Fatal(err)
			}

			items, err := e.lister.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := refs(items)
			want := "checkout:" + stuck.ID + ":stuck_order checkout:" + givenUp.ID + ":given_up"
			if !strings.HasPrefix(got, want) || len(items) != 4 || !strings.Contains(got, "ledger:"+review.ID+":review") ||
				!strings.Contains(got, "ledger:"+failing.ID+":keeps_failing") || strings.Contains(got, fresh.ID) ||
				strings.Contains(got, once.ID) || strings.Contains(got, declined.ID) {
				t.Fatalf("list:\n got %s\nwant %s + the review and failing refunds", got, want)
			}
			if it := items[0]; it.Reference != stuck.Reference() || it.AmountCents != 2650 || it.Currency != "EUR" || !it.Since.Equal(stuck.Created) || it.Checkout == nil {
				t.Fatalf("stuck item %+v", it)
			}
			for _, it := range items {
				if it.Kind == attention.KindLedger && (it.Reference != it.Ref[:12] || it.Entry == nil) {
					t.Fatalf("ledger item %+v", it)
				}
			}

			// A retry is recorded with who did it and stays on the list.
			if _, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: stuck.ID, Action: attention.ActionRetry, Staff: "anna", Note: "still not confirmed"}); err != nil {
				t.Fatal(err)
			}
			it, ok, err := e.lister.Find(ctx, attention.KindCheckout, stuck.ID)
			if err != nil || !ok || it.Last == nil || it.Last.Staff != "anna" || it.Last.Action != attention.ActionRetry || !it.Last.At.Equal(e.now) {
				t.Fatalf("after retry: %+v %v %v", it, ok, err)
			}
			// Resolving needs a note.
			for _, note := range []string{"", "   \n "} {
				if _, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: stuck.ID, Action: attention.ActionResolve, Staff: "anna", Note: note}); !errors.Is(err, attention.ErrNoteRequired) {
					t.Fatalf("resolve with note %q: %v", note, err)
				}
			}
			if _, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: stuck.ID, Action: attention.ActionResolve, Staff: "anna", Note: strings.Repeat("x", attention.MaxNote+1)}); !errors.Is(err, attention.ErrNoteTooLong) {
				t.Fatalf("long note: %v", err)
			}
			if _, err := e.actions.Record(ctx, attention.Action{Kind: "other", Ref: stuck.ID, Action: attention.ActionRetry, Staff: "anna"}); !errors.Is(err, attention.ErrInvalid) {
				t.Fatalf("unknown kind: %v", err)
			}
			if _, ok, _ := e.lister.Find(ctx, attention.KindCheckout, stuck.ID); !ok {
				t.Fatal("a refused resolve removed the item")
			}
			e.now = e.now.Add(time.Minute)
			// An order that may have been paid: a clerk's resolve names the supervisor who approved it.
			if _, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: stuck.ID, Action: attention.ActionResolve, Staff: "ben", Note: "Called the customer"}); !errors.Is(err, attention.ErrApprovalRequired) {
				t.Fatalf("resolve of a money item without a supervisor: %v", err)
			}
			res, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: stuck.ID, Action: attention.ActionResolve, Staff: "ben",
				ApprovedBy: "vera", Note: "Called the customer; paid at the box office."})
			if err != nil || res.ID == 0 {
				t.Fatalf("resolve: %+v %v", res, err)
			}
			if _, ok, _ := e.lister.Find(ctx, attention.KindCheckout, stuck.ID); ok {
				t.Fatal("resolved item still listed")
			}
			if prev, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: stuck.ID, Action: attention.ActionResolve, Staff: "carl", ApprovedBy: "vera", Note: "again"}); !errors.Is(err, attention.ErrAlreadyResolved) || prev.Staff != "ben" {
				t.Fatalf("second resolve: %+v %v", prev, err)
			}
			if r, ok, err := e.actions.Resolution(ctx, attention.KindCheckout, stuck.ID); err != nil || !ok || r.Staff != "ben" || r.ApprovedBy != "vera" || !r.At.Equal(e.now) || !strings.Contains(r.Note, "box office") {
				t.Fatalf("resolution %+v %v %v", r, ok, err)
			}
			hist, err := e.actions.Actions(ctx, attention.KindCheckout, stuck.ID)
			if err != nil || len(hist) != 2 || hist[0].Staff != "anna" || hist[1].Staff != "ben" || hist[1].Action != attention.ActionResolve || hist[1].ApprovedBy != "vera" {
				t.Fatalf("history %+v %v", hist, err)
			}
			// The same reference of the other kind is another item.
			if _, ok, _ := e.actions.Resolution(ctx, attention.KindLedger, stuck.ID); ok {
				t.Fatal("resolution leaked to the other kind")
			}
			items, _ = e.lister.List(ctx)
			if len(items) != 3 {
				t.Fatalf("after resolving one: %s", refs(items))
			}
		})
	}
}

// TestResolveConcurrently: many staff press "Mark resolved" at once; exactly one resolve is recorded.
func TestResolveConcurrently(t *testing.T) {
	for name, e := range envs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r := e.awaiting(t, "race", 100)
			var wins atomic.Int32
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := e.actions.Record(ctx, attention.Action{Kind: attention.KindCheckout, Ref: r.ID, Action: attention.ActionResolve,
						Staff: "s" + string(rune('a'+i)), ApprovedBy: "s" + string(rune('a'+i)), Note: "done"})
					switch {
					case err == nil:
						wins.Add(1)
					case errors.Is(err, attention.ErrAlreadyResolved):
					case name == "postgres":
						t.Errorf("unexpected error: %v", err)
					}
				}()
			}
			wg.Wait()
			if wins.Load() != 1 {
				t.Fatalf("%d resolves won, want exactly 1", wins.Load())
			}
			hist, _ := e.actions.Actions(ctx, attention.KindCheckout, r.ID)
			if len(hist) != 1 {
				t.Fatalf("%d resolve actions recorded", len(hist))
			}
		})
	}
}
