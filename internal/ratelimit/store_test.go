package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

type clockedStore interface {
	ratelimit.Store
	SetClock(func() time.Time)
}

// stores returns every Store implementation on its real backend: memory, SQLite, PostgreSQL
// and Redis (each test gets fresh keys).
func stores(t *testing.T) map[string]clockedStore {
	t.Helper()
	out := map[string]clockedStore{"memory": ratelimit.NewMemory()}
	for name, db := range testenv.MigratedDatabases(t) {
		out[name] = ratelimit.NewSQL(db.SQL)
	}
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	out["redis"] = ratelimit.NewRedis(client, fmt.Sprintf("test:ratelimit:%d:", time.Now().UnixNano()))
	return out
}

func TestStores(t *testing.T) {
	ctx := context.Background()
	rule := ratelimit.Rule{Burst: 3, Every: 10 * time.Second}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			now := time.UnixMilli(time.Now().UnixMilli())
			st.SetClock(func() time.Time { return now })
			for i := range 3 {
				if ok, _, err := st.Take(ctx, "ip", rule); err != nil || !ok {
					t.Fatalf("attempt %d refused within the burst: %v", i+1, err)
				}
			}
			ok, wait, err := st.Take(ctx, "ip", rule)
			if err != nil || ok || wait != 10*time.Second {
				t.Fatalf("4th attempt: ok=%v wait=%v err=%v, want refused for 10s", ok, wait, err)
			}
			if w, err := st.Wait(ctx, "ip", rule); err != nil || w != 10*time.Second {
				t.Fatalf("Wait = %v, %v; want 10s", w, err)
			}
			if ok, _, _ := st.Take(ctx, "other", rule); !ok {
				t.Fatal("another key is limited too")
			}
			now = now.Add(4 * time.Second)
			if ok, wait, _ := st.Take(ctx, "ip", rule); ok || wait != 6*time.Second {
				t.Fatalf("after 4s: ok=%v wait=%v, want refused for 6s (refusals take nothing)", ok, wait)
			}
			now = now.Add(6 * time.Second)
			if ok, _, _ := st.Take(ctx, "ip", rule); !ok {
				t.Fatal("not allowed again after the interval")
			}
			if ok, _, _ := st.Take(ctx, "ip", rule); ok {
				t.Fatal("two attempts allowed after one interval")
			}
			// Giving an attempt back makes room for one more.
			if err := st.Give(ctx, "ip", rule); err != nil {
				t.Fatal(err)
			}
			if ok, _, _ := st.Take(ctx, "ip", rule); !ok {
				t.Fatal("a given-back attempt is not available")
			}
			// After a long pause the whole burst is back.
			now = now.Add(time.Hour)
			for i := range 3 {
				if ok, _, _ := st.Take(ctx, "ip", rule); !ok {
					t.Fatalf("burst not refilled: attempt %d refused", i+1)
				}
			}
			if _, _, err := st.Take(ctx, "ip", ratelimit.Rule{}); err == nil {
				t.Fatal("a rule without burst accepted")
			}
		})
	}
}

// TestStoresAreAtomic: 20 parallel attempts against a burst of 5 let exactly 5 through.
func TestStoresAreAtomic(t *testing.T) {
	ctx := context.Background()
	rule := ratelimit.Rule{Burst: 5, Every: time.Hour}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			var allowed atomic.Int32
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					ok, _, err := st.Take(ctx, "k", rule)
					if err != nil {
						t.Error(err)
					}
					if ok {
						allowed.Add(1)
					}
				})
			}
			wg.Wait()
			if n := allowed.Load(); n != 5 {
				t.Fatalf("%d of 20 parallel attempts allowed, want 5", n)
			}
		})
	}
}

// TestTakeAllTakesNothingWhenRefused: a refused attempt names the longest wait and costs no
// other allowance, so the wait shown only counts down.
func TestTakeAllTakesNothingWhenRefused(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			now := time.UnixMilli(time.Now().UnixMilli())
			st.SetClock(func() time.Time { return now })
			client := ratelimit.Limit{Key: "ip", Rule: ratelimit.Rule{Burst: 10, Every: 6 * time.Second}}
			booking := ratelimit.Limit{Key: "b", Rule: ratelimit.Rule{Burst: 2, Every: time.Minute}}
			for i := range 2 {
				if ok, _, err := ratelimit.TakeAll(ctx, st, client, booking); !ok || err != nil {
					t.Fatalf("attempt %d refused: %v", i+1, err)
				}
			}
			last := time.Hour
			for i := range 20 {
				ok, wait, err := ratelimit.TakeAll(ctx, st, client, booking)
				if err != nil || ok || wait > last || wait < 50*time.Second {
					t.Fatalf("refused attempt %d: ok=%v wait=%v (last %v) err=%v", i+1, ok, wait, last, err)
				}
				last = wait
				now = now.Add(200 * time.Millisecond)
			}
			if w, _ := st.Wait(ctx, "ip", client.Rule); w != 0 {
				t.Fatalf("refused attempts used the client's allowance: wait %v", w)
			}
			// Given back, the booking's allowance is there again at once.
			if err := ratelimit.GiveAll(ctx, st, client, booking); err != nil {
				t.Fatal(err)
			}
			if ok, _, _ := ratelimit.TakeAll(ctx, st, client, booking); !ok {
				t.Fatal("not allowed after giving an attempt back")
			}
		})
	}
}
