package listings

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/flight"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// TicketTypeSource is the part of the ticketing client TicketTypes reads from.
type TicketTypeSource interface {
	GetTicketTypes(ctx context.Context, cinemaID, sessionID, userSessionID string) ([]cinema.TicketType, error)
}

// TicketTypes keeps each session's ticket types (outside an order) for the listing's
// interval: every booking page, the session page and the showtime change need them, they
// change as rarely as the listing, and decoding them was a fifth of a booking page's CPU. One
// read per session at a time; a failed read is not kept. It is safe for concurrent use.
type TicketTypes struct {
	src   TicketTypeSource
	ttl   time.Duration
	now   func() time.Time
	reads flight.Group[[]cinema.TicketType]

	mu sync.Mutex
	m  map[string]keptTypes
}

type keptTypes struct {
	types []cinema.TicketType
	at    time.Time
}

// ticketTypesMax bounds the cache: past it, entries older than the interval are dropped.
const ticketTypesMax = 2048

// NewTicketTypes returns ticket types read from src and kept for ttl (0 means DefaultTTL).
// now is the clock (nil means time.Now); health, when set, keeps a caller from waiting on a
// read begun before the ticketing system answered well again (internal/flight).
func NewTicketTypes(src TicketTypeSource, ttl time.Duration, now func() time.Time, health flight.Health) *TicketTypes {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	t := &TicketTypes{src: src, ttl: ttl, now: now, m: map[string]keptTypes{}}
	t.reads.Budget, t.reads.Health = upstream.ReadDeadline, health
	return t
}

// Session returns a session's ticket types as sold outside an order, shared by every visitor
// for the interval. Each caller gets its own copy. Within an order (an edit, a purchase) call
// the upstream with its userSessionId instead.
func (t *TicketTypes) Session(ctx context.Context, cinemaID, sessionID string) ([]cinema.TicketType, error) {
	key := cinemaID + "\x00" + sessionID
	t.mu.Lock()
	if e, ok := t.m[key]; ok && t.now().Sub(e.at) < t.ttl {
		t.mu.Unlock()
		return slices.Clone(e.types), nil
	}
	t.mu.Unlock()
	r, err := t.reads.Do(ctx, key, func() ([]cinema.TicketType, error) {
		// The shared read is bounded on its own: no one caller's budget cuts it short.
		rctx, cancel := context.WithTimeout(upstream.Detach(ctx), DefaultReadTimeout)
		defer cancel()
		types, err := t.src.GetTicketTypes(rctx, cinemaID, sessionID, "")
		if err != nil {
			return nil, err
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		now := t.now()
		if len(t.m) >= ticketTypesMax {
			for k, e := range t.m {
				if now.Sub(e.at) >= t.ttl {
					delete(t.m, k)
				}
			}
		}
		t.m[key] = keptTypes{types: types, at: now}
		return types, nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Clone(r), nil
}
