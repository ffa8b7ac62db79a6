package seatplans

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// fakeSource answers GetSeatPlan with plan(n), n counting the calls; gate, when set, holds
// every call until it is closed.
type fakeSource struct {
	calls atomic.Int32
	gate  chan struct{}
	plan  func(n int) cinema.SeatPlan
	err   error
}

func (f *fakeSource) GetSeatPlan(_ context.Context, cinemaID, sessionID string) (cinema.SeatPlan, error) {
	n := int(f.calls.Add(1))
	if f.gate != nil {
		<-f.gate
	}
	if f.err != nil {
		return cinema.SeatPlan{}, f.err
	}
	p := f.plan(n)
	p.CinemaID, p.SessionID = cinemaID, sessionID
	return p, nil
}

var _ Source = (*fakeSource)(nil)

// twoSeats is a plan of one row, A1 and A2; A2 is taken from call `takenFrom` on. Its area
// description names the call that read it.
func twoSeats(takenFrom int) func(n int) cinema.SeatPlan {
	return func(n int) cinema.SeatPlan {
		a2 := cinema.SeatFree
		if n >= takenFrom {
			a2 = cinema.SeatTaken
		}
		return cinema.SeatPlan{Areas: []cinema.Area{{Number: 1, Description: "read " + string(rune('0'+n)), Rows: []cinema.Row{{Label: "A", Seats: []cinema.Seat{
			{Position: cinema.SeatPosition{AreaNumber: 1, ColumnIndex: 0}, RowLabel: "A", Label: "1", Availability: cinema.SeatFree},
			{Position: cinema.SeatPosition{AreaNumber: 1, ColumnIndex: 1}, RowLabel: "A", Label: "2", Availability: a2},
		}}}}}}
	}
}

func TestConcurrentReadsShareOneUpstreamCall(t *testing.T) {
	for _, n := range []int{1, 2, 50} {
		src := &fakeSource{gate: make(chan struct{}), plan: twoSeats(99)}
		c := New(src, Options{})
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				snap, err := c.Plan(context.Background(), "0001", "1113")
				if err == nil && len(snap.Plan.Areas) != 1 {
					err = errors.New("empty plan")
				}
				errs <- err
			})
		}
		// Let every reader reach the cache before the upstream answers.
		for deadline := time.Now().Add(2 * time.Second); src.calls.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		close(src.gate)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := src.calls.Load(); got != 1 {
			t.Errorf("%d concurrent readers: %d upstream calls, want 1", n, got)
		}
	}
}

func TestStatesRefreshAfterTTL(t *testing.T) {
	clk := testclock.New(time.Date(2026, 3, 1, 20, 31, 5, 0, time.UTC))
	src := &fakeSource{plan: twoSeats(2)}
	c := New(src, Options{TTL: 2 * time.Second, Now: clk.Now})
	ctx := context.Background()
	cases := []struct {
		advance   time.Duration
		wantCalls int32
		wantA2    cinema.SeatAvailability
	}{
		{0, 1, cinema.SeatFree},                       // first read
		{1999 * time.Millisecond, 1, cinema.SeatFree}, // within the TTL: cached
		{time.Millisecond, 2, cinema.SeatTaken},       // TTL reached: states read again
		{time.Second, 2, cinema.SeatTaken},
	}
	var first Snapshot
	for i, tc := range cases {
		clk.Advance(tc.advance)
		snap, err := c.Plan(ctx, "0001", "1113")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = snap
		}
		if got := src.calls.Load(); got != tc.wantCalls {
			t.Errorf("step %d: %d upstream calls, want %d", i, got, tc.wantCalls)
		}
		if got := snap.Plan.Areas[0].Rows[0].Seats[1].Availability; got != tc.wantA2 {
			t.Errorf("step %d: A2 is %v, want %v", i, got, tc.wantA2)
		}
		if tc.wantCalls == 2 && !snap.AsOf.Equal(first.AsOf.Add(2*time.Second)) {
			t.Errorf("step %d: states as of %v, want the refresh time", i, snap.AsOf)
		}
	}
	// The first snapshot was not changed by the refresh (readers may still hold it).
	if first.Plan.Areas[0].Rows[0].Seats[1].Availability != cinema.SeatFree {
		t.Error("a refresh changed a snapshot already handed out")
	}
}

func TestChangedLayoutReplacesKeptOne(t *testing.T) {
	clk := testclock.New(time.Unix(0, 0))
	src := &fakeSource{plan: func(n int) cinema.SeatPlan {
		p := twoSeats(99)(n)
		if n > 1 { // the auditorium was changed: a third seat
			r := &p.Areas[0].Rows[0]
			r.Seats = append(r.Seats, cinema.Seat{Position: cinema.SeatPosition{AreaNumber: 1, ColumnIndex: 2}, RowLabel: "A", Label: "3"})
		}
		return p
	}}
	c := New(src, Options{TTL: time.Second, Now: clk.Now})
	if _, err := c.Plan(context.Background(), "0001", "1"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	snap, err := c.Plan(context.Background(), "0001", "1")
	if err != nil || len(snap.Plan.Areas[0].Rows[0].Seats) != 3 || snap.Plan.Areas[0].Description != "read 2" {
		t.Fatalf("changed layout not taken: %+v %v", snap.Plan.Areas, err)
	}
}

func TestCacheIsBoundedAndErrorsAreNotKept(t *testing.T) {
	src := &fakeSource{plan: twoSeats(99)}
	c := New(src, Options{Size: 2, TTL: time.Hour})
	ctx := context.Background()
	for _, s := range []string{"1", "2", "3", "1"} { // "1" was evicted by "3"
		if _, err := c.Plan(ctx, "0001", s); err != nil {
			t.Fatal(err)
		}
	}
	if got := src.calls.Load(); got != 4 {
		t.Errorf("%d upstream calls, want 4 (the least recently used session evicted)", got)
	}
	if n := c.lru.Len(); n != 2 {
		t.Errorf("%d sessions kept, want 2", n)
	}
	src.err = errors.New("upstream down")
	for range 2 {
		if _, err := c.Plan(ctx, "0001", "9"); !errors.Is(err, src.err) {
			t.Fatalf("error %v, want the upstream's wrapped", err)
		}
	}
	if got := src.calls.Load(); got != 6 {
		t.Errorf("a failed read was cached: %d calls, want 6", got)
	}
}

func TestWaitingReaderGivesUpWithItsContext(t *testing.T) {
	src := &fakeSource{gate: make(chan struct{}), plan: twoSeats(99)}
	defer close(src.gate)
	c := New(src, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Plan(ctx, "0001", "1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the reader's deadline", err)
	}
}

func TestInvalidateRereadsStates(t *testing.T) {
	src := &fakeSource{plan: twoSeats(2)}
	c := New(src, Options{TTL: time.Hour})
	ctx := context.Background()
	if _, err := c.Plan(ctx, "0001", "1"); err != nil {
		t.Fatal(err)
	}
	c.Invalidate("0001", "1")
	snap, err := c.Plan(ctx, "0001", "1")
	if err != nil || src.calls.Load() != 2 || snap.Plan.Areas[0].Rows[0].Seats[1].Availability != cinema.SeatTaken {
		t.Fatalf("after Invalidate: %d calls, %v", src.calls.Load(), err)
	}
}

// ctxSource records the context its read was given.
type ctxSource struct {
	fakeSource
	ctx chan context.Context
}

func (s *ctxSource) GetSeatPlan(ctx context.Context, cinemaID, sessionID string) (cinema.SeatPlan, error) {
	s.ctx <- ctx
	return s.fakeSource.GetSeatPlan(ctx, cinemaID, sessionID)
}

// TestSharedReadIsDetachedWithItsOwnTimeout: the read shared by every reader of a session is
// cut short neither by the first reader's cancellation nor by its read budget, only by the
// cache's own timeout.
func TestSharedReadIsDetachedWithItsOwnTimeout(t *testing.T) {
	src := &ctxSource{fakeSource: fakeSource{plan: twoSeats(99)}, ctx: make(chan context.Context, 1)}
	c := New(src, Options{ReadTimeout: time.Minute})
	ctx, cancel := context.WithCancel(upstream.WithReadDeadline(context.Background(), time.Now().Add(-time.Second)))
	defer cancel()
	if _, err := c.Plan(ctx, "0001", "1"); err != nil {
		t.Fatal(err)
	}
	rctx := <-src.ctx
	if dl, ok := upstream.ReadDeadline(rctx); ok {
		t.Errorf("the shared read carries the first reader's read deadline %v", dl)
	}
	if dl, ok := rctx.Deadline(); !ok || time.Until(dl) > time.Minute || time.Until(dl) < 50*time.Second {
		t.Errorf("the shared read's deadline is %v (set %v), want its own minute", dl, ok)
	}
}

// heldSource holds its read number held until release is closed; that read and those before
// answer A2 free, every later read answers at once with A2 taken (a seat set meanwhile).
type heldSource struct {
	calls   atomic.Int32
	held    int
	release chan struct{}
}

func (s *heldSource) GetSeatPlan(_ context.Context, _, _ string) (cinema.SeatPlan, error) {
	n := int(s.calls.Add(1))
	if n == s.held {
		<-s.release
	}
	if n <= s.held {
		return twoSeats(99)(n), nil
	}
	return twoSeats(0)(n), nil
}

// TestInvalidateDuringReadIsNotLost: a read that began before Invalidate neither answers the
// Plan after it (which reads anew) nor is kept as fresh when it ends later; whether it is the
// session's first read or the refresh of a kept plan.
func TestInvalidateDuringReadIsNotLost(t *testing.T) {
	for _, held := range []int{1, 2} {
		clk := testclock.New(time.Unix(0, 0))
		src := &heldSource{held: held, release: make(chan struct{})}
		c := New(src, Options{TTL: time.Second, Now: clk.Now})
		ctx := context.Background()
		if held == 2 { // a plan is kept, and has grown stale: the held read refreshes it
			if _, err := c.Plan(ctx, "0001", "1"); err != nil {
				t.Fatal(err)
			}
			clk.Advance(time.Second)
		}
		oldRead := make(chan Snapshot, 1)
		go func() { snap, _ := c.Plan(ctx, "0001", "1"); oldRead <- snap }()
		for deadline := time.Now().Add(2 * time.Second); int(src.calls.Load()) < held && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		c.Invalidate("0001", "1") // seats were set while the read was in flight
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		snap, err := c.Plan(rctx, "0001", "1")
		cancel()
		if err != nil || snap.Plan.Areas[0].Rows[0].Seats[1].Availability != cinema.SeatTaken {
			t.Fatalf("held read %d: Plan after Invalidate joined the older read: %v", held, err)
		}
		close(src.release)
		<-oldRead
		snap, err = c.Plan(ctx, "0001", "1")
		if err != nil || snap.Plan.Areas[0].Rows[0].Seats[1].Availability != cinema.SeatTaken {
			t.Errorf("held read %d: the read begun before Invalidate was kept as fresh: A2 %v, %v", held, snap.Plan.Areas[0].Rows[0].Seats[1].Availability, err)
		}
		if got := src.calls.Load(); got != int32(held+1) {
			t.Errorf("held read %d: %d upstream calls, want %d", held, got, held+1)
		}
	}
}

// TestStaleServedWhileOneReadRefreshes: past the TTL but within ServeStaleFor, readers get the
// kept plan at once while one background read refreshes it; beyond that, and after
// Invalidate, they wait for a fresh read.
func TestStaleServedWhileOneReadRefreshes(t *testing.T) {
	clk := testclock.New(time.Date(2026, 3, 1, 20, 31, 5, 0, time.UTC))
	src := &fakeSource{plan: twoSeats(2)}
	c := New(src, Options{TTL: 2 * time.Second, ServeStaleFor: 3 * time.Second, Now: clk.Now})
	ctx := context.Background()
	a2 := func(step string, want cinema.SeatAvailability) {
		t.Helper()
		snap, err := c.Plan(ctx, "0001", "1113")
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := snap.Plan.Areas[0].Rows[0].Seats[1].Availability; got != want {
			t.Errorf("%s: A2 is %v, want %v", step, got, want)
		}
	}
	a2("first read", cinema.SeatFree)

	gate := make(chan struct{})
	src.gate = gate // the refresh is held until the gate opens
	clk.Advance(2500 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a2("stale, refresh started", cinema.SeatFree)
		a2("stale, refresh under way", cinema.SeatFree)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a reader within ServeStaleFor waited for the refresh")
	}
	close(gate)
	deadline := time.Now().Add(2 * time.Second)
	for {
		snap, _ := c.Plan(ctx, "0001", "1113")
		if snap.Plan.Areas[0].Rows[0].Seats[1].Availability == cinema.SeatTaken {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background refresh never replaced the stale plan")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := src.calls.Load(); n != 2 {
		t.Fatalf("%d upstream calls after one refresh, want 2 (the stale readers share one)", n)
	}

	clk.Advance(6 * time.Second) // beyond TTL + ServeStaleFor: read before answering
	a2("too old to show", cinema.SeatTaken)
	if n := src.calls.Load(); n != 3 {
		t.Errorf("%d upstream calls, want 3: a plan too old is read again before it is shown", n)
	}
	clk.Advance(2500 * time.Millisecond)
	c.Invalidate("0001", "1113")
	a2("invalidated", cinema.SeatTaken)
	if n := src.calls.Load(); n != 4 {
		t.Errorf("%d upstream calls, want 4: an invalidated plan is never served stale", n)
	}
}
