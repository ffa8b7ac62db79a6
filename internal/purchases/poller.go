package purchases

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/flight"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Fetcher reads an order's details from the upstream (GetOrderDetails).
type Fetcher func(ctx context.Context, userSessionID string) (cinema.OrderDetails, error)

// Result is the last answer about an order, with the time its fetch started.
type Result struct {
	Details cinema.OrderDetails
	Err     error
	At      time.Time
}

// PollInterval is how often the return page asks about its payment (its htmx poll,
// views/pages/checkoutview) and so how often the upstream is asked about an order while someone
// waits for it: one shared constant, so the two cannot drift apart (a 1 s read against a 2 s
// page poll read the order twice per poll).
const PollInterval = 2 * time.Second

// Backoff returns the minimum time between two upstream reads of one order that has been
// watched for age: once per page poll at first, then gently slower.
func Backoff(age time.Duration) time.Duration {
	switch {
	case age < 30*time.Second:
		return PollInterval
	case age < 2*time.Minute:
		return 2 * time.Second
	case age < 10*time.Minute:
		return 5 * time.Second
	default:
		return 15 * time.Second
	}
}

// WatchInterval is the pause between two background checks of an order whose payment started
// age ago and has not completed: every 2 s at first, then backing off to every 10 minutes. The
// server keeps checking on this schedule until the order completes, ends, or is given up at the
// end of the watch window (-order-watch-for, 24 h by default).
func WatchInterval(age time.Duration) time.Duration {
	switch {
	case age < time.Minute:
		return 2 * time.Second
	case age < 5*time.Minute:
		return 10 * time.Second
	case age < 15*time.Minute:
		return 30 * time.Second
	case age < time.Hour:
		return time.Minute
	case age < 4*time.Hour:
		return 5 * time.Minute
	default:
		return 10 * time.Minute
	}
}

// Poller reads order details at most once per interval per order, however many browsers,
// tabs or background checks ask: it keeps the last result per order with the time its fetch
// started and hands it out until the interval has passed; concurrent askers of a stale order
// share one fetch. A completed order's result is kept and never fetched again.
type Poller struct {
	fetch    Fetcher
	now      func() time.Time
	backoff  func(age time.Duration) time.Duration
	timeout  time.Duration
	keepIdle time.Duration

	mu      sync.Mutex
	entries map[string]*entry
	reads   flight.Group[Result]
	sweep   time.Time

	watchMu  sync.Mutex
	watching map[string]bool
}

type entry struct {
	first    time.Time // when the order was first asked about
	last     *Result
	lastUsed time.Time
	// next is closed when the next result is stored (then replaced): page polls waiting in
	// Next learn of a new answer at once.
	next chan struct{}
}

func newEntry(now time.Time) *entry {
	return &entry{first: now, lastUsed: now, next: make(chan struct{})}
}

// PollerOption tunes a poller.
type PollerOption func(*Poller)

// WithBackoff replaces Backoff (tests, benchmarks).
func WithBackoff(f func(age time.Duration) time.Duration) PollerOption {
	return func(p *Poller) { p.backoff = f }
}

// WithClock replaces time.Now.
func WithClock(now func() time.Time) PollerOption { return func(p *Poller) { p.now = now } }

// WithHealth keeps an asker from waiting on a read begun before the ticketing system answered
// another call well (internal/flight): after a slow spell the next look reads afresh.
func WithHealth(h flight.Health) PollerOption { return func(p *Poller) { p.reads.Health = h } }

// NewPoller returns a poller reading through fetch.
func NewPoller(fetch Fetcher, opts ...PollerOption) *Poller {
	p := &Poller{fetch: fetch, now: time.Now, backoff: Backoff, timeout: 10 * time.Second, keepIdle: 30 * time.Minute,
		entries: map[string]*entry{}, watching: map[string]bool{}}
	// An asker joins a read under way only while it can wait that long (readWait: its read
	// budget, but never less than minReadWait); older, it reads afresh.
	p.reads.Budget = func(ctx context.Context) (time.Time, bool) {
		now := time.Now()
		w, bounded := readWait(ctx, now)
		return now.Add(w), bounded
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// fresh returns the cached result when it may be used now.
func (p *Poller) fresh(e *entry, now time.Time) (Result, bool) {
	if e == nil || e.last == nil {
		return Result{}, false
	}
	if completed(e.last) {
		return *e.last, true
	}
	if now.Sub(e.last.At) < p.backoff(now.Sub(e.first)) {
		return *e.last, true
	}
	return Result{}, false
}

// completed reports whether r is the answer of a completed order (kept, never read again).
func completed(r *Result) bool { return r.Err == nil && r.Details.Completed }

// Get returns the order's details, from the last fetch when it is recent enough, otherwise
// from a new fetch shared with everyone asking at the same time. The fetch runs detached from
// ctx (under its own timeout) so a caller going away does not fail the others; Get itself
// returns when ctx ends.
func (p *Poller) Get(ctx context.Context, userSessionID string) Result {
	now := p.now()
	p.mu.Lock()
	e := p.entries[userSessionID]
	if e == nil {
		e = newEntry(now)
		p.entries[userSessionID] = e
	}
	e.lastUsed = now
	r, ok := p.fresh(e, now)
	p.sweepLocked(now)
	p.mu.Unlock()
	if ok {
		return r
	}
	ch := p.reads.DoChan(ctx, userSessionID, func() (Result, error) {
		// Someone may have fetched between our check and this call: check again, so one
		// interval never sees two fetches.
		start := p.now()
		p.mu.Lock()
		e := p.entries[userSessionID]
		if e == nil {
			e = newEntry(start)
			p.entries[userSessionID] = e
		}
		if r, ok := p.fresh(e, start); ok {
			p.mu.Unlock()
			return r, nil
		}
		p.mu.Unlock()
		// Detached: neither the caller's cancellation nor its read budget (upstream.Detach)
		// cuts short a read that others wait on.
		fctx, cancel := context.WithTimeout(upstream.Detach(ctx), p.timeout)
		defer cancel()
		d, err := p.fetch(fctx, userSessionID)
		res := Result{Details: d, Err: err, At: start}
		p.mu.Lock()
		e.last = &res
		close(e.next)
		e.next = make(chan struct{})
		p.mu.Unlock()
		return res, nil
	})
	var late <-chan time.Time
	if wait, bounded := readWait(ctx, time.Now()); bounded { // the deadline is wall time, whatever p.now is
		t := time.NewTimer(wait)
		defer t.Stop()
		late = t.C
	}
	select {
	case out := <-ch:
		return out.Val
	case <-ctx.Done():
		return Result{Err: ctx.Err(), At: now}
	case <-late:
		// The read goes on for the others (and the next poll); this page answers now.
		return Result{Err: stillReading(), At: now}
	}
}

// ErrStillReading is in Get's error when the order's read outlasted the caller's read budget
// (upstream.WithReadDeadline): the upstream is slow, the read carries on for the next look.
var ErrStillReading = errors.New("checkout: the order's read is still under way")

// stillReading is Get's error for ErrStillReading: to the pages an upstream read that timed
// out (upstream.ErrUnavailable, upstream.TimedOut, a safe call), so they say the cinema's
// system is slow and that nothing was changed.
func stillReading() error {
	return &upstream.Error{Op: upstream.OpGetOrderDetails, Kind: upstream.ErrUnavailable, Outage: true, Read: true,
		Err: fmt.Errorf("%w: %w", ErrStillReading, context.DeadlineExceeded)}
}

// minReadWait is how long Get waits for a read even when the caller's read deadline has
// passed (a held poll, Next, may run past its request's budget by design): a well upstream
// answers within it, so a completion is not put off by a poll.
const minReadWait = 750 * time.Millisecond

// readWait is how long Get may wait for a read for ctx: up to its read deadline, but at least
// minReadWait; bounded is false without a read deadline (the watchers in the background).
func readWait(ctx context.Context, now time.Time) (wait time.Duration, bounded bool) {
	dl, ok := upstream.ReadDeadline(ctx)
	if !ok {
		return 0, false
	}
	return max(dl.Sub(now), minReadWait), true
}

// Next is Get for a page poll that already shows the last answer: it waits, at most maxWait
// or until ctx ends, for the next read of the order and returns that (at once when the order
// is already completed). Every waiter wakes when a read is stored, or when the last read is
// one Backoff interval old; the waiters then read through Get, which shares one read per
// interval among them, and that read's result wakes the rest. Nothing reads the order once
// nobody waits for it.
func (p *Poller) Next(ctx context.Context, userSessionID string, maxWait time.Duration) Result {
	now := p.now()
	p.mu.Lock()
	e := p.entries[userSessionID]
	if e == nil {
		e = newEntry(now)
		p.entries[userSessionID] = e
	}
	e.lastUsed = now
	last, ok := p.fresh(e, now)
	if ok && completed(&last) {
		p.mu.Unlock()
		return last
	}
	next := e.next
	wait := time.Duration(0) // nothing recent: read at once
	if ok {
		wait = min(last.At.Add(p.backoff(now.Sub(e.first))).Sub(now), maxWait)
	}
	p.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-next:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return p.Get(ctx, userSessionID) // the result just stored, or a read if none is recent
}

// Forget drops what the poller knows about an order.
func (p *Poller) Forget(userSessionID string) {
	p.mu.Lock()
	delete(p.entries, userSessionID)
	p.mu.Unlock()
}

// sweepLocked drops orders nobody asked about for a long time (at most once a minute).
func (p *Poller) sweepLocked(now time.Time) {
	if now.Sub(p.sweep) < time.Minute {
		return
	}
	p.sweep = now
	for k, e := range p.entries {
		if now.Sub(e.lastUsed) > p.keepIdle {
			delete(p.entries, k)
		}
	}
}

// Watch keeps checking an order in the background until handle says it is done, ctx ends or
// for runs out. Only one watcher runs per order; a second call while one runs does nothing and
// returns false. every gives the pause before check n (0, 1, ...).
//
// Between two checks a watcher is a timer, not a goroutine: thousands of orders waiting for
// their payment hold no goroutine (nor the stack a check grew) while they wait. Each
// check runs on the timer's goroutine; the next one is set when it returns.
func (p *Poller) Watch(ctx context.Context, userSessionID string, for_ time.Duration, every func(n int) time.Duration, handle func(Result) (done bool)) bool {
	p.watchMu.Lock()
	if p.watching[userSessionID] {
		p.watchMu.Unlock()
		return false
	}
	p.watching[userSessionID] = true
	p.watchMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, for_)
	finish := func() {
		cancel()
		p.watchMu.Lock()
		delete(p.watching, userSessionID)
		p.watchMu.Unlock()
	}
	var (
		mu     sync.Mutex // guards timer between a check setting the next and ctx ending
		timer  *time.Timer
		n      int
		stopCx func() bool
	)
	check := func() {
		if ctx.Err() == nil && !handle(p.Get(ctx, userSessionID)) && ctx.Err() == nil {
			n++
			d := every(n)
			mu.Lock()
			timer.Reset(d)
			mu.Unlock()
			return // if ctx ends meanwhile, either its AfterFunc stops the timer or the next check sees it
		}
		mu.Lock()
		stop := stopCx // set before Watch returns, which may be after a first check begins
		mu.Unlock()
		stop()
		finish()
	}
	mu.Lock()
	defer mu.Unlock()
	timer = time.AfterFunc(every(0), check)
	stopCx = context.AfterFunc(ctx, func() {
		mu.Lock()
		waiting := timer.Stop()
		mu.Unlock()
		if waiting {
			finish() // no check will run; one under way finishes itself
		}
	})
	return true
}

// Watching reports whether a background watcher runs for the order.
func (p *Poller) Watching(userSessionID string) bool {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	return p.watching[userSessionID]
}
