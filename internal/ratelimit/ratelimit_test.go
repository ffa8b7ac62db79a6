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

// TestAllowAllTakesNothingWhenRefused: a refused attempt names the longest wait and costs no
// other allowance, so the wait shown only counts down.
func TestAllowAllTakesNothingWhenRefused(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	ip, booking := New(10, 6*time.Second), New(2, time.Minute)
	ip.SetClock(func() time.Time { return now })
	booking.SetClock(func() time.Time { return now })
	both := []Check{{ip, "ip"}, {booking, "b"}}
	for i := range 2 {
		if ok, _ := AllowAll(both...); !ok {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	last := time.Hour
	for i := range 20 {
		ok, wait := AllowAll(both...)
		if ok || wait > last || wait < 50*time.Second {
			t.Fatalf("refused attempt %d: ok=%v wait=%v (last %v)", i+1, ok, wait, last)
		}
		last = wait
		now = now.Add(200 * time.Millisecond)
	}
	if w := ip.Wait("ip"); w != 0 {
		t.Fatalf("refused attempts used the IP's allowance: wait %v", w)
	}
	now = now.Add(time.Minute)
	if ok, _ := AllowAll(both...); !ok {
		t.Fatal("not allowed after the wait")
	}
}
