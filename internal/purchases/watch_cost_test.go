package purchases

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// TestWatcherReadsTheRecordOncePerCheck: a background check of a waiting order costs one read
// of its record, not one for the check and another for the pause after it (with
// 2,000 people on the return page the watchers' reads queued the pages' on SQLite's one
// connection).
func TestWatcherReadsTheRecordOncePerCheck(t *testing.T) {
	e := newWatcherEnv(t)
	var fetches atomic.Int64
	e.w.Poller = NewPoller(func(ctx context.Context, usid string) (cinema.OrderDetails, error) {
		fetches.Add(1)
		return e.up.fetch(ctx, usid)
	}, WithClock(e.clock.Now), WithBackoff(func(time.Duration) time.Duration { return 0 }))
	e.up.set(cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentPending, Token: "tok"}}, nil)
	rec := e.awaiting(t, "o1")
	store := e.w.Store
	before := store.reads.Load()
	e.w.Watch(rec)
	deadline := time.Now().Add(5 * time.Second)
	for fetches.Load() < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	checks := fetches.Load()
	reads := store.reads.Load() - before
	if checks < 20 {
		t.Fatalf("only %d checks in 5 s", checks)
	}
	t.Logf("%d checks, %d record reads", checks, reads)
	if reads > checks+1 { // the check under way may have read already
		t.Fatalf("%d record reads for %d background checks, want at most one per check", reads, checks)
	}
}

// TestWaitingWatchersHoldNoGoroutines: an order waiting between two background checks holds a
// timer, not a goroutine (with its stack, grown by the checks it ran): 2,000 people on the
// return page were 2,000 parked goroutines.
func TestWaitingWatchersHoldNoGoroutines(t *testing.T) {
	p := NewPoller(func(context.Context, string) (cinema.OrderDetails, error) { return cinema.OrderDetails{}, nil })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const orders = 500
	var checks atomic.Int64
	before := runtime.NumGoroutine()
	for i := range orders {
		p.Watch(ctx, fmt.Sprint("order-", i), time.Hour, func(n int) time.Duration {
			if n == 0 {
				return time.Millisecond
			}
			return time.Hour
		}, func(Result) bool { checks.Add(1); return false })
	}
	deadline := time.Now().Add(5 * time.Second)
	for checks.Load() < orders && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if checks.Load() < orders {
		t.Fatalf("%d first checks of %d orders", checks.Load(), orders)
	}
	time.Sleep(20 * time.Millisecond) // the last checks' goroutines end
	extra := runtime.NumGoroutine() - before
	t.Logf("%d orders waiting for their next check: %d more goroutines", orders, extra)
	if extra > 10 {
		t.Fatalf("%d goroutines for %d waiting orders, want none per order", extra, orders)
	}
	// Ending the context ends every watcher at once, without waiting for its next check.
	cancel()
	watched := func() int {
		n := 0
		for i := range orders {
			if p.Watching(fmt.Sprint("order-", i)) {
				n++
			}
		}
		return n
	}
	deadline = time.Now().Add(2 * time.Second)
	for watched() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := watched(); n > 0 {
		t.Fatalf("%d orders still watched 2 s after their context ended", n)
	}
}

// TestWatcherReadsNoRecordWhileNothingHappens: while the upstream says the payment is still
// pending, the background checks read the order's record only now and then (recordRefresh),
// not on every check; a completion is still recorded at the check that sees it.
func TestWatcherReadsNoRecordWhileNothingHappens(t *testing.T) {
	e := newWatcherEnv(t)
	var fetches atomic.Int64
	e.w.Poller = NewPoller(func(ctx context.Context, usid string) (cinema.OrderDetails, error) {
		fetches.Add(1)
		return e.up.fetch(ctx, usid)
	}, WithClock(e.clock.Now), WithBackoff(func(time.Duration) time.Duration { return 0 }))
	e.up.set(cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentPending, Token: "tok"}}, nil)
	rec := e.awaiting(t, "o1")
	before := e.w.Store.reads.Load()
	e.w.Watch(rec)
	deadline := time.Now().Add(5 * time.Second)
	for fetches.Load() < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	checks, reads := fetches.Load(), e.w.Store.reads.Load()-before
	t.Logf("%d checks of a pending payment, %d record reads", checks, reads)
	if checks < 20 || reads > 2 {
		t.Fatalf("%d record reads for %d checks of a pending payment, want at most 2", reads, checks)
	}
	e.up.set(cinema.OrderDetails{Completed: true, BookingNumber: 4711}, nil)
	if got := e.waitFor(t, rec.ID, StateCompleted); got.BookingNumber != 4711 {
		t.Fatalf("completed as %d", got.BookingNumber)
	}
}
