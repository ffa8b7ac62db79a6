package upstream

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
)

// ErrCircuitOpen is the cause wrapped in the ErrUnavailable error of a call
// refused because the circuit breaker is open.
var ErrCircuitOpen = errors.New("circuit breaker open")

// errBreakerOpen is the internal alias used by outcome().
var errBreakerOpen = ErrCircuitOpen

// breaker wraps one gobreaker per upstream. Only ErrUnavailable failures
// count against it: a refusal by rule is a healthy upstream. A call the
// caller itself cancelled, or a read cut off by the request's read budget
// (the page ran out of time, not the upstream), is not counted at all.
//
// Nor does a failure of a call that began before a call that has since succeeded: it says
// how the upstream was when it began, and a later call has shown it well. After a slow spell
// the reads begun during it (a watcher's, a shared listing's) end as failures once the
// upstream is well again; counted, they opened the breaker for its open timeout with the
// upstream answering fine (a 10 s spell kept pages at 503 for 24 s after it ended).
type breaker struct {
	cb *gobreaker.CircuitBreaker[struct{}]
	// began numbers the calls in the order they begin (not by the clock, which may step);
	// wellFrom is the number of the latest-begun call with a healthy answer.
	began    atomic.Uint64
	wellFrom atomic.Uint64
}

// staleFailure marks a failure older than the latest healthy answer (excluded).
type staleFailure struct{ error }

func (e staleFailure) Unwrap() error { return e.error }

func isStaleFailure(err error) bool {
	var sf staleFailure
	return errors.As(err, &sf)
}

// wellSince records a healthy answer of the call numbered n.
func (b *breaker) wellSince(n uint64) {
	for {
		cur := b.wellFrom.Load()
		if n <= cur || b.wellFrom.CompareAndSwap(cur, n) {
			return
		}
	}
}

func newBreaker(name string, s BreakerSettings, log *slog.Logger) *breaker {
	st := gobreaker.Settings{
		Name:        name,
		MaxRequests: s.HalfOpenRequests,
		Timeout:     s.OpenTimeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= s.ConsecutiveFailures },
		IsSuccessful: func(err error) bool {
			return err == nil || !isOutage(err)
		},
		IsExcluded: func(err error) bool {
			return errors.Is(err, context.Canceled) || readBudgetCut(err) || isStaleFailure(err)
		},
		OnStateChange: func(name string, from, to gobreaker.State) {
			log.Warn("upstream circuit breaker", slog.String("upstream", name),
				slog.String("from", from.String()), slog.String("to", to.String()))
		},
	}
	return &breaker{cb: gobreaker.NewCircuitBreaker[struct{}](st)}
}

// run calls fn through the breaker. When the breaker refuses the call the
// error wraps ErrCircuitOpen.
func (b *breaker) run(fn func() error) error {
	n := b.began.Add(1)
	_, err := b.cb.Execute(func() (struct{}, error) {
		err := fn()
		switch {
		case err == nil || !isOutage(err):
			b.wellSince(n)
		case n < b.wellFrom.Load():
			return struct{}{}, staleFailure{err}
		}
		return struct{}{}, err
	})
	if sf, ok := err.(staleFailure); ok {
		err = sf.error
	}
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return errors.Join(ErrCircuitOpen, err)
	}
	return err
}

func (b *breaker) isOpen() bool { return b.cb.State() == gobreaker.StateOpen }

// retryable reports whether a failed read may be tried again: only outages
// (transport, timeout, 5xx), and not a refusal of the open breaker.
func retryable(err error) bool {
	return isOutage(err) && !errors.Is(err, ErrCircuitOpen)
}

// backoff returns the wait before attempt+1: BaseDelay·2^(attempt-1), capped
// at MaxDelay, drawn uniformly between half and all of it.
func backoff(p RetryPolicy, attempt int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// sleepBackoff waits before the next attempt. It reports false, without
// waiting, when the wait would not end before the call's deadline, and false
// when the context ends during the wait.
func sleepBackoff(ctx context.Context, p RetryPolicy, attempt int) bool {
	d := backoff(p, attempt)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return false
	}
	if d == 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
