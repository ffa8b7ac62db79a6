package holds_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// fakeOrders answers GetOrder per order: an expiry (alive) or an error.
type fakeOrders struct {
	mu    sync.Mutex
	alive map[string]time.Time
	asked []string
}

func (f *fakeOrders) GetOrder(_ context.Context, usid string) (cinema.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, usid)
	if exp, ok := f.alive[usid]; ok {
		return cinema.Order{Expires: exp}, nil
	}
	return cinema.Order{}, upstream.ErrOrderExpired
}

// TestKeeperSettlesOrdersWhoseEndWasNotSeen: at its limit, a client's orders are settled
// before it is refused: a booked or given-up order (the payment records say so) and one the
// upstream no longer has stop counting; one whose payment is under way, and one still alive,
// keep counting; the alive one's expiry follows the upstream.
func TestKeeperSettlesOrdersWhoseEndWasNotSeen(t *testing.T) {
	eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
		ctx := context.Background()
		orders := &fakeOrders{alive: map[string]time.Time{"alive": clk.Now().Add(5 * time.Minute), "fourth": clk.Now().Add(20 * time.Minute)}}
		payments := map[string]holds.Payment{"booked": holds.PaymentCompleted, "paying": holds.PaymentUnderWay}
		k := &holds.Keeper{Store: st, Orders: orders, Now: clk.Now, MaxOrdersPerClient: 3,
			Payment: func(_ context.Context, usid string) holds.Payment { return payments[usid] }}
		key := holds.ClientKey("192.0.2.7")
		for _, usid := range []string{"booked", "paying", "alive"} {
			if err := k.Open(ctx, key, usid, 2, ""); err != nil {
				t.Fatalf("open %s: %v", usid, err)
			}
			clk.Advance(time.Second)
		}
		// The fourth: "booked" ended unseen, so it is admitted after settling.
		if err := k.Open(ctx, key, "fourth", 2, ""); err != nil {
			t.Fatalf("fourth order refused although one had ended: %v", err)
		}
		if h, _, _ := st.Get(ctx, "booked"); h.EndReason != holds.ReasonCompleted {
			t.Fatalf("booked order ended as %q", h.EndReason)
		}
		if h, _, _ := st.Get(ctx, "alive"); !h.Expires.Equal(clk.Now().Add(5*time.Minute - 3*time.Second).Truncate(time.Millisecond)) {
			t.Fatalf("alive order's expiry %v not the upstream's", h.Expires)
		}
		for _, usid := range orders.asked {
			if usid == "booked" || usid == "paying" {
				t.Fatalf("asked the upstream about %s, which the payment records answer", usid)
			}
		}
		// Now at the limit with orders that all hold seats: refused, nothing recorded.
		var le *holds.LimitError
		if err := k.Open(ctx, key, "fifth", 2, ""); !errors.As(err, &le) || le.Open != 3 || le.Limit != 3 {
			t.Fatalf("fifth order: %v", err)
		}
		if _, found, _ := st.Get(ctx, "fifth"); found {
			t.Fatal("a refused order was recorded")
		}
		// The order it replaces does not count.
		if err := k.Open(ctx, key, "fifth", 2, "fourth"); err != nil {
			t.Fatalf("replacing order refused: %v", err)
		}
	})
}

// TestKeeperBookkeeping: a hold's expiry never runs past the lifetime; ending is idempotent
// and survives a cancelled request; a dropped hold is gone; without a store nothing happens.
func TestKeeperBookkeeping(t *testing.T) {
	eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
		ctx := context.Background()
		k := &holds.Keeper{Store: st, Now: clk.Now, Lifetime: 10 * time.Minute}
		if got := k.Until(clk.Now().Add(time.Hour)); !got.Equal(clk.Now().Add(10 * time.Minute)) {
			t.Fatalf("until beyond the lifetime: %v", got)
		}
		if got := k.Until(time.Time{}); !got.Equal(clk.Now().Add(10 * time.Minute)) {
			t.Fatalf("until unknown: %v", got)
		}
		if got := k.Until(clk.Now().Add(3 * time.Minute)); !got.Equal(clk.Now().Add(3 * time.Minute)) {
			t.Fatalf("until the upstream's expiry: %v", got)
		}
		key := holds.ClientKey("192.0.2.8")
		if err := k.Open(ctx, key, "o1", 1, ""); err != nil {
			t.Fatal(err)
		}
		k.Started(ctx, "o1", cinema.Order{Expires: clk.Now().Add(4 * time.Minute)})
		if h, _, _ := st.Get(ctx, "o1"); !h.Expires.Equal(clk.Now().Add(4 * time.Minute)) {
			t.Fatalf("started: expires %v", h.Expires)
		}
		k.Extended(ctx, "o1", upstream.ExpiryReset{})
		if h, _, _ := st.Get(ctx, "o1"); !h.Expires.Equal(clk.Now().Add(10 * time.Minute)) {
			t.Fatalf("extended without the order: expires %v", h.Expires)
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		k.End(cancelled, "o1", holds.ReasonCancelled)
		k.End(ctx, "o1", holds.ReasonExpired)
		if h, _, _ := st.Get(ctx, "o1"); h.EndReason != holds.ReasonCancelled {
			t.Fatalf("end reason %q, want the first", h.EndReason)
		}
		if err := k.Open(ctx, key, "o2", 1, ""); err != nil {
			t.Fatal(err)
		}
		k.Drop(ctx, "o2")
		if _, found, _ := st.Get(ctx, "o2"); found {
			t.Fatal("dropped hold still recorded")
		}

		var none holds.Keeper
		none.End(ctx, "o1", holds.ReasonEnded)
		none.Extend(ctx, "o1", time.Time{})
		if err := none.Open(ctx, key, "o3", 1, ""); err != nil || none.Settle(ctx, key, "") {
			t.Fatalf("keeper without a store: %v", err)
		}
	})
}
