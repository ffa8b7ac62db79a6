package holds_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func newClock() *testclock.Clock { return testclock.New(time.Date(2026, 3, 14, 18, 0, 0, 0, time.UTC)) }

// eachDatabase runs f against a migrated SQLite and PostgreSQL database.
func eachDatabase(t *testing.T, f func(t *testing.T, st *holds.Store, clk *testclock.Clock)) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			clk := newClock()
			f(t, holds.New(db.SQL, clk.Now), clk)
		})
	}
}

func hold(usid, client string, clk *testclock.Clock) holds.Hold {
	return holds.Hold{UserSessionID: usid, ClientKey: client, Seats: 2, Expires: clk.Now().Add(20 * time.Minute)}
}

func TestOpenCountsPerClient(t *testing.T) {
	eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
		ctx := context.Background()
		a, b := holds.ClientKey("203.0.113.7"), holds.ClientKey("198.51.100.1")
		for i := range 3 {
			if err := st.Open(ctx, hold(fmt.Sprint("a", i), a, clk), 3, ""); err != nil {
				t.Fatalf("order %d of client a: %v", i+1, err)
			}
		}
		err := st.Open(ctx, hold("a3", a, clk), 3, "")
		var le *holds.LimitError
		if !errors.As(err, &le) || !errors.Is(err, holds.ErrLimit) || le.Open != 3 || le.Limit != 3 {
			t.Fatalf("a 4th order of client a: got %v, want a limit error with 3 open of 3", err)
		}
		if _, found, _ := st.Get(ctx, "a3"); found {
			t.Fatal("a refused order stays recorded")
		}
		if err := st.Open(ctx, hold("b0", b, clk), 3, ""); err != nil {
			t.Fatalf("another client: %v", err)
		}
		// The visit replacing one of its orders does not count that one.
		if err := st.Open(ctx, hold("a3", a, clk), 3, "a2"); err != nil {
			t.Fatalf("an order replacing a2: %v", err)
		}
		if got, _ := st.OpenFor(ctx, a); len(got) != 4 {
			t.Fatalf("open orders of a: %d, want 4 (a2 is ended by its replacer, not by Open)", len(got))
		}
		// No limit configured: everything is admitted.
		if err := st.Open(ctx, hold("a4", a, clk), 0, ""); err != nil {
			t.Fatalf("limit 0: %v", err)
		}
	})
}

func TestEndFreesTheSlot(t *testing.T) {
	for _, reason := range []string{holds.ReasonCompleted, holds.ReasonCancelled, holds.ReasonExpired, holds.ReasonGivenUp, ""} {
		t.Run("reason "+reason, func(t *testing.T) {
			eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
				ctx := context.Background()
				a := holds.ClientKey("203.0.113.7")
				for i := range 3 {
					if err := st.Open(ctx, hold(fmt.Sprint("a", i), a, clk), 3, ""); err != nil {
						t.Fatal(err)
					}
				}
				if !errors.Is(st.Open(ctx, hold("a3", a, clk), 3, ""), holds.ErrLimit) {
					t.Fatal("a 4th order was admitted")
				}
				ended, err := st.End(ctx, "a1", reason)
				if err != nil || !ended {
					t.Fatalf("end a1: %v %v", ended, err)
				}
				if again, err := st.End(ctx, "a1", holds.ReasonExpired); err != nil || again {
					t.Fatalf("ending twice: %v %v", again, err)
				}
				h, found, err := st.Get(ctx, "a1")
				want := reason
				if want == "" {
					want = holds.ReasonEnded
				}
				if err != nil || !found || h.EndReason != want || h.Ended.IsZero() || h.Open(clk.Now()) {
					t.Fatalf("a1 after end: %+v %v %v (want reason %q)", h, found, err, want)
				}
				if err := st.Open(ctx, hold("a3", a, clk), 3, ""); err != nil {
					t.Fatalf("after an order ended: %v", err)
				}
				if ended, err := st.End(ctx, "unknown", reason); err != nil || ended {
					t.Fatalf("ending an unknown order: %v %v", ended, err)
				}
			})
		})
	}
}

func TestExpiredHoldsStopCounting(t *testing.T) {
	eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
		ctx := context.Background()
		a := holds.ClientKey("203.0.113.7")
		for i := range 3 {
			if err := st.Open(ctx, hold(fmt.Sprint("a", i), a, clk), 3, ""); err != nil {
				t.Fatal(err)
			}
		}
		// a0 was given more time upstream; the others run out after 20 minutes.
		if err := st.Extend(ctx, "a0", clk.Now().Add(40*time.Minute)); err != nil {
			t.Fatal(err)
		}
		clk.Advance(20*time.Minute + time.Second)
		got, err := st.OpenFor(ctx, a)
		if err != nil || len(got) != 1 || got[0].UserSessionID != "a0" || got[0].Seats != 2 {
			t.Fatalf("open after 20 minutes: %+v %v, want only a0", got, err)
		}
		for i := 3; i < 5; i++ {
			if err := st.Open(ctx, hold(fmt.Sprint("a", i), a, clk), 3, ""); err != nil {
				t.Fatalf("a crashed visit still blocks: %v", err)
			}
		}
		// An ended hold is not brought back by Extend.
		if _, err := st.End(ctx, "a0", holds.ReasonCompleted); err != nil {
			t.Fatal(err)
		}
		if err := st.Extend(ctx, "a0", clk.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if h, _, _ := st.Get(ctx, "a0"); h.Ended.IsZero() {
			t.Fatal("extend reopened an ended hold")
		}
		// A day later the rows are gone.
		clk.Advance(25 * time.Hour)
		if err := st.Open(ctx, hold("b0", holds.ClientKey("198.51.100.1"), clk), 3, ""); err != nil {
			t.Fatal(err)
		}
		if _, found, _ := st.Get(ctx, "a1"); found {
			t.Fatal("a row that stopped counting a day ago is still there")
		}
		if _, found, _ := st.Get(ctx, "a0"); found {
			t.Fatal("a row ended a day ago is still there")
		}
	})
}

func TestForgetAndBadHolds(t *testing.T) {
	eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
		ctx := context.Background()
		a := holds.ClientKey("203.0.113.7")
		if err := st.Open(ctx, hold("a0", a, clk), 1, ""); err != nil {
			t.Fatal(err)
		}
		if err := st.Forget(ctx, "a0"); err != nil {
			t.Fatal(err)
		}
		if err := st.Open(ctx, hold("a1", a, clk), 1, ""); err != nil {
			t.Fatalf("after forgetting the only order: %v", err)
		}
		for name, h := range map[string]holds.Hold{
			"no order":  {ClientKey: a, Expires: clk.Now().Add(time.Minute)},
			"no client": {UserSessionID: "x", Expires: clk.Now().Add(time.Minute)},
			"expired":   {UserSessionID: "x", ClientKey: a, Expires: clk.Now()},
		} {
			if err := st.Open(ctx, h, 0, ""); err == nil {
				t.Errorf("%s: admitted", name)
			}
		}
	})
}

// Concurrent opens of one client (several replicas, several tabs) take turns: exactly the
// limit is admitted, never more, and never fewer.
func TestConcurrentOpensNeverPassTheLimit(t *testing.T) {
	eachDatabase(t, func(t *testing.T, st *holds.Store, clk *testclock.Clock) {
		ctx := context.Background()
		for round := range 5 {
			a := holds.ClientKey(fmt.Sprint("203.0.113.", round))
			var admitted atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					err := st.Open(ctx, hold(fmt.Sprint("c", round, "-", i), a, clk), 3, "")
					switch {
					case err == nil:
						admitted.Add(1)
					case !errors.Is(err, holds.ErrLimit):
						t.Errorf("open %d: %v", i, err)
					}
				}()
			}
			close(start)
			wg.Wait()
			got, err := st.OpenFor(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if n := admitted.Load(); n != 3 || len(got) != 3 {
				t.Fatalf("round %d: %d admitted, %d recorded open; want 3 of each", round, n, len(got))
			}
		}
	})
}

func TestClientKeyHidesTheAddress(t *testing.T) {
	k := holds.ClientKey("203.0.113.7")
	if k == holds.ClientKey("203.0.113.8") || k != holds.ClientKey("203.0.113.7") || len(k) != 32 {
		t.Fatalf("client key %q", k)
	}
	for _, part := range []string{"203", "113"} {
		if strings.Contains(k, part+".") {
			t.Fatalf("the key %q shows the address", k)
		}
	}
}
