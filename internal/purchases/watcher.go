package purchases

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Stuck orders are resolved, not forgotten: a redirect payment's order that never completes is
// checked in the background with a growing interval (WatchInterval: every 2 s at first, at the
// end every 10 minutes) for up to Watcher.WatchFor (24 h), also across restarts (the records
// are in the database). Then it is given up: one last look, CancelOrder upstream (the seats are
// released), and the record says so (state given_up, when, why). What happens to money taken
// is said only in the operator's policy text, which the web layer shows.

// DefaultWatchFor is how long an unconfirmed order is checked when Watcher.WatchFor is 0.
const DefaultWatchFor = 24 * time.Hour

// Canceller is what the watcher asks of the ticketing system besides the order details (which
// it reads through the Poller): to cancel an order it gives up.
type Canceller interface {
	CancelOrder(ctx context.Context, userSessionID string) error
}

// Watcher records what becomes of redirect payments whose outcome is not known yet: it applies
// the upstream's order details to the records, keeps checking unconfirmed orders in the
// background and gives them up at the end of the window. It has no web in it: the BFF builds
// one and reacts to its outcomes through the hook fields.
type Watcher struct {
	Store     *Store
	Poller    *Poller
	Ticketing Canceller
	// Background bounds the background checks; they end with it (nil: context.Background).
	Background context.Context
	// Now is the clock the window is measured on (nil: time.Now).
	Now func() time.Time
	// Logger returns the logger for ctx (a request's, or the server's); nil: slog.Default.
	Logger func(ctx context.Context) *slog.Logger
	// WatchFor is how long an unconfirmed order is checked before it is given up (0:
	// DefaultWatchFor).
	WatchFor time.Duration
	// Every is the pause between two background checks of an order by the time since its
	// payment started (nil: WatchInterval). Read at every pause, so a test may shorten it.
	Every func(age time.Duration) time.Duration
	// Describe writes a duration for the give-up reason kept in the record (the records are in
	// English; nil: time.Duration.String).
	Describe func(time.Duration) string
	// OnCompleted is called after a completion was recorded: the order no longer holds seats,
	// so the caller releases its hold. Called outside the record's transaction. May be nil.
	OnCompleted func(ctx context.Context, rec Record)
}

func (w *Watcher) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Watcher) log(ctx context.Context) *slog.Logger {
	if w.Logger != nil {
		if l := w.Logger(ctx); l != nil {
			return l
		}
	}
	return slog.Default()
}

func (w *Watcher) background() context.Context {
	if w.Background != nil {
		return w.Background
	}
	return context.Background()
}

// Window is how long an unconfirmed order is checked before it is given up.
func (w *Watcher) Window() time.Duration {
	if w.WatchFor > 0 {
		return w.WatchFor
	}
	return DefaultWatchFor
}

// Deadline is when the record's order is given up.
func (w *Watcher) Deadline(rec Record) time.Time {
	return rec.Created.Add(w.Window())
}

func (w *Watcher) every(age time.Duration) time.Duration {
	if w.Every != nil {
		return w.Every(age)
	}
	return WatchInterval(age)
}

func (w *Watcher) describe(d time.Duration) string {
	if w.Describe != nil {
		return w.Describe(d)
	}
	return d.String()
}

// Watch keeps checking the order's unconfirmed payment until it completes, ends or is given
// up, so a late completion is recorded even if nobody looks. One watcher runs per order (a
// second call does nothing); it follows whichever payment of the order is under way.
func (w *Watcher) Watch(rec Record) {
	bg := w.background()
	usid := rec.UserSessionID
	// The record as the last check read it: the pause before the next check is worked out from
	// it, so a check reads the record once (in step), not once more for its pause. Poller.Watch
	// calls pause and handle one after the other on one goroutine.
	cur, known := rec, true
	pause := func(int) time.Duration {
		if !known {
			return time.Second // gone (the next check ends the watcher) or a database hiccup
		}
		now := w.now()
		d := w.every(now.Sub(cur.Created))
		if left := w.Deadline(cur).Sub(now); left < d {
			d = max(left, 0) // be there when the window ends
		}
		return d
	}
	// The real-time bound is only a safety net: the window is measured on the watcher's clock
	// from the record's start, and a give-up that could not reach the upstream is tried again.
	var readAt time.Time // on the watcher's clock; zero: rec came from the caller
	w.Poller.Watch(bg, usid, w.Window()+24*time.Hour, pause, func(r Result) bool {
		now := w.now()
		if known && !readAt.IsZero() && nothingToRecord(r) && now.Before(w.Deadline(cur)) && now.Sub(readAt) < recordRefresh {
			return false // still waiting: the record would be read only to change nothing
		}
		var done bool
		cur, known, done = w.step(bg, usid, r)
		readAt = now
		return done
	})
}

// recordRefresh is how long a background check trusts the record it read last while the
// upstream says nothing new: long enough that thousands of waiting orders do not read their
// records on every check, short enough to follow a new payment attempt of the order
// or a record ended elsewhere within a minute.
const recordRefresh = time.Minute

// nothingToRecord reports whether r would change no record (Apply records only a completion or
// a failed payment).
func nothingToRecord(r Result) bool {
	if r.Err != nil {
		return true
	}
	wp := r.Details.WebPayment
	return !r.Details.Completed && (wp == nil || !wp.Status.Failed())
}

// step handles one background check of an order; done ends the watcher. It reads the order's
// active record once and returns it (known=false when it could not be read) for the pause
// before the next check.
func (w *Watcher) step(ctx context.Context, usid string, r Result) (cur Record, known, done bool) {
	cur, err := w.Store.Active(ctx, usid)
	if errors.Is(err, ErrNotFound) {
		return cur, false, true // completed, ended or given up meanwhile
	}
	if err != nil {
		w.log(ctx).Warn("stuck order: read record", "err", err)
		return cur, false, false
	}
	if _, final := w.Apply(ctx, cur, r); final {
		return cur, true, true
	}
	if w.now().Before(w.Deadline(cur)) {
		return cur, true, false
	}
	return cur, true, w.giveUp(ctx, cur)
}

// Apply records what the upstream said about the payment; final reports a completed or ended
// payment. A result with an error changes nothing.
func (w *Watcher) Apply(ctx context.Context, rec Record, r Result) (_ Record, final bool) {
	if r.Err != nil {
		return rec, false
	}
	d := r.Details
	if d.Completed {
		next, err := w.Store.MarkCompleted(ctx, rec.ID, d.BookingNumber)
		if err == nil && w.OnCompleted != nil {
			w.OnCompleted(ctx, next) // booked: the order no longer holds seats
		}
		if err != nil && !IsStateChanged(err) {
			w.log(ctx).Error("record completed order", "ref", rec.ID, "err", err)
			rec.State, rec.BookingNumber = StateCompleted, d.BookingNumber
			return rec, true
		}
		return next, next.State == StateCompleted
	}
	wp := d.WebPayment
	if wp == nil || !wp.Status.Failed() || !rec.TokenMatches(wp.Token) {
		return rec, false // pending, paid and completing, unknown: keep waiting
	}
	state := StateDeclined
	if wp.Status == cinema.PaymentCancelled {
		state = StateCancelled
	}
	next, err := w.Store.MarkEnded(ctx, rec.ID, state)
	if err != nil && !IsStateChanged(err) {
		w.log(ctx).Error("record ended payment", "ref", rec.ID, "err", err)
		return rec, false
	}
	return next, true
}

// giveUp ends the wait for an order that never completed within the window: a last fresh look,
// then CancelOrder upstream, then the record. done=false when the upstream could not be asked
// (the next check tries again).
func (w *Watcher) giveUp(ctx context.Context, rec Record) (done bool) {
	log := w.log(ctx)
	usid := rec.UserSessionID
	freshLook := func() bool {
		w.Poller.Forget(usid)
		_, final := w.Apply(ctx, rec, w.Poller.Get(ctx, usid))
		return final
	}
	if freshLook() {
		return true
	}
	window := w.describe(w.Window()) // for the record
	var reason string
	cancelled := false
	err := w.Ticketing.CancelOrder(ctx, usid)
	switch {
	case err == nil:
		cancelled = true
		reason = "No confirmation from the ticketing system within " + window + ": the order was cancelled upstream and its seats released."
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrOrderExpired):
		cancelled = true // nothing holds the seats any more
		reason = "No confirmation from the ticketing system within " + window + ": the order was already gone upstream (expired or cancelled)."
	case errors.Is(err, upstream.ErrOrderClosed):
		// Completed meanwhile, or an upstream that will not cancel an order awaiting its payment.
		if freshLook() {
			return true
		}
		reason = "No confirmation from the ticketing system within " + window + ": the ticketing system refused to cancel the order (" +
			err.Error() + "), so its seats may still be held."
	default:
		log.Warn("stuck order: cancel failed, will try again", "ref", rec.ID, "err", err)
		return false
	}
	next, err := w.Store.MarkGivenUp(ctx, rec.ID, reason, cancelled)
	if IsStateChanged(err) {
		return true // completed or ended at the last moment: the record says which
	}
	if err != nil {
		log.Error("stuck order: record give-up", "ref", rec.ID, "err", err)
		return false
	}
	w.Poller.Forget(usid)
	log.Warn("stuck order given up", "ref", rec.ID, "reference", next.Reference(), "amount_cents", next.AmountCents,
		"order_cancelled", cancelled, "reason", reason)
	return true
}

// Found is what a check on demand (CheckNow) found about an order.
type Found int

const (
	FoundCompleted   Found = iota // booked
	FoundDeclined                 // declined at the provider
	FoundCancelled                // cancelled at the provider
	FoundGone                     // given up, and the upstream no longer answers about it (Err says why)
	FoundStillOpen                // given up, and still not completed
	FoundUnreachable              // the upstream did not answer (Err); watched again
	FoundWatching                 // not confirmed yet; watched again until Until
)

// Check is the outcome of CheckNow: the record afterwards and what was found.
type Check struct {
	Record Record
	Found  Found
	Err    error     // the upstream's error (FoundGone, FoundUnreachable)
	Until  time.Time // when the order will be given up (FoundWatching)
}

// CheckNow is staff's "Retry" on a stuck or given-up order: read the order details now (not
// from the poller's cache) and record what they say; an order not confirmed yet is watched
// again. The caller says what was found in its own words.
func (w *Watcher) CheckNow(ctx context.Context, rec Record) Check {
	w.Poller.Forget(rec.UserSessionID)
	r := w.Poller.Get(ctx, rec.UserSessionID)
	next, _ := w.Apply(ctx, rec, r)
	c := Check{Record: next}
	switch {
	case next.State == StateCompleted:
		c.Found = FoundCompleted
	case next.State == StateDeclined:
		c.Found = FoundDeclined
	case next.State == StateCancelled:
		c.Found = FoundCancelled
	case errors.Is(r.Err, upstream.ErrUnavailable):
		// Slow or down (a read still under way when the caller's budget ran out is one too:
		// ErrStillReading): nothing is known about the order. A given-up order stays given up.
		if rec.State != StateGivenUp {
			w.Watch(rec)
		}
		c.Found, c.Err = FoundUnreachable, r.Err
	case rec.State == StateGivenUp && r.Err != nil:
		c.Found, c.Err = FoundGone, r.Err
	case rec.State == StateGivenUp:
		c.Found = FoundStillOpen
	case r.Err != nil:
		w.Watch(rec)
		c.Found, c.Err = FoundUnreachable, r.Err
	default:
		w.Watch(rec)
		c.Found, c.Until = FoundWatching, w.Deadline(rec)
	}
	return c
}

// Resume keeps checking, in the background, every redirect payment whose outcome is not known:
// those awaiting it when the process stopped, and starts a crash interrupted (call at start-up,
// after the migrations, and from time to time). It returns how many it looked at.
func (w *Watcher) Resume(ctx context.Context) (int, error) {
	recs, err := w.Store.Pending(ctx, 1000, w.now().Add(-time.Minute))
	if err != nil {
		return 0, err // already says "checkout: list records"
	}
	for _, r := range recs {
		w.Watch(r)
	}
	return len(recs), nil
}

// Start resumes the watchers now and then every interval until ctx ends, so no unconfirmed
// payment goes unwatched (after a restart, or a watcher that stopped).
func (w *Watcher) Start(ctx context.Context, every time.Duration) {
	go func() {
		for {
			if n, err := w.Resume(ctx); err != nil {
				w.log(ctx).Warn("resume checkout watchers", "err", err)
			} else if n > 0 {
				w.log(ctx).Debug("checkout watchers resumed", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
}
