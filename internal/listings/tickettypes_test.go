package listings

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// typesSource counts reads of ticket types; fail, when set, fails them.
type typesSource struct {
	reads atomic.Int32
	fail  error
}

func (s *typesSource) GetTicketTypes(ctx context.Context, cinemaID, sessionID, userSessionID string) ([]cinema.TicketType, error) {
	s.reads.Add(1)
	if s.fail != nil {
		return nil, s.fail
	}
	return []cinema.TicketType{{Code: "0001", Description: "Adult " + sessionID}}, nil
}

// TestTicketTypesKeptForTheInterval: a session's types are read once per interval on the
// clock handed in, per session; each caller gets its own copy; a failed read is not kept.
func TestTicketTypesKeptForTheInterval(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	src := &typesSource{}
	tt := NewTicketTypes(src, 30*time.Second, func() time.Time { return now }, nil)

	first, err := tt.Session(ctx, "0001", "S1")
	if err != nil || len(first) != 1 || first[0].Description != "Adult S1" {
		t.Fatalf("first read: %v %v", first, err)
	}
	first[0].Description = "changed by a caller"
	again, err := tt.Session(ctx, "0001", "S1")
	if err != nil || again[0].Description != "Adult S1" {
		t.Errorf("a caller's change reached the kept types: %v %v", again, err)
	}
	if n := src.reads.Load(); n != 1 {
		t.Errorf("reads within the interval = %d, want 1", n)
	}
	if _, err := tt.Session(ctx, "0001", "S2"); err != nil || src.reads.Load() != 2 {
		t.Errorf("another session: reads = %d (%v), want 2", src.reads.Load(), err)
	}

	now = now.Add(30 * time.Second)
	if _, err := tt.Session(ctx, "0001", "S1"); err != nil || src.reads.Load() != 3 {
		t.Errorf("after the interval: reads = %d (%v), want 3", src.reads.Load(), err)
	}

	src.fail = errors.New("upstream down")
	now = now.Add(time.Minute)
	if _, err := tt.Session(ctx, "0001", "S1"); err == nil {
		t.Error("a failed read after the interval answered with the old types")
	}
	src.fail = nil
	if _, err := tt.Session(ctx, "0001", "S1"); err != nil || src.reads.Load() != 5 {
		t.Errorf("after a failed read: reads = %d (%v), want 5: the failure is not kept", src.reads.Load(), err)
	}
}
