package admission

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

var start = time.Date(2026, 12, 24, 9, 0, 0, 0, time.UTC)

// kinds builds each implementation on a clock: the process's line and Redis's. The Redis
// one may be built several times on the same keys (replicas).
func kinds(t *testing.T) map[string]func(o Options) Queue {
	return map[string]func(o Options) Queue{
		"memory": func(o Options) Queue { return NewMemory(o) },
		"redis":  redisKind(t),
	}
}

// redisKind returns a constructor of Redis queues that share one fresh prefix.
func redisKind(t *testing.T) func(o Options) Queue {
	prefix := fmt.Sprintf("test:admission:%s:%d:", t.Name(), time.Now().UnixNano())
	return func(o Options) Queue {
		return NewRedis(redisClient(t, prefix), prefix, o)
	}
}

// redisClient is a client of the test Redis whose keys under prefix are deleted at the end.
func redisClient(t *testing.T, prefix string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() {
		if keys, _ := c.Keys(context.Background(), prefix+"*").Result(); len(keys) > 0 {
			c.Del(context.Background(), keys...)
		}
		c.Close()
	})
	return c
}

func visitor(i int) Visitor {
	return Visitor{Visit: fmt.Sprintf("visit-%d", i), Client: fmt.Sprintf("10.0.0.%d", i)}
}

func enter(t *testing.T, q Queue, show string, opens time.Time, v Visitor) Status {
	t.Helper()
	st, err := q.Enter(context.Background(), show, opens, v)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestFirstComeFirstServed: at 6 a minute with a burst of one, the first visitor is let in at
// once and the others wait in order of arrival with unique places; asking again keeps the
// place (another tab, another visit of the same client); each is let in in its turn as the
// clock moves, never more than the rate.
func TestFirstComeFirstServed(t *testing.T) {
	for name, build := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clock := testclock.New(start)
			q := build(Options{Limits: Limits{PerMinute: 6}, Now: clock.Now})
			if st := enter(t, q, "1011", time.Time{}, visitor(0)); st.State != Admitted || !slices.Equal(st.Let, []time.Duration{0}) {
				t.Fatalf("first visitor: %+v, want admitted without a wait", st)
			}
			for i := 1; i <= 5; i++ {
				st := enter(t, q, "1011", time.Time{}, visitor(i))
				if st.State != InLine || st.Place != i || st.Wait != time.Duration(i)*10*time.Second {
					t.Fatalf("visitor %d: %+v, want place %d, %ds", i, st, i, i*10)
				}
			}
			// The same visit in another tab, and another visit of the same client: one place.
			if st := enter(t, q, "1011", time.Time{}, Visitor{Visit: "visit-3"}); st.Place != 3 {
				t.Fatalf("second tab: %+v, want place 3", st)
			}
			if st := enter(t, q, "1011", time.Time{}, Visitor{Visit: "bot-visit", Client: "10.0.0.3"}); st.Place != 3 {
				t.Fatalf("second visit of a client: %+v, want place 3", st)
			}
			for turn := 1; turn <= 5; turn++ {
				clock.Advance(10 * time.Second)
				admitted := 0
				var let []time.Duration
				for i := 1; i <= 5; i++ {
					st := enter(t, q, "1011", time.Time{}, visitor(i))
					let = append(let, st.Let...)
					switch {
					case st.State == Admitted:
						admitted++
						if i > turn {
							t.Fatalf("turn %d: visitor %d let in before its turn", turn, i)
						}
					case st.Place != i-turn:
						t.Fatalf("turn %d: visitor %d at place %d, want %d", turn, i, st.Place, i-turn)
					}
				}
				if admitted != turn {
					t.Fatalf("after %d intervals: %d let in, want %d", turn, admitted, turn)
				}
				if want := []time.Duration{time.Duration(turn) * 10 * time.Second}; !slices.Equal(let, want) {
					t.Fatalf("turn %d: waits of those let in %v, want %v (each counted once)", turn, let, want)
				}
			}
		})
	}
}

// TestRateAndActiveLimits: within any minute no more are let in than the rate allows (its
// burst included), and with an active limit a new one is let in only when a purchase ends.
func TestRateAndActiveLimits(t *testing.T) {
	for name, build := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clock := testclock.New(start)
			q := build(Options{Limits: Limits{PerMinute: 60}, Now: clock.Now})
			admittedAt := map[int]time.Time{}
			for step := range 60 { // a minute, a second at a time, 100 visitors asking every second
				for i := range 100 {
					if _, in := admittedAt[i]; in {
						continue
					}
					if st := enter(t, q, "1011", time.Time{}, visitor(i)); st.State == Admitted {
						admittedAt[i] = clock.Now()
					}
				}
				if step < 59 {
					clock.Advance(time.Second)
				}
			}
			// 60 a minute: a burst of 2, then one a second.
			if n := len(admittedAt); n != 61 {
				t.Fatalf("in one minute at 60 a minute: %d let in, want 61 (a burst of 2, then one a second)", n)
			}
			for w := start; w.Before(start.Add(50 * time.Second)); w = w.Add(time.Second) {
				n := 0
				for _, at := range admittedAt {
					if !at.Before(w) && at.Before(w.Add(10*time.Second)) {
						n++
					}
				}
				if n > 12 {
					t.Fatalf("%d let in within 10 s from %v, want at most 12", n, w)
				}
			}

			active := kinds(t)[name](Options{Limits: Limits{Active: 2}, Now: clock.Now}) // a line of its own
			for i := range 2 {
				if st := enter(t, active, "2000", time.Time{}, visitor(i)); st.State != Admitted {
					t.Fatalf("visitor %d within the active limit: %+v", i, st)
				}
			}
			if st := enter(t, active, "2000", time.Time{}, visitor(2)); st.State != InLine || st.Place != 1 {
				t.Fatalf("third with two open: %+v, want first in line", st)
			}
			if err := active.Leave(context.Background(), "2000", visitor(0)); err != nil {
				t.Fatal(err)
			}
			if st := enter(t, active, "2000", time.Time{}, visitor(2)); st.State != Admitted {
				t.Fatalf("after a purchase ended: %+v, want admitted", st)
			}
		})
	}
}

// TestLeavingAndAbandoning: leaving gives the place up (those behind move up), and a place
// nobody asks about is given up once it reaches the head.
func TestLeavingAndAbandoning(t *testing.T) {
	for name, build := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clock := testclock.New(start)
			q := build(Options{Limits: Limits{Active: 1}, Now: clock.Now, Abandoned: time.Minute})
			enter(t, q, "1011", time.Time{}, visitor(0))
			for i := 1; i <= 3; i++ {
				enter(t, q, "1011", time.Time{}, visitor(i))
			}
			if err := q.Leave(context.Background(), "1011", Visitor{Visit: "visit-1"}); err != nil {
				t.Fatal(err)
			}
			if st := enter(t, q, "1011", time.Time{}, visitor(3)); st.Place != 2 {
				t.Fatalf("after the first in line left: %+v, want place 2", st)
			}
			lines, err := q.Lines(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if want := []Line{{Show: "1011", Waiting: 2, Admitted: 1}}; !slices.Equal(lines, want) {
				t.Fatalf("lines %+v, want %+v", lines, want)
			}
			enter(t, q, "2000", start.Add(time.Hour), visitor(9))
			if tot, err := q.Totals(context.Background()); err != nil || tot != (Line{Waiting: 2, Early: 1, Admitted: 1}) {
				t.Fatalf("totals %+v %v", tot, err)
			}
			// Visitor 2 stops asking; visitor 3 keeps asking; the purchase of visitor 0 ends.
			clock.Advance(50 * time.Second)
			enter(t, q, "1011", time.Time{}, visitor(3))
			clock.Advance(20 * time.Second)
			if err := q.Leave(context.Background(), "1011", visitor(0)); err != nil {
				t.Fatal(err)
			}
			if st := enter(t, q, "1011", time.Time{}, visitor(3)); st.State != Admitted {
				t.Fatalf("behind an abandoned place: %+v, want admitted", st)
			}
		})
	}
}

// TestSalesOpening: everyone who came before the opening waits for it; at the opening they
// are let in in an order that is not their order of arrival, and those who came after the
// opening come after all of them, in their own order.
func TestSalesOpening(t *testing.T) {
	for name, build := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clock := testclock.New(start)
			opens := start.Add(30 * time.Second)
			q := build(Options{Limits: Limits{Active: 1}, Now: clock.Now})
			const early = 40
			for i := range early {
				if st := enter(t, q, "1011", opens, visitor(i)); st.State != BeforeOpening || !st.Opens.Equal(opens) {
					t.Fatalf("visitor %d before the opening: %+v", i, st)
				}
			}
			clock.Set(opens)
			for i := early; i < early+5; i++ {
				enter(t, q, "1011", opens, visitor(i))
			}
			order := admissionOrder(t, q, opens, early+5)
			earlyOrder := order[:early]
			if slices.IsSorted(earlyOrder) {
				t.Fatalf("early arrivals let in in their order of arrival: %v", earlyOrder)
			}
			for _, i := range earlyOrder {
				if i >= early {
					t.Fatalf("a late arrival among the early ones: %v", order)
				}
			}
			if late := order[early:]; !slices.Equal(late, []int{40, 41, 42, 43, 44}) {
				t.Fatalf("late arrivals let in as %v, want in their order after every early one", late)
			}
		})
	}
}

// admissionOrder lets n visitors through a line with one purchase at a time, each ending its
// purchase when let in, and returns them in the order they were let in.
func admissionOrder(t *testing.T, q Queue, opens time.Time, n int) []int {
	t.Helper()
	var order []int
	done := map[int]bool{}
	for len(order) < n {
		progressed := false
		for i := range n {
			if done[i] {
				continue
			}
			if st := enter(t, q, "1011", opens, visitor(i)); st.State == Admitted {
				order, done[i], progressed = append(order, i), true, true
				if err := q.Leave(context.Background(), "1011", visitor(i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !progressed {
			t.Fatalf("nobody let in; so far %v", order)
		}
	}
	return order
}

// TestReplicasShareOneLine: two replicas on one Redis, 60 visitors entering at once through
// either: unique places 1..n, one line, and the rate is the site's (the burst, not twice it).
func TestReplicasShareOneLine(t *testing.T) {
	build := redisKind(t)
	clock := testclock.New(start)
	replicas := []Queue{build(Options{Limits: Limits{PerMinute: 60}, Now: clock.Now}), build(Options{Limits: Limits{PerMinute: 60}, Now: clock.Now})}
	const n = 60
	got := make([]Status, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			st, err := replicas[i%2].Enter(context.Background(), "1011", time.Time{}, visitor(i))
			if err != nil {
				t.Error(err)
			}
			got[i] = st
		})
	}
	wg.Wait()
	var places []int
	admitted := 0
	for _, st := range got {
		if st.State == Admitted {
			admitted++
			continue
		}
		places = append(places, st.Place)
	}
	if admitted != 2 {
		t.Fatalf("%d let in at once by two replicas at 60 a minute, want the site's burst of 2", admitted)
	}
	slices.Sort(places)
	for i, p := range places {
		if p != i+1 {
			t.Fatalf("places %v: want 1..%d, each once", places, n-2)
		}
	}
	// Asking through the other replica keeps the place.
	for i := range n {
		if got[i].State != InLine {
			continue
		}
		if st := enter(t, replicas[(i+1)%2], "1011", time.Time{}, visitor(i)); st.Place != got[i].Place {
			t.Fatalf("visitor %d at place %d on one replica, %d on the other", i, got[i].Place, st.Place)
		}
	}
}

// TestLimitsForTheDay: a supervisor's limits apply until the end they were given, then the
// configured ones again.
func TestLimitsForTheDay(t *testing.T) {
	for name, build := range kinds(t) {
		t.Run(name, func(t *testing.T) {
			clock := testclock.New(start)
			q := build(Options{Limits: Limits{PerMinute: 1}, Now: clock.Now})
			enter(t, q, "1011", time.Time{}, visitor(0))
			if st := enter(t, q, "1011", time.Time{}, visitor(1)); st.State != InLine {
				t.Fatalf("second at 1 a minute: %+v", st)
			}
			if err := q.SetLimits(context.Background(), Limits{PerMinute: 120}, start.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if l, _ := q.Limits(context.Background()); l.PerMinute != 120 {
				t.Fatalf("limits %+v, want 120 a minute", l)
			}
			// The new rate applies at once, not after the old one's next admission.
			if st := enter(t, q, "1011", time.Time{}, visitor(1)); st.State != Admitted {
				t.Fatalf("at the new rate: %+v, want admitted", st)
			}
			clock.Advance(time.Hour)
			if l, _ := q.Limits(context.Background()); l.PerMinute != 1 {
				t.Fatalf("limits after the day %+v, want the configured 1", l)
			}
			enter(t, q, "1011", time.Time{}, visitor(2))
			if st := enter(t, q, "1011", time.Time{}, visitor(3)); st.State != InLine {
				t.Fatalf("after the day, at the configured rate again: %+v, want in line", st)
			}
		})
	}
}

func TestParseOpenings(t *testing.T) {
	at := time.Date(2026, 12, 24, 9, 0, 0, 0, time.UTC)
	o, err := ParseOpenings(" 1011=2026-12-24T10:00:00+01:00, 0002-1012=2026-12-24T09:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Of("0001", "1011").Equal(at) || !o.Of("0002", "1012").Equal(at) || !o.Of("0001", "1012").IsZero() {
		t.Fatalf("openings %v", o)
	}
	for _, bad := range []string{"1011", "1011=tomorrow", "=2026-12-24T10:00:00Z", "1011=2026-12-24T10:00:00", "1=2026-12-24T10:00:00Z,1=2026-12-24T11:00:00Z"} {
		if _, err := ParseOpenings(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
