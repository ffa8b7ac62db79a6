package ratelimit

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := New(3, 10*time.Second)
	l.SetClock(func() time.Time { return now })
	for i := range 3 {
		if ok, _ := l.Allow("ip"); !ok {
			t.Fatalf("attempt %d refused within the burst", i+1)
		}
	}
	ok, wait := l.Allow("ip")
	if ok || wait != 10*time.Second {
		t.Fatalf("4th attempt: ok=%v wait=%v, want refused for 10s", ok, wait)
	}
	if ok, _ := l.Allow("other"); !ok {
		t.Fatal("another key is limited too")
	}
	now = now.Add(4 * time.Second)
	if ok, wait := l.Allow("ip"); ok || wait != 6*time.Second {
		t.Fatalf("after 4s: ok=%v wait=%v, want 6s", ok, wait)
	}
	now = now.Add(6 * time.Second)
	if ok, _ := l.Allow("ip"); !ok {
		t.Fatal("not allowed again after the interval")
	}
	// Sweep drops idle keys.
	now = now.Add(time.Hour)
	l.Allow("x")
	if _, found := l.buckets["other"]; found {
		t.Fatal("idle bucket not swept")
	}
}
