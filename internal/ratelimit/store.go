package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Rule is an allowance: Burst attempts at once, then one more every Every.
type Rule struct {
	Burst int
	Every time.Duration
}

// Valid reports whether r can be used.
func (r Rule) Valid() bool { return r.Burst >= 1 && r.Every > 0 }

// tolerance is how far ahead of now the theoretical arrival time may run: (Burst-1) × Every.
func (r Rule) tolerance() time.Duration { return time.Duration(r.Burst-1) * r.Every }

// Store keeps allowances per key. The database and Redis stores are shared by every replica;
// Memory is one process's (tests, or a server without a database).
//
// All three implement the generic cell rate algorithm (GCRA): a key has one number, its
// theoretical arrival time (TAT). An attempt at now is allowed when max(TAT, now) - now is at
// most the rule's tolerance; it then moves TAT one interval on. A refused attempt changes
// nothing, so the wait shown only counts down.
type Store interface {
	// Take takes one attempt for key. When none is left it returns false and how long until
	// one is (nothing is taken).
	Take(ctx context.Context, key string, r Rule) (ok bool, retryAfter time.Duration, err error)
	// Wait returns how long until an attempt for key would be allowed (0: now), taking nothing.
	Wait(ctx context.Context, key string, r Rule) (time.Duration, error)
	// Give returns one attempt taken for key (it did not count: a success, an outage).
	Give(ctx context.Context, key string, r Rule) error
}

// ErrBadRule is returned for a rule without burst or interval.
var ErrBadRule = errors.New("ratelimit: a rule needs a burst of at least 1 and a positive interval")

// Limit is one rule and the key an attempt counts against.
type Limit struct {
	Key  string
	Rule Rule
}

// TakeAll takes one attempt from every limit, or none: when one of them refuses, nothing is
// taken (a refused attempt does not shorten any other allowance) and the wait is the longest
// of the refusing ones, after which every limit allows the attempt.
func TakeAll(ctx context.Context, st Store, limits ...Limit) (ok bool, retryAfter time.Duration, err error) {
	for _, l := range limits {
		w, err := st.Wait(ctx, l.Key, l.Rule)
		if err != nil {
			return false, 0, err
		}
		retryAfter = max(retryAfter, w)
	}
	if retryAfter > 0 {
		return false, retryAfter, nil
	}
	for i, l := range limits {
		ok, wait, err := st.Take(ctx, l.Key, l.Rule)
		if err == nil && ok {
			continue
		}
		// Another request took the last attempt meanwhile (or the store failed): give back
		// what this one took.
		for _, taken := range limits[:i] {
			if gerr := st.Give(ctx, taken.Key, taken.Rule); gerr != nil && err == nil {
				err = gerr
			}
		}
		return false, wait, err
	}
	return true, 0, nil
}

// GiveAll gives one attempt back to every limit (the attempt TakeAll allowed did not count).
func GiveAll(ctx context.Context, st Store, limits ...Limit) error {
	var errs []error
	for _, l := range limits {
		errs = append(errs, st.Give(ctx, l.Key, l.Rule))
	}
	return errors.Join(errs...)
}

// gcra is the algorithm on one TAT (unix milliseconds; 0: none). It returns the new TAT and
// whether the attempt is allowed, or the wait.
func gcra(tat, now int64, r Rule) (newTAT int64, ok bool, wait time.Duration) {
	start := max(tat, now)
	if start-now > r.tolerance().Milliseconds() {
		return tat, false, time.Duration(start-now-r.tolerance().Milliseconds()) * time.Millisecond
	}
	return start + r.Every.Milliseconds(), true, 0
}

// waitFor is the wait gcra would name for tat at now (0: allowed).
func waitFor(tat, now int64, r Rule) time.Duration {
	if d := tat - now - r.tolerance().Milliseconds(); d > 0 {
		return time.Duration(d) * time.Millisecond
	}
	return 0
}

// Memory is a Store in process memory.
type Memory struct {
	now func() time.Time

	mu    sync.Mutex
	tats  map[string]int64
	swept time.Time
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{now: time.Now, tats: map[string]int64{}} }

// SetClock replaces the clock (tests).
func (m *Memory) SetClock(now func() time.Time) { m.now = now }

// Take implements Store.
func (m *Memory) Take(_ context.Context, key string, r Rule) (bool, time.Duration, error) {
	if !r.Valid() {
		return false, 0, ErrBadRule
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	tat, ok, wait := gcra(m.tats[key], now.UnixMilli(), r)
	m.tats[key] = tat
	return ok, wait, nil
}

// Wait implements Store.
func (m *Memory) Wait(_ context.Context, key string, r Rule) (time.Duration, error) {
	if !r.Valid() {
		return 0, ErrBadRule
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return waitFor(m.tats[key], m.now().UnixMilli(), r), nil
}

// Give implements Store.
func (m *Memory) Give(_ context.Context, key string, r Rule) error {
	if !r.Valid() {
		return ErrBadRule
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tat, found := m.tats[key]; found {
		m.tats[key] = tat - r.Every.Milliseconds()
	}
	return nil
}

// sweep drops keys whose allowance is full again, now and then.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.swept) < time.Minute {
		return
	}
	m.swept = now
	for k, tat := range m.tats {
		if tat < now.UnixMilli() {
			delete(m.tats, k)
		}
	}
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("ratelimit: %s: %w", op, err)
}
