package listings

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// fakeSource counts reads; gate, when set, holds every read until it is closed.
type fakeSource struct {
	reads   atomic.Int32
	cinemas atomic.Int32
	mu      sync.Mutex
	fail    error
	gate    chan struct{}
	title   string
}

func (f *fakeSource) ListCinemas(ctx context.Context) ([]cinema.Cinema, error) {
	f.cinemas.Add(1)
	return []cinema.Cinema{{ID: "0001", Name: "Mitte"}}, nil
}

func (f *fakeSource) ListSessionsWithFilms(ctx context.Context, cinemaID, day string) ([]cinema.Session, []cinema.Film, error) {
	f.reads.Add(1)
	f.mu.Lock()
	fail, gate, title := f.fail, f.gate, f.title
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, nil, fail
	}
	if title == "" {
		title = "Metropolis"
	}
	at := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	return []cinema.Session{
			{ID: "0001-1002", SessionID: "1002", CinemaID: cinemaID, FilmID: "F1", FilmTitle: title, Showtime: at.Add(24 * time.Hour)},
			{ID: "0001-1001", SessionID: "1001", CinemaID: cinemaID, FilmID: "F1", FilmTitle: title, Showtime: at},
		},
		[]cinema.Film{{ID: "F1", Title: title, RunTime: 153 * time.Minute}}, nil
}

func (f *fakeSource) set(fn func(f *fakeSource)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// fakeHealth is a flight.Health whose answers the test sets.
type fakeHealth struct{ mark, wellFrom atomic.Uint64 }

func (h *fakeHealth) Mark() uint64                   { return h.mark.Load() }
func (h *fakeHealth) AnsweredSince(mark uint64) bool { return h.wellFrom.Load() > mark }

var errDown = &upstream.Error{Op: upstream.OpListSessions, Kind: upstream.ErrUnavailable, Outage: true}

// waitReads waits until the source was read n times and no read runs (the background ones).
func waitReads(t *testing.T, c *Cache, src *fakeSource, n int32) {
	t.Helper()
	for i := 0; i < 200 && src.reads.Load() < n; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	// the refresh stores under c.mu before its group call ends; one more Listing call
	// through the group's key settles it
	for i := 0; i < 200; i++ {
		c.mu.Lock()
		k := c.listings["0001"]
		done := k != nil && (k.at.After(time.Time{}) || !k.failedAt.IsZero())
		c.mu.Unlock()
		if done {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	if got := src.reads.Load(); got != n {
		t.Fatalf("upstream reads = %d, want %d", got, n)
	}
}

func TestListing(t *testing.T) {
	start := time.Date(2026, 11, 27, 14, 2, 0, 0, time.UTC)
	tests := []struct {
		name string
		opt  Options
		run  func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock)
	}{
		{"fresh hit reads once", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			for range 20 {
				l, err := c.Listing(context.Background(), "0001")
				if err != nil || len(l.Sessions) != 2 || l.Failing || l.Outdated() {
					t.Fatalf("listing = %+v, %v", l, err)
				}
				clk.Advance(time.Second)
			}
			waitReads(t, c, src, 1)
		}},
		{"sessions by show time, day and session and film found", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			l, err := c.Listing(context.Background(), "0001")
			if err != nil {
				t.Fatal(err)
			}
			if l.Sessions[0].SessionID != "1001" || len(l.Day("2026-11-28")) != 1 || l.Day("2026-11-28")[0].SessionID != "1002" {
				t.Fatalf("sessions %+v", l.Sessions)
			}
			if s, ok := l.Session("1002"); !ok || s.ID != "0001-1002" {
				t.Fatalf("session 1002: %+v %v", s, ok)
			}
			if f, ok := l.Film("F1"); !ok || f.RunTime != 153*time.Minute {
				t.Fatalf("film: %+v", f)
			}
			if s, err := c.FindSession(context.Background(), "0001", "0001-1001"); err != nil || s.SessionID != "1001" {
				t.Fatalf("FindSession %+v %v", s, err)
			}
			if _, err := c.FindSession(context.Background(), "0001", "9999"); !errors.Is(err, upstream.ErrNotFound) {
				t.Fatalf("unknown session: %v", err)
			}
			waitReads(t, c, src, 1) // the listing is younger than RetryAfter: not read again
		}},
		{"single flight: 50 goroutines, one read", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			gate := make(chan struct{})
			src.set(func(f *fakeSource) { f.gate = gate })
			var wg sync.WaitGroup
			var bad atomic.Int32
			for range 50 {
				wg.Go(func() {
					if l, err := c.Listing(context.Background(), "0001"); err != nil || len(l.Sessions) != 2 {
						bad.Add(1)
					}
				})
			}
			time.Sleep(50 * time.Millisecond)
			close(gate)
			wg.Wait()
			if bad.Load() != 0 {
				t.Fatalf("%d callers got no listing", bad.Load())
			}
			waitReads(t, c, src, 1)
		}},
		{"stale served at once while read again", Options{TTL: 30 * time.Second}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			if _, err := c.Listing(context.Background(), "0001"); err != nil {
				t.Fatal(err)
			}
			gate := make(chan struct{})
			src.set(func(f *fakeSource) { f.gate, f.title = gate, "Nosferatu" })
			clk.Advance(40 * time.Second)
			l, err := c.Listing(context.Background(), "0001") // returns while the read is held
			if err != nil || l.Sessions[0].FilmTitle != "Metropolis" || !l.AsOf.Equal(start) {
				t.Fatalf("stale listing = %+v, %v", l, err)
			}
			close(gate)
			waitReads(t, c, src, 2)
			l, _ = c.Listing(context.Background(), "0001")
			if l.Sessions[0].FilmTitle != "Nosferatu" || !l.AsOf.Equal(start.Add(40*time.Second)) {
				t.Fatalf("refreshed listing = %+v", l)
			}
		}},
		{"failed read keeps the last good with its age", Options{TTL: 30 * time.Second}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			if _, err := c.Listing(context.Background(), "0001"); err != nil {
				t.Fatal(err)
			}
			src.set(func(f *fakeSource) { f.fail = errDown })
			clk.Advance(4 * time.Minute) // beyond TTL+StaleFor: read before answering, which fails
			l, err := c.Listing(context.Background(), "0001")
			if err != nil || !l.Failing || !l.Outdated() || !l.AsOf.Equal(start) || len(l.Sessions) != 2 {
				t.Fatalf("after a failed read: %+v, %v", l, err)
			}
			clk.Advance(time.Second) // within RetryAfter: no new read
			if l, err = c.Listing(context.Background(), "0001"); err != nil || !l.Outdated() {
				t.Fatalf("resting: %+v, %v", l, err)
			}
			waitReads(t, c, src, 2)
			src.set(func(f *fakeSource) { f.fail = nil })
			clk.Advance(10 * time.Second)
			if l, err = c.Listing(context.Background(), "0001"); err != nil || l.Failing || l.Outdated() {
				t.Fatalf("read again: %+v, %v", l, err)
			}
		}},
		{"a recent listing kept after a failure is not outdated", Options{TTL: 30 * time.Second}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			_, _ = c.Listing(context.Background(), "0001")
			src.set(func(f *fakeSource) { f.fail = errDown })
			clk.Advance(61 * time.Second)
			l, err := c.Listing(context.Background(), "0001")
			if err != nil || !l.Failing || l.Outdated() {
				t.Fatalf("%+v, %v", l, err)
			}
		}},
		{"the rest after a failed read ends once the system answered another call well", Options{TTL: 30 * time.Second, Health: &fakeHealth{}}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			h := c.opt.Health.(*fakeHealth)
			if _, err := c.Listing(context.Background(), "0001"); err != nil {
				t.Fatal(err)
			}
			src.set(func(f *fakeSource) { f.fail = errDown })
			clk.Advance(4 * time.Minute) // read before answering, which fails
			if l, err := c.Listing(context.Background(), "0001"); err != nil || !l.Failing {
				t.Fatalf("after a failed read: %+v, %v", l, err)
			}
			clk.Advance(time.Second)
			if l, err := c.Listing(context.Background(), "0001"); err != nil || !l.Failing {
				t.Fatalf("resting: %+v, %v", l, err)
			}
			waitReads(t, c, src, 2) // resting: not read again
			src.set(func(f *fakeSource) { f.fail = nil })
			h.mark.Add(1)
			h.wellFrom.Store(h.mark.Load()) // a later call (another page's) answered well
			if l, err := c.Listing(context.Background(), "0001"); err != nil || l.Failing {
				t.Fatalf("after the system answered well: %+v, %v", l, err)
			}
			waitReads(t, c, src, 3)
		}},
		{"no listing and a failing read is an error", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			src.set(func(f *fakeSource) { f.fail = errDown })
			if _, err := c.Listing(context.Background(), "0001"); !errors.Is(err, upstream.ErrUnavailable) {
				t.Fatalf("err = %v", err)
			}
		}},
		{"a slow read ends at the read deadline", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			src.set(func(f *fakeSource) { f.gate = make(chan struct{}) })
			ctx := upstream.WithReadDeadline(context.Background(), time.Now().Add(100*time.Millisecond))
			began := time.Now()
			_, err := c.Listing(ctx, "0001")
			if !upstream.TimedOut(err) || time.Since(began) > time.Second {
				t.Fatalf("err = %v after %v", err, time.Since(began))
			}
		}},
		{"TTL setting", Options{TTL: 5 * time.Second}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			if c.TTL() != 5*time.Second {
				t.Fatalf("TTL = %v", c.TTL())
			}
			_, _ = c.Listing(context.Background(), "0001")
			clk.Advance(4 * time.Second)
			_, _ = c.Listing(context.Background(), "0001")
			waitReads(t, c, src, 1)
			clk.Advance(2 * time.Second) // 6 s: stale, read in the background
			_, _ = c.Listing(context.Background(), "0001")
			waitReads(t, c, src, 2)
		}},
		{"an unknown cinema is not found, and not read", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			for range 3 {
				if _, err := c.Listing(context.Background(), "9999"); !errors.Is(err, upstream.ErrNotFound) {
					t.Fatalf("err = %v", err)
				}
			}
			if src.reads.Load() != 0 || len(c.listings) != 0 {
				t.Fatalf("%d reads, %d listings kept", src.reads.Load(), len(c.listings))
			}
		}},
		{"cinemas read once", Options{}, func(t *testing.T, c *Cache, src *fakeSource, clk *testclock.Clock) {
			for range 10 {
				if l, err := c.Cinemas(context.Background()); err != nil || len(l) != 1 {
					t.Fatalf("%v %v", l, err)
				}
			}
			if n := src.cinemas.Load(); n != 1 {
				t.Fatalf("ListCinemas calls = %d", n)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &fakeSource{}
			clk := testclock.New(start)
			tt.opt.Now = clk.Now
			tt.run(t, New(src, tt.opt), src, clk)
		})
	}
}
