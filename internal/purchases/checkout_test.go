package purchases

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestPollerCoalescesWithinInterval(t *testing.T) {
	var calls atomic.Int64
	release := make(chan struct{})
	p := NewPoller(func(ctx context.Context, id string) (cinema.OrderDetails, error) {
		calls.Add(1)
		<-release
		return cinema.OrderDetails{UserSessionID: id}, nil
	}, WithBackoff(func(time.Duration) time.Duration { return time.Hour }))
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); p.Get(context.Background(), "a") }()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	for i := 0; i < 10; i++ {
		if r := p.Get(context.Background(), "a"); r.Err != nil || r.Details.UserSessionID != "a" {
			t.Fatalf("cached result %+v", r)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d fetches for 60 askers within one interval, want 1", n)
	}
	p.Get(context.Background(), "b")
	if n := calls.Load(); n != 2 {
		t.Fatalf("another order must fetch on its own: %d", n)
	}
}

func TestPollerRefetchesAfterIntervalAndKeepsCompleted(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	var calls atomic.Int64
	completed := false
	p := NewPoller(func(ctx context.Context, id string) (cinema.OrderDetails, error) {
		calls.Add(1)
		if calls.Load() == 2 {
			return cinema.OrderDetails{}, errors.New("upstream down")
		}
		return cinema.OrderDetails{Completed: completed}, nil
	}, WithClock(clock))
	p.Get(context.Background(), "x")
	advance(PollInterval - 100*time.Millisecond)
	p.Get(context.Background(), "x")
	if calls.Load() != 1 {
		t.Fatalf("fetched again within the interval: %d", calls.Load())
	}
	advance(100 * time.Millisecond)
	if r := p.Get(context.Background(), "x"); r.Err == nil {
		t.Fatal("error not passed on")
	}
	advance(100 * time.Millisecond)
	p.Get(context.Background(), "x") // the error is cached for the interval too
	if calls.Load() != 2 {
		t.Fatalf("calls %d, want 2", calls.Load())
	}
	completed = true
	advance(PollInterval)
	if r := p.Get(context.Background(), "x"); !r.Details.Completed {
		t.Fatal("not completed")
	}
	advance(time.Hour)
	p.Get(context.Background(), "x")
	if calls.Load() != 3 {
		t.Fatalf("a completed order was fetched again: %d", calls.Load())
	}
}

func TestBackoffIsGentle(t *testing.T) {
	prev := time.Duration(0)
	for _, age := range []time.Duration{0, 10 * time.Second, time.Minute, 5 * time.Minute, time.Hour} {
		b := Backoff(age)
		if b < prev || b > 15*time.Second {
			t.Fatalf("backoff at %v is %v after %v", age, b, prev)
		}
		prev = b
	}
	// First checks follow the page's poll: once per poll, never more.
	if Backoff(0) != PollInterval || Backoff(29*time.Second) != PollInterval {
		t.Fatalf("first checks every %v, want the page's poll interval %v", Backoff(0), PollInterval)
	}
}

func TestWatchRunsOncePerOrder(t *testing.T) {
	var calls atomic.Int64
	p := NewPoller(func(ctx context.Context, id string) (cinema.OrderDetails, error) {
		return cinema.OrderDetails{Completed: calls.Add(1) >= 3}, nil
	}, WithBackoff(func(time.Duration) time.Duration { return 0 }))
	done := make(chan struct{})
	ok := p.Watch(context.Background(), "w", time.Minute, func(int) time.Duration { return time.Millisecond }, func(r Result) bool {
		if r.Details.Completed {
			close(done)
			return true
		}
		return false
	})
	if !ok || p.Watch(context.Background(), "w", time.Minute, func(int) time.Duration { return 0 }, func(Result) bool { return true }) {
		t.Fatal("second watcher of one order started")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watcher never saw the completion")
	}
	deadline := time.Now().Add(time.Second)
	for p.Watching("w") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if p.Watching("w") {
		t.Fatal("watcher still registered after it ended")
	}
}

func newStore(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return NewStore(db.SQL, nil)
}

func TestStoreOneActivePaymentPerOrder(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	r, err := s.Create(ctx, Record{UserSessionID: "o1", CinemaID: "0001", SessionID: "1113", AmountCents: 2650, Currency: "EUR"})
	if err != nil || r.State != StateStarting || len(r.ID) != 32 {
		t.Fatalf("create: %+v %v", r, err)
	}
	again, err := s.Create(ctx, Record{UserSessionID: "o1", CinemaID: "0001", SessionID: "1113"})
	if !errors.Is(err, ErrActiveExists) || again.ID != r.ID {
		t.Fatalf("second start for one order: %+v %v", again, err)
	}
	r, err = s.MarkAwaiting(ctx, r.ID, "https://pay.example/x", "tok")
	if err != nil || r.State != StateAwaiting || !r.TokenMatches("tok") || r.TokenMatches("other") || r.TokenMatches("") {
		t.Fatalf("awaiting: %+v %v", r, err)
	}
	if _, err := s.MarkStartFailed(ctx, r.ID, "late"); !IsStateChanged(err) {
		t.Fatalf("compare-and-set let a start fail after it succeeded: %v", err)
	}
	r, err = s.MarkReturned(ctx, r.ID, "tok")
	if err != nil || r.Returned.IsZero() || r.VerifiedToken != "tok" {
		t.Fatalf("returned: %+v %v", r, err)
	}
	first := r.Returned
	time.Sleep(2 * time.Millisecond)
	if r, _ = s.MarkReturned(ctx, r.ID, "tok"); !r.Returned.Equal(first) {
		t.Fatal("a second return moved the first return time")
	}
	if _, err := s.MarkEnded(ctx, r.ID, StateDeclined); err != nil {
		t.Fatal(err)
	}
	// Ended: a new attempt may start.
	r2, err := s.Create(ctx, Record{UserSessionID: "o1", CinemaID: "0001", SessionID: "1113"})
	if err != nil || r2.ID == r.ID {
		t.Fatalf("new attempt after a decline: %v", err)
	}
	if _, err := s.MarkAwaiting(ctx, r2.ID, "u", "t2"); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Pending(ctx, 10); err != nil || len(p) != 1 || p[0].ID != r2.ID {
		t.Fatalf("pending %v %v", p, err)
	}
	c, err := s.MarkCompleted(ctx, r2.ID, 400001)
	if err != nil || c.State != StateCompleted || c.BookingNumber != 400001 || c.Completed.IsZero() {
		t.Fatalf("completed %+v %v", c, err)
	}
	if l, err := s.Latest(ctx, "o1"); err != nil || l.ID != r2.ID {
		t.Fatalf("latest %+v %v", l, err)
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if ref := (Record{ID: "abcdef0123456789"}).Reference(); ref != "ABCD-EF01-2345" {
		t.Fatalf("reference %q", ref)
	}
}

func TestStoreConcurrentStartsWriteOne(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	var created atomic.Int64
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Create(ctx, Record{UserSessionID: "race"}); err == nil {
				created.Add(1)
			} else if !errors.Is(err, ErrActiveExists) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Fatalf("%d records started for one order", created.Load())
	}
}

// TestNextReadsOncePerIntervalAndWakesEveryWaiter: however many page polls wait on
// an order, it is read once per interval, and all of them learn of the completion when the
// read that sees it returns.
func TestNextReadsOncePerIntervalAndWakesEveryWaiter(t *testing.T) {
	const every = 100 * time.Millisecond
	for _, watchers := range []int{1, 3, 20} {
		var calls atomic.Int32
		var completedAt atomic.Int64 // unix nanos; 0 until the order completes
		start := time.Now()
		p := NewPoller(func(context.Context, string) (cinema.OrderDetails, error) {
			calls.Add(1)
			if time.Since(start) > 350*time.Millisecond {
				completedAt.CompareAndSwap(0, time.Now().UnixNano())
				return cinema.OrderDetails{Completed: true}, nil
			}
			return cinema.OrderDetails{}, nil
		}, WithBackoff(func(time.Duration) time.Duration { return every }))
		var wg sync.WaitGroup
		lags := make(chan time.Duration, watchers)
		for range watchers {
			wg.Go(func() {
				for {
					r := p.Next(context.Background(), "usid", every+50*time.Millisecond)
					if r.Details.Completed {
						lags <- time.Since(time.Unix(0, completedAt.Load()))
						return
					}
				}
			})
		}
		wg.Wait()
		close(lags)
		elapsed := time.Since(start)
		if max := int32(elapsed/every) + 1; calls.Load() > max {
			t.Errorf("%d watchers: %d reads in %v, want at most one per %v (%d)", watchers, calls.Load(), elapsed, every, max)
		}
		for lag := range lags {
			if lag > 30*time.Millisecond {
				t.Errorf("%d watchers: a waiter learnt of the completion %v after it was read", watchers, lag)
			}
		}
	}
}

// TestNextStopsReadingWhenNobodyWaits: a page poll that waited once and went away leaves
// nothing reading the order (an abandoned payment must not be read for ever).
func TestNextStopsReadingWhenNobodyWaits(t *testing.T) {
	const every = 10 * time.Millisecond
	var calls atomic.Int32
	p := NewPoller(func(context.Context, string) (cinema.OrderDetails, error) {
		calls.Add(1)
		return cinema.OrderDetails{}, nil
	}, WithBackoff(func(time.Duration) time.Duration { return every }))
	p.Get(context.Background(), "usid")
	if r := p.Next(context.Background(), "usid", 5*every); r.Err != nil || r.Details.Completed {
		t.Fatalf("Next: %+v", r)
	}
	if got := calls.Load(); got != 2 {
		t.Fatalf("%d reads after Get and one Next, want 2", got)
	}
	time.Sleep(20 * every)
	if got := calls.Load(); got != 2 {
		t.Errorf("%d reads in the %v after the last waiter left, want none after the 2 asked for", got-2, 20*every)
	}
}

// TestPollerGetEndsAtTheReadBudget: a read slower than the caller's read budget does not hold
// the caller (the return page answers "still checking" in time); the read carries on, and the
// next look gets its answer. A look that arrives when the read under way has run longer than
// it can wait starts a second (internal/flight: never a third while the upstream is slow), which
// the looks after it share. A caller without a read budget (a watcher) waits.
func TestPollerGetEndsAtTheReadBudget(t *testing.T) {
	var calls atomic.Int64
	release := make(chan struct{})
	p := NewPoller(func(ctx context.Context, id string) (cinema.OrderDetails, error) {
		calls.Add(1)
		<-release
		return cinema.OrderDetails{UserSessionID: id, Completed: true}, nil
	})
	tests := []struct {
		name   string
		budget time.Duration
		within time.Duration
	}{
		{"budget left", 200 * time.Millisecond, minReadWait + 500*time.Millisecond},
		{"budget spent (a held poll)", -time.Second, minReadWait + 500*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := upstream.WithReadDeadline(context.Background(), time.Now().Add(tt.budget))
			start := time.Now()
			r := p.Get(ctx, "slow")
			took := time.Since(start)
			if !errors.Is(r.Err, ErrStillReading) {
				t.Fatalf("err %v, want ErrStillReading", r.Err)
			}
			if took < max(tt.budget, minReadWait) || took > tt.within {
				t.Errorf("answered after %v; want after the budget and at least %v, within %v", took, minReadWait, tt.within)
			}
		})
	}
	done := make(chan Result, 1)
	go func() { done <- p.Get(context.Background(), "slow") }() // no budget: waits for the read
	select {
	case r := <-done:
		t.Fatalf("a caller without a read budget answered before the read ended: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if r := <-done; r.Err != nil || !r.Details.Completed {
		t.Fatalf("after the read: %+v", r)
	}
	if r := p.Get(upstream.WithReadDeadline(context.Background(), time.Now()), "slow"); r.Err != nil || !r.Details.Completed {
		t.Fatalf("the next look: %+v, want the read's answer", r)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d reads, want the first and the one the held poll started", n)
	}
}
