package contract

import (
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/upstream"
)

// TestMarkBookingCollected: the first call records the collection, a second one keeps the first
// time and says the tickets were collected before; an unknown booking is not found.
func TestMarkBookingCollected(t *testing.T) {
	e := newEnv(t, envOptions{})
	first, err := e.client.MarkBookingCollected(e.ctx, berlin, 100002)
	noErr(t, err)
	if first.Before || first.At.IsZero() || time.Since(first.At) > time.Minute {
		t.Fatalf("first collection %+v", first)
	}
	again, err := e.client.MarkBookingCollected(e.ctx, berlin, 100002)
	noErr(t, err)
	if !again.Before || !again.At.Equal(first.At) {
		t.Fatalf("second collection %+v, want before at %v", again, first.At)
	}
	other, err := e.client.MarkBookingCollected(e.ctx, berlin, 100001)
	noErr(t, err)
	if other.Before {
		t.Fatalf("another booking counts as collected: %+v", other)
	}
	_, err = e.client.MarkBookingCollected(e.ctx, berlin, 999999)
	wantErr(t, err, upstream.ErrNotFound)
	if n := e.sb.Calls("MarkBookingCollected"); n != 4 {
		t.Errorf("sandbox counted %d calls, want 4", n)
	}
}
