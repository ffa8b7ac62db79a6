// Package ratelimit slows down repeated attempts (booking look-ups, staff sign-in) per key: a
// client, a booking number and client, an account. Store is the shared form (database or
// Redis, so every replica counts the same attempts); Limiter below is one process's token
// bucket, kept for callers that need no sharing.
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

// Wait returns how long until an attempt for key would be allowed (0: now), without taking one.
func (l *Limiter) Wait(key string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[key]
	if !found {
		return 0
	}
	tokens := b.tokens + float64(l.now().Sub(b.last))/float64(l.Interval)
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) * float64(l.Interval))
}

// Check is one limiter and the key an attempt counts against.
type Check struct {
	Limiter *Limiter
	Key     string
}

// AllowAll takes one attempt from every check, or none: when one of them refuses, nothing is
// taken (a refused attempt does not shorten any other allowance) and the wait is the longest
// of the refusing ones, the time after which every check allows the attempt.
func AllowAll(checks ...Check) (ok bool, retryAfter time.Duration) {
	for _, c := range checks {
		retryAfter = max(retryAfter, c.Limiter.Wait(c.Key))
	}
	if retryAfter > 0 {
		return false, retryAfter
	}
	for _, c := range checks {
		// Another request may have taken the last attempt meanwhile.
		if ok, wait := c.Limiter.Allow(c.Key); !ok {
			return false, wait
		}
	}
	return true, 0
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
