package web

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/flight"
	"github.com/cinemabff/cinemabff/internal/listings"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// ticketTypesCache keeps each session's ticket types (outside an order) for the listing's
// interval: every booking page, the session page and the showtime change need them, they
// change as rarely as the listing, and decoding them was a fifth of a booking page's CPU. One
// read per session at a time; a failed read is not kept.
type ticketTypesCache struct {
	mu    sync.Mutex
	m     map[string]ticketTypesEntry
	reads flight.Group[[]cinema.TicketType]
}

type ticketTypesEntry struct {
	types []cinema.TicketType
	at    time.Time
}

// ticketTypesMax bounds the cache: past it, entries older than the interval are dropped.
const ticketTypesMax = 2048

// ticketTypesTimeout bounds the shared read, which no one caller's budget cuts short.
const ticketTypesTimeout = 10 * time.Second

// SessionTicketTypes are a session's ticket types as sold outside an order, shared by every
// visitor for the listing's interval (Config.ListingTTL). Each caller gets its own copy.
// Within an order (an edit, a purchase) call the upstream with its userSessionId instead.
func (k *Kernel) SessionTicketTypes(ctx context.Context, cinemaID, sessionID string) ([]cinema.TicketType, error) {
	ttl := k.Cfg.ListingTTL
	if ttl <= 0 {
		ttl = listings.DefaultTTL
	}
	key := cinemaID + "\x00" + sessionID
	c := &k.ticketTypes
	c.mu.Lock()
	if e, ok := c.m[key]; ok && time.Since(e.at) < ttl {
		c.mu.Unlock()
		return slices.Clone(e.types), nil
	}
	c.mu.Unlock()
	r, err := c.reads.Do(ctx, key, func() ([]cinema.TicketType, error) {
		rctx, cancel := context.WithTimeout(upstream.Detach(ctx), ticketTypesTimeout)
		defer cancel()
		types, err := k.Ticketing.GetTicketTypes(rctx, cinemaID, sessionID, "")
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.m == nil {
			c.m = map[string]ticketTypesEntry{}
		}
		if len(c.m) >= ticketTypesMax {
			for key, e := range c.m {
				if time.Since(e.at) >= ttl {
					delete(c.m, key)
				}
			}
		}
		c.m[key] = ticketTypesEntry{types: types, at: time.Now()}
		return types, nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Clone(r), nil
}
