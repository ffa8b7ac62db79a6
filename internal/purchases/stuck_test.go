package purchases

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWatchIntervalSchedule: a stuck order is checked often at first, then less and less often,
// never less often than every 10 minutes.
func TestWatchIntervalSchedule(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want time.Duration
	}{
		{0, 2 * time.Second},
		{59 * time.Second, 2 * time.Second},
		{time.Minute, 10 * time.Second},
		{4*time.Minute + 59*time.Second, 10 * time.Second},
		{5 * time.Minute, 30 * time.Second},
		{14 * time.Minute, 30 * time.Second},
		{15 * time.Minute, time.Minute},
		{59 * time.Minute, time.Minute},
		{time.Hour, 5 * time.Minute},
		{3*time.Hour + 59*time.Minute, 5 * time.Minute},
		{4 * time.Hour, 10 * time.Minute},
		{23 * time.Hour, 10 * time.Minute},
		{72 * time.Hour, 10 * time.Minute},
	} {
		if got := WatchInterval(tc.age); got != tc.want {
			t.Errorf("WatchInterval(%v) = %v, want %v", tc.age, got, tc.want)
		}
	}
	// Over a whole day the checks keep coming: count them.
	n, age := 0, time.Duration(0)
	for age < 24*time.Hour {
		age += WatchInterval(age)
		n++
	}
	if n < 150 || n > 400 {
		t.Fatalf("%d checks in 24 h", n)
	}
}

func TestStoreGivesUpAndListsForAttention(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	s := newStore(t)
	s.now = func() time.Time { return now }
	ctx := context.Background()
	stuck, err := s.Create(ctx, Record{UserSessionID: "stuck", CinemaID: "0001", SessionID: "1113", AmountCents: 2650, Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkAwaiting(ctx, stuck.ID, "https://pay.example/x", "tok"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(5 * time.Minute)
	fresh, _ := s.Create(ctx, Record{UserSessionID: "fresh", CinemaID: "0001", SessionID: "1113", AmountCents: 100, Currency: "EUR"})
	if _, err := s.MarkAwaiting(ctx, fresh.ID, "u", "t"); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * time.Minute)
	// A crash between the record and the upstream's answer: starting for good.
	crashed, _ := s.Create(ctx, Record{UserSessionID: "crashed", CinemaID: "0001", SessionID: "1113"})
	now = now.Add(time.Minute)

	list, err := s.NeedingAttention(ctx, now.Add(-10*time.Minute), 10)
	if err != nil || len(list) != 2 || list[0].ID != stuck.ID || list[1].ID != fresh.ID {
		t.Fatalf("needing attention (older than 10 min): %+v %v", list, err)
	}
	p, err := s.Pending(ctx, 10, now.Add(-30*time.Second))
	if err != nil || len(p) != 3 {
		t.Fatalf("pending with old starts: %d %v", len(p), err)
	}
	if p, _ := s.Pending(ctx, 10); len(p) != 2 {
		t.Fatalf("pending without starts: %d", len(p))
	}

	g, err := s.MarkGivenUp(ctx, stuck.ID, "no confirmation within 24 hours", true)
	if err != nil || g.State != StateGivenUp || g.State.Active() || !g.GivenUp.Equal(now) || g.GiveUpReason == "" || !g.OrderCancelled {
		t.Fatalf("given up: %+v %v", g, err)
	}
	if _, err := s.MarkGivenUp(ctx, stuck.ID, "again", false); !IsStateChanged(err) {
		t.Fatalf("given up twice: %v", err)
	}
	if _, err := s.MarkEnded(ctx, stuck.ID, StateDeclined); !IsStateChanged(err) {
		t.Fatalf("a given-up record ended: %v", err)
	}
	if _, err := s.Active(ctx, "stuck"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a given-up record is still active: %v", err)
	}
	// Given up, the order may be paid again in a new attempt, and a given-up record stays listed.
	if _, err := s.Create(ctx, Record{UserSessionID: "stuck"}); err != nil {
		t.Fatal(err)
	}
	list, _ = s.NeedingAttention(ctx, now.Add(-time.Hour), 10)
	if len(list) != 1 || list[0].ID != stuck.ID {
		t.Fatalf("given-up record not listed: %+v", list)
	}
	// The upstream's word wins: a given-up order found completed is recorded completed.
	c, err := s.MarkCompleted(ctx, stuck.ID, 400123)
	if err != nil || c.State != StateCompleted || c.BookingNumber != 400123 || c.GivenUp.IsZero() {
		t.Fatalf("completed after giving up: %+v %v", c, err)
	}
	g2, err := s.MarkGivenUp(ctx, crashed.ID, "never started", false)
	if err != nil || g2.OrderCancelled {
		t.Fatalf("starting record given up: %+v %v", g2, err)
	}
}
