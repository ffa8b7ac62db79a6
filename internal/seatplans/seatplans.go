// Package seatplans owns the BFF's copy of session seat plans. A seat plan is a layout that
// does not change for a session (areas, rows, seat positions, kinds, sofas) and the state of
// every seat, which does. Pages read plans through a Cache: concurrent reads of one session
// share one upstream call, the plan is kept per session id in a small bounded cache, and it
// is read again (layout and seat states, as the upstream sends both) once it is older than a
// short time-to-live.
//
// A cached state is only ever shown, never trusted for a write: when seats are set the
// upstream decides, and answers "seats unavailable" for a seat that was taken meanwhile.
//
// Party seating (party.go) works out, on a plan, free seats beside a booking's party for the
// tickets added to it.
package seatplans

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/flight"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Source reads a session's seat plan from the upstream.
type Source interface {
	GetSeatPlan(ctx context.Context, cinemaID, sessionID string) (cinema.SeatPlan, error)
}

// Options configure a Cache. Zero values take the defaults.
type Options struct {
	// TTL is how old seat states may be before they are read again; default 2 s.
	TTL time.Duration
	// ServeStaleFor is how much longer than TTL a plan is still shown while one read in the
	// background refreshes it (stale-while-revalidate), so no reader waits for a refresh
	// under steady traffic; 0: a reader past the TTL waits for the fresh read. A plan made
	// stale by Invalidate is never served stale.
	ServeStaleFor time.Duration
	// Size is how many sessions' plans are kept; default 64 (least recently used go first).
	Size int
	// Now is the clock; default time.Now.
	Now func() time.Time
	// ReadTimeout bounds the shared upstream read of a plan, which no single reader's
	// cancellation or read budget cuts short; default 10 s.
	ReadTimeout time.Duration
	// Health, when set, keeps a reader from waiting on a read begun before the ticketing
	// system answered well again (internal/flight); a reader never waits on a read older
	// than its read budget either way.
	Health flight.Health
}

// Snapshot is a seat plan with the time its seat states were read. Plan is shared by every
// reader until the next refresh: read it, never change it.
type Snapshot struct {
	Plan cinema.SeatPlan
	AsOf time.Time
}

// Cache keeps seat plans per session. It is safe for concurrent use.
type Cache struct {
	src     Source
	ttl     time.Duration
	stale   time.Duration // ServeStaleFor
	timeout time.Duration
	size    int
	now     func() time.Time
	group   flight.Group[Snapshot]

	mu      sync.Mutex
	entries map[key]*list.Element // of *entry
	lru     *list.List            // front: most recently used
}

type key struct{ cinemaID, sessionID string }

type entry struct {
	key  key
	snap Snapshot // the plan as last read
	// gen counts the Invalidate calls of the session: a read that began before one stores
	// nothing, as its states may be older than the change that was invalidated.
	gen uint64
}

// New returns a Cache reading from src.
func New(src Source, opt Options) *Cache {
	if opt.TTL <= 0 {
		opt.TTL = 2 * time.Second
	}
	if opt.Size <= 0 {
		opt.Size = 64
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.ReadTimeout <= 0 {
		opt.ReadTimeout = 10 * time.Second
	}
	c := &Cache{src: src, ttl: opt.TTL, stale: max(opt.ServeStaleFor, 0), size: opt.Size, now: opt.Now, timeout: opt.ReadTimeout, entries: map[key]*list.Element{}, lru: list.New()}
	c.group.Health, c.group.Budget = opt.Health, upstream.ReadDeadline
	return c
}

// Plan returns the session's seat plan with seat states at most TTL old, reading the
// upstream once for all callers that ask at the same time. Within ServeStaleFor after the
// TTL it returns the plan it has at once and refreshes it in the background.
func (c *Cache) Plan(ctx context.Context, cinemaID, sessionID string) (Snapshot, error) {
	k := key{cinemaID, sessionID}
	snap, age, ok := c.kept(k)
	switch {
	case ok && age < c.ttl:
		return snap, nil
	case ok && age < c.ttl+c.stale:
		c.read(ctx, k) // nobody waits for it: the next reader gets its plan
		return snap, nil
	}
	select {
	case r := <-c.read(ctx, k):
		if r.Err != nil {
			return Snapshot{}, r.Err
		}
		return r.Val, nil
	case <-ctx.Done():
		return Snapshot{}, ctx.Err()
	}
}

// read starts the session's shared upstream read, or joins the one under way.
func (c *Cache) read(ctx context.Context, k key) <-chan flight.Result[Snapshot] {
	return c.group.DoChan(ctx, groupKey(k), func() (Snapshot, error) {
		if snap, ok := c.fresh(k); ok { // refreshed while this call waited for the group
			return snap, nil
		}
		gen := c.generation(k)
		// The shared read must not die with the request that started it, nor end at its read
		// budget (upstream.Detach): other readers wait on it. It has its own timeout.
		rctx, cancel := context.WithTimeout(upstream.Detach(ctx), c.timeout)
		defer cancel()
		plan, err := c.src.GetSeatPlan(rctx, k.cinemaID, k.sessionID)
		if err != nil {
			return Snapshot{}, fmt.Errorf("read seat plan of session %s at cinema %s: %w", k.sessionID, k.cinemaID, err)
		}
		return c.store(k, plan, gen), nil
	})
}

func (c *Cache) fresh(k key) (Snapshot, bool) {
	snap, age, ok := c.kept(k)
	return snap, ok && age < c.ttl
}

// kept returns the session's kept plan and the age of its seat states (ok false: none).
func (c *Cache) kept(k key) (_ Snapshot, age time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok || el.Value.(*entry).snap.AsOf.IsZero() {
		return Snapshot{}, 0, false
	}
	e := el.Value.(*entry)
	c.lru.MoveToFront(el)
	return e.snap, c.now().Sub(e.snap.AsOf), true
}

func groupKey(k key) string { return k.cinemaID + "\x00" + k.sessionID }

// generation is the session's Invalidate count, taken before a read begins.
func (c *Cache) generation(k key) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok {
		return el.Value.(*entry).gen
	}
	return 0
}

// store keeps a plan just read as the session's snapshot, unless the session was invalidated
// since the read began (gen is its generation then): the plan is handed to the readers that
// waited for it, but the next Plan reads again.
func (c *Cache) store(k key, plan cinema.SeatPlan, gen uint64) Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := Snapshot{Plan: plan, AsOf: c.now()}
	if el, ok := c.entries[k]; ok {
		e := el.Value.(*entry)
		if e.gen != gen {
			return snap
		}
		e.snap = snap
		c.lru.MoveToFront(el)
		return snap
	}
	c.insertLocked(&entry{key: k, snap: snap})
	return snap
}

// insertLocked adds e as the most recently used session, dropping the least recently used
// beyond the size.
func (c *Cache) insertLocked(e *entry) {
	c.entries[e.key] = c.lru.PushFront(e)
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*entry).key)
	}
}

// Invalidate makes the next Plan of the session read the plan again. Call it after this service changed seats there, or the upstream refused seats as
// taken, so the map shown next is the upstream's.
//
// A read already in flight then stores nothing (it may predate the change), and a Plan after
// Invalidate does not join it but reads anew.
func (c *Cache) Invalidate(cinemaID, sessionID string) {
	k := key{cinemaID, sessionID}
	c.mu.Lock()
	if el, ok := c.entries[k]; ok {
		e := el.Value.(*entry)
		e.snap.AsOf = time.Time{}
		e.gen++
	} else {
		// Nothing kept yet, but a first read may be in flight: an entry that is never fresh
		// carries the new generation, so that read stores nothing either.
		c.insertLocked(&entry{key: k, gen: 1})
	}
	c.mu.Unlock()
	c.group.Forget(groupKey(k))
}
