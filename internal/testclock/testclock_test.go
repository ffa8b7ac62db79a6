package testclock

import (
	"sync"
	"testing"
	"time"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 12, 24, 10, 0, 0, 0, time.UTC)
	c := New(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", c.Now(), start)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Advance(time.Second) })
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(start.Add(10 * time.Second)) {
		t.Fatalf("after 10 advances of 1 s: %v", got)
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Set did not move the clock back: %v", c.Now())
	}
}
