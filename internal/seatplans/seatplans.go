// Package seatplans owns the BFF's copy of session seat plans. A seat plan is a layout that
// does not change for a session (areas, rows, seat positions, kinds, sofas) and the state of
// every seat, which does. Pages read plans through a Cache: concurrent reads of one session
// share one upstream call, the plan is kept per session id in a small bounded cache, and it
// is read again (layout and seat states, as the upstream sends both) once it is older than a
// short time-to-live.
//
// A cached state is only ever shown, never trusted for a write: when seats are set the
// upstream decides, and answers "seats unavailable" for a seat that was taken meanwhile.
package seatplans

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/cinemabff/cinemabff/internal/cinema"
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
	// Size is how many sessions' plans are kept; default 64 (least recently used go first).
	Size int
	// Now is the clock; default time.Now.
	Now func() time.Time
	// ReadTimeout bounds the shared upstream read of a plan, which no single reader's
	// cancellation or read budget cuts short; default 10 s.
	ReadTimeout time.Duration
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
	timeout time.Duration
	size    int
	now     func() time.Time
	group   singleflight.Group

	mu      sync.Mutex
	entries map[key]*list.Element // of *entry
	lru     *list.List            // front: most recently used
}

type key struct{ cinemaID, sessionID string }

type entry struct {
	key  key
	snap Snapshot // the plan as last read
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
	return &Cache{src: src, ttl: opt.TTL, size: opt.Size, now: opt.Now, timeout: opt.ReadTimeout, entries: map[key]*list.Element{}, lru: list.New()}
}

// Plan returns the session's seat plan with seat states at most TTL old, reading the
// upstream once for all callers that ask at the same time.
func (c *Cache) Plan(ctx context.Context, cinemaID, sessionID string) (Snapshot, error) {
	k := key{cinemaID, sessionID}
	if snap, ok := c.fresh(k); ok {
		return snap, nil
	}
	ch := c.group.DoChan(cinemaID+"\x00"+sessionID, func() (any, error) {
		if snap, ok := c.fresh(k); ok { // refreshed while this call waited for the group
			return snap, nil
		}
		// The shared read must not die with the request that started it, nor end at its read
		// budget (upstream.Detach): other readers wait on it. It has its own timeout.
		rctx, cancel := context.WithTimeout(upstream.Detach(ctx), c.timeout)
		defer cancel()
		plan, err := c.src.GetSeatPlan(rctx, cinemaID, sessionID)
		if err != nil {
			return Snapshot{}, fmt.Errorf("read seat plan of session %s at cinema %s: %w", sessionID, cinemaID, err)
		}
		return c.store(k, plan), nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return Snapshot{}, r.Err
		}
		return r.Val.(Snapshot), nil
	case <-ctx.Done():
		return Snapshot{}, ctx.Err()
	}
}

func (c *Cache) fresh(k key) (Snapshot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return Snapshot{}, false
	}
	e := el.Value.(*entry)
	if c.now().Sub(e.snap.AsOf) >= c.ttl {
		return Snapshot{}, false
	}
	c.lru.MoveToFront(el)
	return e.snap, true
}

// store keeps a plan just read as the session's snapshot.
func (c *Cache) store(k key, plan cinema.SeatPlan) Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := Snapshot{Plan: plan, AsOf: c.now()}
	if el, ok := c.entries[k]; ok {
		el.Value.(*entry).snap = snap
		c.lru.MoveToFront(el)
		return snap
	}
	c.entries[k] = c.lru.PushFront(&entry{key: k, snap: snap})
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*entry).key)
	}
	return snap
}

// Invalidate makes the next Plan of the session read the plan again. Call it after this service changed seats there, or the upstream refused seats as
// taken, so the map shown next is the upstream's.
func (c *Cache) Invalidate(cinemaID, sessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key{cinemaID, sessionID}]; ok {
		el.Value.(*entry).snap.AsOf = time.Time{}
	}
}
