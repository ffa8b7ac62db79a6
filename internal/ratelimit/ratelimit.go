// Package ratelimit slows down repeated attempts (booking look-ups) per key: a client IP, a
// booking number. It is in memory, per replica: good enough to make guessing slow; a shared
// limiter would need Redis.
package ratelimit

import (
	"sync"
	"time"
)

// Limiter allows Burst attempts per key, refilled at one every Interval.
type Limiter struct {
	Burst    int
	Interval time.Duration
	now      func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New returns a limiter: burst attempts, then one more every interval.
func New(burst int, interval time.Duration) *Limiter {
	return &Limiter{Burst: burst, Interval: interval, now: time.Now, buckets: map[string]*bucket{}}
}

// SetClock replaces the clock (tests).
func (l *Limiter) SetClock(now func() time.Time) { l.now = now }

// Allow takes one attempt for key. When none is left it returns false and how long until the
// next attempt is allowed.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b, found := l.buckets[key]
	if !found {
		b = &bucket{tokens: float64(l.Burst), last: now}
		l.buckets[key] = b
	}
	b.tokens += float64(now.Sub(b.last)) / float64(l.Interval)
	if b.tokens > float64(l.Burst) {
		b.tokens = float64(l.Burst)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * float64(l.Interval))
	return false, wait
}

// sweep drops full buckets now and then so the map does not grow without bound.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	full := time.Duration(l.Burst) * l.Interval
	for k, b := range l.buckets {
		if now.Sub(b.last) > full {
			delete(l.buckets, k)
		}
	}
}
