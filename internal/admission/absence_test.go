package admission

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/testclock"
)

// TestAdmissionInAbsenceLapsesUnclaimed: a visitor let in while away (it stopped asking, the
// tab closed near the head) holds its purchase's room only as long as its place would have
// been kept; one that comes back claims it for the whole lifetime.
func TestAdmissionInAbsenceLapsesUnclaimed(t *testing.T) {
	for _, back := range []bool{false, true} {
		for name, build := range kinds(t) {
			t.Run(fmt.Sprintf("%s/comes-back=%v", name, back), func(t *testing.T) {
				clock := testclock.New(start)
				q := build(Options{Limits: Limits{Active: 1}, Now: clock.Now})
				if st := enter(t, q, "1011", time.Time{}, visitor(0)); st.State != Admitted {
					t.Fatalf("first visitor: %+v", st)
				}
				if st := enter(t, q, "1011", time.Time{}, visitor(1)); st.State != InLine || st.Place != 1 {
					t.Fatalf("second visitor: %+v", st)
				}
				if err := q.Leave(context.Background(), "1011", visitor(0)); err != nil { // the purchase ended
					t.Fatal(err)
				}
				clock.Advance(20 * time.Second) // the second stopped asking: its turn comes in its absence
				if st := enter(t, q, "1011", time.Time{}, visitor(2)); st.State != InLine || st.Place != 1 {
					t.Fatalf("third visitor after the second was let in in its absence: %+v, want first in line", st)
				}
				if back {
					clock.Advance(time.Minute)
					if st := enter(t, q, "1011", time.Time{}, visitor(1)); st.State != Admitted {
						t.Fatalf("the second coming back: %+v, want admitted", st)
					}
				}
				var st Status
				for !clock.Now().After(start.Add(2*time.Minute + 5*time.Second)) {
					clock.Advance(5 * time.Second)
					st = enter(t, q, "1011", time.Time{}, visitor(2))
				}
				if want := map[bool]State{false: Admitted, true: InLine}[back]; st.State != want {
					t.Fatalf("the third, asking on, 2 minutes after the second was last seen: %+v, want state %d", st, want)
				}
			})
		}
	}
}

// TestRedisKeepsTheLinesTimeByItsOwnClock: without a clock given, the line's time is Redis's
// own, so replicas whose clocks differ keep one rate and one set of expiries: an admission
// ends a lifetime after Redis's now, and the counts read Redis's time too.
func TestRedisKeepsTheLinesTimeByItsOwnClock(t *testing.T) {
	prefix := fmt.Sprintf("test:admission:%s:%d:", t.Name(), time.Now().UnixNano())
	c := redisClient(t, prefix)
	ctx := context.Background()
	q := NewRedis(c, prefix, Options{Limits: Limits{PerMinute: 6}, Lifetime: time.Hour})
	if st := enter(t, q, "1011", time.Time{}, visitor(0)); st.State != Admitted {
		t.Fatalf("first visitor: %+v", st)
	}
	if st := enter(t, q, "1011", time.Time{}, visitor(1)); st.State != InLine || st.Place != 1 {
		t.Fatalf("second visitor: %+v, want first in line (the rate's next turn is 10 s away)", st)
	}
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	adm, err := c.ZRangeWithScores(ctx, prefix+"admitted", 0, -1).Result()
	if err != nil || len(adm) != 1 || math.Abs(adm[0].Score-float64(now.Add(time.Hour).UnixMilli())) > 5000 {
		t.Fatalf("admissions %+v %v: want one ending an hour after Redis's now (%d)", adm, err, now.Add(time.Hour).UnixMilli())
	}
	if tot, err := q.Totals(ctx); err != nil || tot != (Line{Waiting: 1, Admitted: 1}) {
		t.Fatalf("totals %+v %v", tot, err)
	}
}

// TestWithoutARateTheHeadGoesInAtOnce: with purchases open at once as the only limit, a room
// that comes free goes to the head of the line whoever asks next (not only when the head
// itself asks); and when a supervisor lifts the limits, the whole line goes in at once rather
// than one by one as each head asks.
func TestWithoutARateTheHeadGoesInAtOnce(t *testing.T) {
	for name, build := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock := testclock.New(start)
			q := build(Options{Limits: Limits{Active: 1}, Now: clock.Now})
			for i := range 4 {
				enter(t, q, "1011", time.Time{}, visitor(i))
			}
			if err := q.Leave(ctx, "1011", visitor(0)); err != nil { // the purchase ended
				t.Fatal(err)
			}
			clock.Advance(time.Second)
			st := enter(t, q, "1011", time.Time{}, visitor(3))
			if st.State != InLine || st.Place != 2 || len(st.Let) != 1 {
				t.Fatalf("the third in line asking after a room came free: %+v, want place 2, the head let in", st)
			}
			if st := enter(t, q, "1011", time.Time{}, visitor(1)); st.State != Admitted {
				t.Fatalf("the head, let in while another asked: %+v", st)
			}
			if err := q.SetLimits(ctx, Limits{}, start.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if st := enter(t, q, "1011", time.Time{}, visitor(9)); st.State != Admitted {
				t.Fatalf("a newcomer after the limits were lifted: %+v, want let in with the line", st)
			}
			if tot, err := q.Totals(ctx); err != nil || tot.Waiting != 0 {
				t.Fatalf("the line after the limits were lifted: %+v %v, want nobody waiting", tot, err)
			}
		})
	}
}

// TestEarlyArrivalsAreKeptUntilTheOpening: the Redis list of those who came before a showtime's
// opening lives until the opening is past, however far away it is: it held a day only, so
// with an opening two days off the early arrivals would have been lost, and their countdown
// stuck.
func TestEarlyArrivalsAreKeptUntilTheOpening(t *testing.T) {
	prefix := fmt.Sprintf("test:admission:%s:%d:", t.Name(), time.Now().UnixNano())
	c := redisClient(t, prefix)
	clock := testclock.New(start)
	q := NewRedis(c, prefix, Options{Limits: Limits{PerMinute: 60}, Now: clock.Now})
	opens := start.Add(48 * time.Hour)
	for i := range 2 {
		if st := enter(t, q, "1011", opens, visitor(i)); st.State != BeforeOpening {
			t.Fatalf("visitor %d two days before the opening: %+v", i, st)
		}
	}
	ttl, err := c.PTTL(context.Background(), prefix+"early:1011").Result()
	if err != nil || ttl < 48*time.Hour {
		t.Fatalf("the early arrivals are kept %v (%v), want past the opening two days away", ttl, err)
	}
}
