// Package listings keeps what every visitor of What's on sees alike: the cinemas, and per
// cinema its sessions and scheduled films. Each cinema's listing is read from the ticketing
// system once per interval (TTL, default 30 s) by one request at a time (single flight),
// whatever the number of visitors, and shared by all of them and by every day of the
// listing.
//
// Why one unfiltered read per cinema: the operator's path table (docs/wire-profile.md,
// "Paths") has no placeholder for a day, and the real service knows no date parameter, so a
// day cannot be asked for with `$filter` without guessing at the operator's OData model. A
// listing is read for all days at once (sessions, then films: two upstream calls) and
// narrowed to a day here (Listing.Day).
//
// Once older than TTL a listing is still served for StaleFor while a fresh read runs in the
// background (stale-while-revalidate). When a read fails the last good listing is kept and
// served with its age (Listing.AsOf, Listing.Failing), and no new read is started for
// RetryAfter (when nothing is kept yet every caller reads, one at a time). A listing shows free-seat counts; like seat states they are only ever shown:
// the ticketing system decides when seats are taken.
package listings

import (
	"context"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/flight"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Defaults of Options.
const (
	DefaultTTL         = 30 * time.Second
	DefaultCinemasTTL  = 10 * time.Minute
	DefaultRetryAfter  = 5 * time.Second
	DefaultReadTimeout = 10 * time.Second
	// DefaultOutdatedAfter is the age from which a listing kept after failed reads is called
	// out on the page ("Show times as of 14:02; …").
	DefaultOutdatedAfter = 3 * time.Minute
)

// Source is the part of the ticketing client the cache reads from.
type Source interface {
	ListCinemas(ctx context.Context) ([]cinema.Cinema, error)
	// ListSessionsWithFilms with day "" lists every day's sessions of a cinema and its films.
	ListSessionsWithFilms(ctx context.Context, cinemaID, day string) ([]cinema.Session, []cinema.Film, error)
}

// Options configure a Cache. Zero values take the defaults.
type Options struct {
	// TTL is how long a cinema's listing is served without reading it again; default 30 s.
	TTL time.Duration
	// StaleFor is how long after TTL a listing is still served at once while a fresh read
	// runs in the background; default TTL. Older listings are read before the page answers
	// (and still served when that read fails or runs out of the page's time).
	StaleFor time.Duration
	// CinemasTTL is how long the list of cinemas is served; default 10 min.
	CinemasTTL time.Duration
	// RetryAfter is how long after a failed read no new read is started while a listing is
	// kept (it is served meanwhile); default 5 s. Without one every caller reads, one at a
	// time, so that the client's circuit breaker sees the outage.
	RetryAfter time.Duration
	// ReadTimeout bounds the shared read, which no visitor's cancellation or read budget
	// cuts short; default 10 s.
	ReadTimeout time.Duration
	// OutdatedAfter is the age from which a listing kept after failed reads is Outdated;
	// default 3 min.
	OutdatedAfter time.Duration
	Now           func() time.Time
	Logger        *slog.Logger
	// Health, when set, ends the rest after a failed read as soon as the ticketing system has
	// answered another call well, and keeps a caller from waiting on a read begun before
	// that (internal/flight). A caller never waits on a read older than its read budget.
	Health flight.Health
}

// Listing is a cinema's sessions (every day, by show time) and films as read at AsOf. It is
// shared by every reader: read it, never change it.
type Listing struct {
	CinemaID string
	Sessions []cinema.Session
	Films    []cinema.Film
	AsOf     time.Time
	// Failing is set when the latest read of the listing failed (it is the last good one).
	Failing bool
	// outdated is Failing and older than OutdatedAfter when it was handed out.
	outdated bool
	// byDay are the sessions by business day, made once per read.
	byDay map[string][]cinema.Session
}

// Outdated reports whether the page should say the listing is old: the ticketing system did
// not answer the latest read and the listing is older than OutdatedAfter.
func (l Listing) Outdated() bool { return l.outdated }

// Day returns the sessions of one business day ("YYYY-MM-DD", the cinema's), by show time.
// The slice is shared: read it, never change it.
func (l Listing) Day(day string) []cinema.Session {
	if l.byDay != nil {
		return l.byDay[day]
	}
	var out []cinema.Session
	for _, s := range l.Sessions {
		if s.Day() == day {
			out = append(out, s)
		}
	}
	return out
}

// Session finds a session by either form of its id ("1001" or "0001-1001").
func (l Listing) Session(id string) (cinema.Session, bool) {
	want := upstream.SplitSessionID(l.CinemaID, id)
	for _, s := range l.Sessions {
		if s.SessionID == want || s.ID == id {
			return s, true
		}
	}
	return cinema.Session{}, false
}

// Film finds a film by its id.
func (l Listing) Film(id string) (cinema.Film, bool) {
	for _, f := range l.Films {
		if f.ID == id {
			return f, true
		}
	}
	return cinema.Film{}, false
}

// Cache keeps the listings. It is safe for concurrent use.
type Cache struct {
	src          Source
	opt          Options
	listingReads flight.Group[Listing]
	cinemaReads  flight.Group[[]cinema.Cinema]

	mu       sync.Mutex
	listings map[string]*kept[Listing]
	cinemas  kept[[]cinema.Cinema]
}

// kept is one value as last read, and how its latest read went.
type kept[T any] struct {
	val      T
	at       time.Time // when val was read; zero: nothing read yet
	failedAt time.Time // the latest failed read since val, zero when none
	failMark uint64    // Health's mark when that read failed
	err      error     // its error
}

// New returns a Cache reading from src.
func New(src Source, opt Options) *Cache {
	if opt.TTL <= 0 {
		opt.TTL = DefaultTTL
	}
	if opt.StaleFor <= 0 {
		opt.StaleFor = opt.TTL
	}
	if opt.CinemasTTL <= 0 {
		opt.CinemasTTL = DefaultCinemasTTL
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = DefaultRetryAfter
	}
	if opt.ReadTimeout <= 0 {
		opt.ReadTimeout = DefaultReadTimeout
	}
	if opt.OutdatedAfter <= 0 {
		opt.OutdatedAfter = DefaultOutdatedAfter
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Cache{src: src, opt: opt, listings: map[string]*kept[Listing]{}}
	c.listingReads.Health, c.listingReads.Budget, c.listingReads.Now = opt.Health, upstream.ReadDeadline, opt.Now
	c.cinemaReads.Health, c.cinemaReads.Budget, c.cinemaReads.Now = opt.Health, upstream.ReadDeadline, opt.Now
	return c
}

// TTL is how long a listing is served without reading it again.
func (c *Cache) TTL() time.Duration { return c.opt.TTL }

// Listing returns the cinema's listing. A fresh one is returned at once; one older than TTL
// but within StaleFor also, while it is read again in the background; otherwise it is read
// (one read for every caller at the same time) and the caller waits for it until its context
// or read deadline (upstream.WithReadDeadline) ends. When that read fails or takes too long,
// the last good listing is returned (Failing set); an error only when there is none.
//
// A cinema not in the list of cinemas (when that can be read) is not found: listings are kept
// only for the cinemas there are, whatever ids the addresses of pages name.
func (c *Cache) Listing(ctx context.Context, cinemaID string) (Listing, error) {
	c.mu.Lock()
	k := c.listings[cinemaID]
	c.mu.Unlock()
	if k == nil {
		if list, err := c.Cinemas(ctx); err == nil && !slices.ContainsFunc(list, func(ci cinema.Cinema) bool { return ci.ID == cinemaID }) {
			return Listing{}, &upstream.Error{Op: upstream.OpListSessions, Kind: upstream.ErrNotFound, Description: "no cinema " + cinemaID}
		}
	}
	now := c.opt.Now()
	c.mu.Lock()
	if k = c.listings[cinemaID]; k == nil {
		k = &kept[Listing]{}
		c.listings[cinemaID] = k
	}
	l, state := c.stateLocked(k.val, k.at, c.resting(k.failedAt, k.failMark, now), k.err != nil, now, c.opt.TTL)
	err := k.err
	c.mu.Unlock()
	switch state {
	case fresh:
		return l, nil
	case stale:
		c.refreshListing(ctx, cinemaID) // in the background
		return l, nil
	case rest:
		if l.AsOf.IsZero() {
			return Listing{}, err
		}
		return l, nil
	}
	r := c.refreshListing(ctx, cinemaID)
	err = nil
	select {
	case res := <-r:
		if res.Err == nil {
			return res.Val, nil
		}
		err = res.Err
	case <-ctx.Done():
	case <-deadline(ctx):
	}
	c.mu.Lock()
	l, _ = c.stateLocked(k.val, k.at, false, true, c.opt.Now(), c.opt.TTL)
	c.mu.Unlock()
	if l.AsOf.IsZero() {
		if ctx.Err() != nil {
			return Listing{}, ctx.Err()
		}
		if err == nil { // still reading: the page's time is up
			err = &upstream.Error{Op: upstream.OpListSessions, Kind: upstream.ErrUnavailable, Err: context.DeadlineExceeded, Outage: true, Read: true,
				Description: "the listing of cinema " + cinemaID + " was not read in time"}
		}
		return Listing{}, err
	}
	return l, nil
}

// FindSession returns one session of a cinema from its listing. A session the listing does
// not have is looked for in a listing read anew, unless the kept one is younger than
// RetryAfter (so that asking for unknown sessions costs the ticketing system little).
func (c *Cache) FindSession(ctx context.Context, cinemaID, sessionID string) (cinema.Session, error) {
	l, err := c.Listing(ctx, cinemaID)
	if err != nil {
		return cinema.Session{}, err
	}
	if s, ok := l.Session(sessionID); ok {
		return s, nil
	}
	if !l.Failing && c.opt.Now().Sub(l.AsOf) >= c.opt.RetryAfter {
		c.mu.Lock()
		if k := c.listings[cinemaID]; k != nil && k.at.Equal(l.AsOf) {
			k.at = k.at.Add(-c.opt.TTL - c.opt.StaleFor) // read before answering
		}
		c.mu.Unlock()
		if l, err = c.Listing(ctx, cinemaID); err != nil {
			return cinema.Session{}, err
		}
		if s, ok := l.Session(sessionID); ok {
			return s, nil
		}
	}
	return cinema.Session{}, &upstream.Error{Op: upstream.OpListSessions, Kind: upstream.ErrNotFound, Description: "session " + sessionID + " is not in the listing"}
}

type state int

const (
	fresh   state = iota
	stale         // served while read again
	rest          // the latest read failed a moment ago: served without reading
	expired       // read before answering
)

// resting reports whether a read that failed at failedAt (Health's mark then: mark) is recent
// enough that no new read starts yet: within RetryAfter, unless the ticketing system has
// answered well since.
func (c *Cache) resting(failedAt time.Time, mark uint64, now time.Time) bool {
	if failedAt.IsZero() || now.Sub(failedAt) >= c.opt.RetryAfter {
		return false
	}
	return c.opt.Health == nil || !c.opt.Health.AnsweredSince(mark)
}

func (c *Cache) stateLocked(l Listing, at time.Time, resting, failing bool, now time.Time, ttl time.Duration) (Listing, state) {
	l.AsOf = at
	l.Failing = failing && !at.IsZero()
	l.outdated = l.Failing && now.Sub(at) >= c.opt.OutdatedAfter
	switch age := now.Sub(at); {
	case at.IsZero(): // nothing kept: every caller reads (one at a time), as without a cache
		return l, expired
	case resting:
		return l, rest
	case age < ttl:
		return l, fresh
	case age < ttl+c.opt.StaleFor:
		return l, stale
	default:
		return l, expired
	}
}

// refreshListing starts the shared read of a cinema's listing, or joins the one running.
func (c *Cache) refreshListing(ctx context.Context, cinemaID string) <-chan flight.Result[Listing] {
	mark := c.mark()
	return c.listingReads.DoChan(ctx, cinemaID, func() (Listing, error) {
		// The shared read must not die with the request that started it, nor end at its read
		// budget: other readers wait on it. It has its own timeout.
		rctx, cancel := context.WithTimeout(upstream.Detach(ctx), c.opt.ReadTimeout)
		defer cancel()
		sessions, films, err := c.src.ListSessionsWithFilms(rctx, cinemaID, "")
		now := c.opt.Now()
		c.mu.Lock()
		defer c.mu.Unlock()
		k := c.listings[cinemaID]
		if k == nil {
			k = &kept[Listing]{}
			c.listings[cinemaID] = k
		}
		if err != nil {
			k.failedAt, k.failMark, k.err = now, mark, err
			c.opt.Logger.Warn("the cinema's listing could not be read; the last good one is kept",
				"cinema", cinemaID, "as_of", k.at, "err", err)
			return Listing{}, err
		}
		sorted := append([]cinema.Session(nil), sessions...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Showtime.Before(sorted[j].Showtime) })
		byDay := map[string][]cinema.Session{}
		for _, s := range sorted {
			byDay[s.Day()] = append(byDay[s.Day()], s)
		}
		k.val = Listing{CinemaID: cinemaID, Sessions: sorted, Films: films, byDay: byDay}
		k.at, k.failedAt, k.err = now, time.Time{}, nil
		l := k.val
		l.AsOf = now
		return l, nil
	})
}

// Cinemas returns the cinemas, read at most once per CinemasTTL (in the background once
// older, while the kept list is served); when a read fails the kept list is served.
func (c *Cache) Cinemas(ctx context.Context) ([]cinema.Cinema, error) {
	now := c.opt.Now()
	c.mu.Lock()
	_, st := c.stateLocked(Listing{}, c.cinemas.at, c.resting(c.cinemas.failedAt, c.cinemas.failMark, now), c.cinemas.err != nil, now, c.opt.CinemasTTL)
	list, at, err := c.cinemas.val, c.cinemas.at, c.cinemas.err
	c.mu.Unlock()
	if !at.IsZero() {
		if st != fresh && st != rest {
			c.refreshCinemas(ctx)
		}
		return list, nil
	}
	if st == rest {
		return nil, err
	}
	select {
	case r := <-c.refreshCinemas(ctx):
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-deadline(ctx):
		return nil, &upstream.Error{Op: upstream.OpListCinemas, Kind: upstream.ErrUnavailable, Err: context.DeadlineExceeded, Outage: true, Read: true}
	}
}

func (c *Cache) refreshCinemas(ctx context.Context) <-chan flight.Result[[]cinema.Cinema] {
	mark := c.mark()
	return c.cinemaReads.DoChan(ctx, "cinemas", func() ([]cinema.Cinema, error) {
		rctx, cancel := context.WithTimeout(upstream.Detach(ctx), c.opt.ReadTimeout)
		defer cancel()
		list, err := c.src.ListCinemas(rctx)
		now := c.opt.Now()
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil {
			c.cinemas.failedAt, c.cinemas.failMark, c.cinemas.err = now, mark, err
			c.opt.Logger.Warn("the cinemas could not be read; the last good list is kept", "err", err)
			return nil, err
		}
		c.cinemas = kept[[]cinema.Cinema]{val: list, at: now}
		return list, nil
	})
}

// mark is Health's mark now (0 without Health).
func (c *Cache) mark() uint64 {
	if c.opt.Health == nil {
		return 0
	}
	return c.opt.Health.Mark()
}

// deadline is a channel closed at the context's read deadline (never, without one).
func deadline(ctx context.Context) <-chan time.Time {
	dl, ok := upstream.ReadDeadline(ctx)
	if !ok {
		return nil
	}
	return time.After(time.Until(dl))
}
