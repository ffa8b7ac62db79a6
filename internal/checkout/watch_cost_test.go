package checkout

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// TestWatcherReadsTheRecordOncePerCheck: a background check of a waiting order costs one read
// of its record, not one for the check and another for the pause after it (issue 30: with
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
