package ledger_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func stores(t *testing.T) map[string]*ledger.Store {
	out := map[string]*ledger.Store{}
	for name, db := range testenv.MigratedDatabases(t) {
		out[name] = ledger.New(db.SQL)
	}
	return out
}

func entry(key string) ledger.Entry {
	return ledger.Entry{Kind: ledger.KindPayment, IdempotencyKey: key, AmountCents: 1250, Currency: "EUR",
		CinemaID: "0001", BookingID: "BK1", BookingNumber: 100001, EditSessionID: "abc"}
}

func TestLedger(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			e, created, err := st.Create(ctx, entry("k1"))
			if err != nil || !created || e.State != ledger.StateCreated {
				t.Fatalf("create: %+v %v %v", e, created, err)
			}
			again, created, err := st.Create(ctx, entry("k1"))
			if err != nil || created || again.ID != e.ID {
				t.Fatalf("repeat create made a second entry: %+v %v %v", again, created, err)
			}
			e, err = st.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRedirected, "provider payment", func(x *ledger.Entry) {
				x.ProviderPaymentID = "pay_1"
			})
			if err != nil || e.ProviderPaymentID != "pay_1" {
				t.Fatalf("transition: %+v %v", e, err)
			}
			if _, err := st.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StatePaid, "", nil); !errors.Is(err, ledger.ErrStateChanged) {
				t.Fatalf("transition from a stale state: %v", err)
			}
			got, err := st.Get(ctx, e.ID)
			if err != nil || got.State != ledger.StateRedirected || got.ProviderPaymentID != "pay_1" {
				t.Fatalf("get: %+v %v", got, err)
			}
			evs, err := st.Events(ctx, e.ID)
			if err != nil || len(evs) != 2 || evs[1].From != ledger.StateCreated || evs[1].To != ledger.StateRedirected {
				t.Fatalf("events: %+v %v", evs, err)
			}
			un, err := st.Unfinished(ctx)
			if err != nil || len(un) != 1 {
				t.Fatalf("unfinished: %d %v", len(un), err)
			}
			if _, err := st.Get(ctx, "nope"); !errors.Is(err, ledger.ErrNotFound) {
				t.Fatalf("get unknown: %v", err)
			}
		})
	}
}

// TestTransitionIsCompareAndSet: many concurrent attempts at the same step, exactly one wins.
func TestTransitionIsCompareAndSet(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			e, _, err := st.Create(ctx, entry("race"))
			if err != nil {
				t.Fatal(err)
			}
			var wins atomic.Int32
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := st.Transition(ctx, e.ID, []ledger.State{ledger.StateCreated}, ledger.StateRedirected, "", nil)
					if err == nil {
						wins.Add(1)
					} else if !errors.Is(err, ledger.ErrStateChanged) && name == "postgres" {
						t.Errorf("unexpected error: %v", err)
					}
				}()
			}
			wg.Wait()
			if wins.Load() != 1 {
				t.Fatalf("%d transitions won, want exactly 1", wins.Load())
			}
		})
	}
}

// TestSoldOnReader: a booking was sold on a reader when its sale was applied; a sale not
// applied yet, a payment for a change and another cinema's booking of that number were not.
func TestSoldOnReader(t *testing.T) {
	sale := func(key string, number int64, cinema string) ledger.Entry {
		e := entry(key)
		e.Kind, e.BookingNumber, e.CinemaID, e.EditSessionID = ledger.KindSale, number, cinema, ""
		return e
	}
	tests := []struct {
		cinema string
		number int64
		want   bool
	}{
		{"0001", 100020, true},  // applied sale
		{"0001", 100021, false}, // a sale still being paid
		{"0001", 100001, false}, // the change's payment (entry's booking)
		{"0002", 100020, false}, // another cinema
	}
	for name, st := range stores(t) {
		ctx := context.Background()
		applied, _, err := st.Create(ctx, sale("s1", 100020, "0001"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Transition(ctx, applied.ID, []ledger.State{ledger.StateCreated}, ledger.StateApplied, "", nil); err != nil {
			t.Fatal(err)
		}
		for _, e := range []ledger.Entry{sale("s2", 100021, "0001"), entry("p1")} {
			if _, _, err := st.Create(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range tests {
			if got, err := st.SoldOnReader(ctx, tt.cinema, tt.number); err != nil || got != tt.want {
				t.Errorf("%s: SoldOnReader(%s, %d) = %v, %v; want %v", name, tt.cinema, tt.number, got, err, tt.want)
			}
		}
	}
}
