// Package flight shares one read per key among the callers that ask at the same time, as
// golang.org/x/sync/singleflight does, with one difference that matters after an outage: a
// caller joins a read under way only while that read can still help it. A read that began
// before a later call to the same upstream answered well, and has run longer than a healthy
// read takes (spellAfter), was slowed by a spell that is over, and a read older than what the
// caller can still wait for (its deadline, or its read budget) will not answer in time for
// it; the caller starts a fresh read instead, which the callers after it join. The old read
// runs on for those already waiting on it. While the upstream has not answered well, at most
// two reads of a key run at once: the spell's load stays bounded.
package flight

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Health tells how the upstream is doing, by numbering calls in the order they begin.
type Health interface {
	// Mark is the number of the latest call begun: calls begun later have larger numbers.
	Mark() uint64
	// AnsweredSince reports whether a call begun after mark has answered well.
	AnsweredSince(mark uint64) bool
}

// Result is what a read gave.
type Result[T any] struct {
	Val T
	Err error
}

// Group runs the shared reads of one kind (seat plans, listings, …). The zero value is usable
// (no health, no read budget: it then behaves like singleflight).
type Group[T any] struct {
	// Health, when set, makes a caller skip a read begun before the upstream answered well.
	Health Health
	// Budget, when set, returns the latest time the caller's reads may end (a read budget
	// kept in ctx); ctx's own deadline counts as well.
	Budget func(ctx context.Context) (time.Time, bool)
	// Now is time.Now when nil.
	Now func() time.Time

	mu   sync.Mutex
	keys map[string]*reads[T]
	// usual is how long a good read takes here: a moving mean of the reads that answered
	// well, in nanoseconds (0 before the first).
	usual atomic.Int64
}

// reads are a key's reads under way: the latest, which callers may join, and how many run.
type reads[T any] struct {
	latest  *call[T]
	running int
}

// A read is a spell's read when a call begun after it has answered well and the read has run
// longer than a healthy read takes: four times as long as the group's good reads usually take,
// at least MinSpellRead and at most SpellRead (SpellRead too before any read has answered).
// While a healthy read runs, later calls answer well all the time at a rush: a listing is two
// calls one after the other, and the read's own first call is one of them. Without the wait
// every such answer would start a fresh read, and a page viewed a thousand times a second
// would read its shared listing or seat plan several times over.
const (
	SpellRead    = time.Second
	MinSpellRead = 50 * time.Millisecond
)

// spellAfter is how long a read must have run before it can be a spell's read.
func (g *Group[T]) spellAfter() time.Duration {
	usual := time.Duration(g.usual.Load())
	if usual == 0 {
		return SpellRead
	}
	return min(max(4*usual, MinSpellRead), SpellRead)
}

// learn adds a good read's time to the group's usual time (a mean over about the last eight).
func (g *Group[T]) learn(took time.Duration) {
	for {
		old := g.usual.Load()
		next := int64(took)
		if old != 0 {
			next = old + (int64(took)-old)/8
		}
		if g.usual.CompareAndSwap(old, max(next, 1)) {
			return
		}
	}
}

// maxSlowReads is how many reads of one key may run while the upstream has not answered well
// since they began: a caller that cannot wait for the latest starts another only below it, so
// a slow upstream gets at most this many reads of a key at once (the newest is joined).
const maxSlowReads = 2

type call[T any] struct {
	mark  uint64
	began time.Time
	done  chan struct{}
	res   Result[T]
}

// DoChan returns a channel that gets the result of key's read: the one under way when it can
// still answer this caller in time, or a new one running fn. The channel is buffered; nobody
// has to read it. fn must bound its own time: it runs for every caller that joins it, so it
// must not use any one caller's cancellation.
func (g *Group[T]) DoChan(ctx context.Context, key string, fn func() (T, error)) <-chan Result[T] {
	out := make(chan Result[T], 1)
	now := g.now()
	g.mu.Lock()
	if g.keys == nil {
		g.keys = map[string]*reads[T]{}
	}
	r := g.keys[key]
	if r == nil {
		r = &reads[T]{}
		g.keys[key] = r
	}
	c := r.latest
	if c == nil || !g.joinable(ctx, c, r.running, now) {
		c = &call[T]{began: now, done: make(chan struct{})}
		if g.Health != nil {
			c.mark = g.Health.Mark()
		}
		r.latest = c
		r.running++
		go g.run(key, r, c, fn)
	}
	g.mu.Unlock()
	go func() {
		<-c.done
		out <- c.res
	}()
	return out
}

// Do is DoChan waited for, or ctx's error when ctx ends first (the read goes on for others).
func (g *Group[T]) Do(ctx context.Context, key string, fn func() (T, error)) (T, error) {
	select {
	case r := <-g.DoChan(ctx, key, fn):
		return r.Val, r.Err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// joinable reports whether the read c under way (one of running) may answer a caller with ctx.
func (g *Group[T]) joinable(ctx context.Context, c *call[T], running int, now time.Time) bool {
	ran, healthy := now.Sub(c.began), g.spellAfter()
	if g.Health != nil && ran >= healthy && g.Health.AnsweredSince(c.mark) {
		return false // the upstream has answered well since this read began: it is a spell's read
	}
	end, bounded := ctx.Deadline()
	if g.Budget != nil {
		if b, ok := g.Budget(ctx); ok && (!bounded || b.Before(end)) {
			end, bounded = b, true
		}
	}
	// A read that has run longer than the caller can still wait is stuck, as far as the
	// caller can tell: waiting on it could only end at the caller's deadline. So is one that
	// has run longer than a healthy read takes, though nothing has answered well since (the
	// first caller after a spell): it was slowed by the spell, and how much longer it runs has
	// nothing to do with how long it has run.
	return !bounded || ran <= end.Sub(now) && ran < healthy || running >= maxSlowReads
}

// Forget makes the next caller of key start a fresh read, whatever the read under way (its
// callers still get its answer): for a read that may predate a change this service made.
func (g *Group[T]) Forget(key string) {
	g.mu.Lock()
	if r := g.keys[key]; r != nil {
		r.latest = nil
	}
	g.mu.Unlock()
}

func (g *Group[T]) run(key string, r *reads[T], c *call[T], fn func() (T, error)) {
	defer func() {
		g.mu.Lock()
		r.running--
		if r.latest == c {
			r.latest = nil
		}
		if r.running == 0 && g.keys[key] == r {
			delete(g.keys, key)
		}
		g.mu.Unlock()
		close(c.done)
	}()
	defer func() {
		if p := recover(); p != nil {
			c.res = Result[T]{Err: fmt.Errorf("flight %q: read panicked: %v", key, p)}
		}
	}()
	v, err := fn()
	c.res = Result[T]{Val: v, Err: err}
	if err == nil {
		g.learn(g.now().Sub(c.began))
	}
}

func (g *Group[T]) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}
