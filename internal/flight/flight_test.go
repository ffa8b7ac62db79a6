package flight_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/flight"
)

// health is a Health whose answers the test sets.
type health struct {
	mark     atomic.Uint64
	wellFrom atomic.Uint64
}

func (h *health) Mark() uint64                   { return h.mark.Load() }
func (h *health) AnsweredSince(mark uint64) bool { return h.wellFrom.Load() > mark }

// skewed is a clock that runs with the real one, ahead by what the test adds: real deadlines
// and budgets still count, and a read can be made older than SpellRead without waiting.
type skewed struct{ ahead atomic.Int64 }

func (c *skewed) now() time.Time { return time.Now().Add(time.Duration(c.ahead.Load())) }

// age makes every read under way older by d.
func (c *skewed) age(d time.Duration) { c.ahead.Add(int64(d)) }

// frozen is a clock that moves only when the test ages it, for a test with no deadline or
// budget: the time a loaded machine takes between two of its steps never adds to a read's age.
type frozen struct{ elapsed atomic.Int64 }

func (c *frozen) now() time.Time { return time.Unix(0, c.elapsed.Load()) }

// age makes every read under way older by d.
func (c *frozen) age(d time.Duration) { c.elapsed.Add(int64(d)) }

type budgetKey struct{}

func withBudget(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, budgetKey{}, t)
}

func budget(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(budgetKey{}).(time.Time)
	return t, ok
}

// answeredWell: a call begun after every read under way has answered well.
func answeredWell(h *health) {
	h.mark.Add(1)
	h.wellFrom.Store(h.mark.Load())
}

func TestJoinOrStartAfresh(t *testing.T) {
	tests := []struct {
		name string
		// between runs after the first read began and before the second caller asks.
		between  func(h *health, clk *skewed)
		ctx      func() context.Context
		wantRead int32 // reads started for the two callers
	}{
		{"a read under way is shared", func(*health, *skewed) {}, context.Background, 1},
		{"a later call answered well, the read has run a healthy read's time: a fresh read", func(h *health, clk *skewed) {
			clk.age(flight.SpellRead)
			answeredWell(h)
		}, context.Background, 2},
		{"a later call answered well while the read is young (at a rush, at once): shared", func(h *health, _ *skewed) { answeredWell(h) }, context.Background, 1},
		{"a later call began but has not answered: shared", func(h *health, clk *skewed) { clk.age(flight.SpellRead); h.mark.Add(1) }, context.Background, 1},
		{"the read is older than the caller's read budget: a fresh read", func(*health, *skewed) {},
			func() context.Context { return withBudget(context.Background(), time.Now().Add(20*time.Millisecond)) }, 2},
		{"the read is older than the caller's deadline: a fresh read", func(*health, *skewed) {},
			func() context.Context {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			}, 2},
		{"the read has run longer than a healthy read, nothing answered since, the caller has a budget: a fresh read",
			func(_ *health, clk *skewed) { clk.age(flight.SpellRead) },
			func() context.Context { return withBudget(context.Background(), time.Now().Add(time.Hour)) }, 2},
		{"the caller can wait longer than the read has run: shared", func(*health, *skewed) {},
			func() context.Context { return withBudget(context.Background(), time.Now().Add(time.Hour)) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, clk := &health{}, &skewed{}
			g := &flight.Group[int]{Health: h, Budget: budget, Now: clk.now}
			var reads atomic.Int32
			release := make(chan struct{})
			read := func() (int, error) {
				n := reads.Add(1)
				<-release
				return int(n), nil
			}
			first := g.DoChan(context.Background(), "k", read)
			time.Sleep(50 * time.Millisecond) // the first read has run 50 ms
			tt.between(h, clk)
			second := g.DoChan(tt.ctx(), "k", read)
			time.Sleep(10 * time.Millisecond)
			close(release)
			r1, r2 := <-first, <-second
			if got := reads.Load(); got != tt.wantRead {
				t.Fatalf("%d reads, want %d", got, tt.wantRead)
			}
			if r1.Val != 1 {
				t.Errorf("the first caller got read %d, want its own (1)", r1.Val)
			}
			if r2.Val != int(tt.wantRead) {
				t.Errorf("the second caller got read %d, want %d", r2.Val, tt.wantRead)
			}
		})
	}
}

// TestLaterCallersJoinTheFreshRead: once a caller started afresh, the callers after it share
// that read, not the old one, and the old one's callers still get its answer.
func TestLaterCallersJoinTheFreshRead(t *testing.T) {
	h, clk := &health{}, &skewed{}
	g := &flight.Group[string]{Health: h, Now: clk.now}
	oldDone := make(chan struct{})
	old := g.DoChan(context.Background(), "k", func() (string, error) { <-oldDone; return "old", nil })
	clk.age(flight.SpellRead)
	answeredWell(h)
	var fresh atomic.Int32
	read := func() (string, error) { fresh.Add(1); time.Sleep(30 * time.Millisecond); return "fresh", nil }
	a, b := g.DoChan(context.Background(), "k", read), g.DoChan(context.Background(), "k", read)
	if ra, rb := <-a, <-b; ra.Val != "fresh" || rb.Val != "fresh" {
		t.Errorf("got %q and %q, want the fresh read for both", ra.Val, rb.Val)
	}
	if n := fresh.Load(); n != 1 {
		t.Errorf("%d fresh reads, want 1 shared", n)
	}
	close(oldDone)
	if r := <-old; r.Val != "old" {
		t.Errorf("the old read's caller got %q", r.Val)
	}
}

func TestDoEndsWithTheCallerAndAPanicIsAnError(t *testing.T) {
	var g flight.Group[int]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Do(ctx, "slow", func() (int, error) { time.Sleep(time.Second); return 1, nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do past the caller's deadline: %v", err)
	}
	if _, err := g.Do(context.Background(), "boom", func() (int, error) { panic("no") }); err == nil {
		t.Error("a read that panicked gave no error")
	}
}

// TestASlowUpstreamGetsAtMostTwoReadsOfAKey: callers that cannot wait for the read under way
// start another only while fewer than two run; then they join the newest, so a slow upstream
// is not flooded (until it answers well again: then a caller reads afresh).
func TestASlowUpstreamGetsAtMostTwoReadsOfAKey(t *testing.T) {
	h, clk := &health{}, &skewed{}
	g := &flight.Group[int]{Health: h, Budget: budget, Now: clk.now}
	var reads atomic.Int32
	release := make(chan struct{})
	read := func() (int, error) { n := reads.Add(1); <-release; return int(n), nil }
	short := func() context.Context { return withBudget(context.Background(), time.Now().Add(5*time.Millisecond)) }
	var chans []<-chan flight.Result[int]
	for range 4 {
		chans = append(chans, g.DoChan(short(), "k", read))
		time.Sleep(30 * time.Millisecond) // each read is older than the next caller can wait
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("%d reads for four callers who could not wait, want 2", n)
	}
	clk.age(flight.SpellRead)
	h.mark.Add(10)
	h.wellFrom.Store(h.mark.Load())
	chans = append(chans, g.DoChan(short(), "k", read))
	time.Sleep(10 * time.Millisecond)
	if n := reads.Load(); n != 3 {
		t.Errorf("%d reads once the upstream answered well, want a third", n)
	}
	close(release)
	for _, ch := range chans {
		<-ch
	}
}

// TestAReadIsASpellsReadOnceItRunsLongerThanUsual: once the group's reads have answered, a read
// under way is left for a fresh one (after a later call answered well) from four times their
// usual time, at least MinSpellRead: a stuck read is not waited on for a whole SpellRead, and
// a read of the usual time is shared.
func TestAReadIsASpellsReadOnceItRunsLongerThanUsual(t *testing.T) {
	for _, tc := range []struct {
		name     string
		usual    time.Duration // how long the earlier reads took
		age      time.Duration // how long the read under way has run when the next caller asks
		wantRead int32
	}{
		{"usual reads of 20 ms, the read has run 60 ms: shared", 20 * time.Millisecond, 60 * time.Millisecond, 1},
		{"usual reads of 20 ms, the read has run 100 ms: a fresh read", 20 * time.Millisecond, 100 * time.Millisecond, 2},
		{"usual reads of 1 ms, the read has run 30 ms: shared (MinSpellRead)", time.Millisecond, 30 * time.Millisecond, 1},
		{"usual reads of 1 ms, the read has run MinSpellRead: a fresh read", time.Millisecond, flight.MinSpellRead, 2},
		{"usual reads of 2 s, the read has run SpellRead: a fresh read", 2 * time.Second, flight.SpellRead, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, clk := &health{}, &frozen{}
			g := &flight.Group[int]{Health: h, Now: clk.now}
			for range 3 { // earlier good reads, each taking tc.usual on the group's clock
				if _, err := g.Do(context.Background(), "k", func() (int, error) { clk.age(tc.usual); return 0, nil }); err != nil {
					t.Fatal(err)
				}
			}
			var reads atomic.Int32
			release := make(chan struct{})
			read := func() (int, error) { n := reads.Add(1); <-release; return int(n), nil }
			first := g.DoChan(context.Background(), "k", read)
			for reads.Load() == 0 {
				time.Sleep(time.Millisecond)
			}
			clk.age(tc.age)
			answeredWell(h)
			second := g.DoChan(context.Background(), "k", read)
			for want := tc.wantRead; reads.Load() < want; {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(10 * time.Millisecond)
			close(release)
			<-first
			<-second
			if got := reads.Load(); got != tc.wantRead {
				t.Errorf("%d reads, want %d", got, tc.wantRead)
			}
		})
	}
}
