package payevents_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cinemabff/cinemabff/internal/payevents"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func inboxes(t *testing.T) map[string]*payevents.Inbox {
	out := map[string]*payevents.Inbox{}
	for name, db := range testenv.MigratedDatabases(t) {
		out[name] = payevents.New(db.SQL)
	}
	return out
}

func TestInboxActsOnEachEventOnce(t *testing.T) {
	for name, in := range inboxes(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			id := "evt_" + name + "_" + t.Name()
			// Two replicas receive the same event at the same moment: one claims it.
			var claimed atomic.Int32
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					ok, err := in.Claim(ctx, id, "checkout.session.completed")
					if err != nil {
						t.Error(err)
					}
					if ok {
						claimed.Add(1)
					}
				})
			}
			wg.Wait()
			if claimed.Load() != 1 {
				t.Fatalf("%d claims of one event", claimed.Load())
			}
			// Processing failed: released, so the next delivery is acted on.
			if err := in.Release(ctx, id); err != nil {
				t.Fatal(err)
			}
			if ok, err := in.Claim(ctx, id, "checkout.session.completed"); err != nil || !ok {
				t.Fatalf("claim after release: %v %v", ok, err)
			}
			if err := in.Done(ctx, id); err != nil {
				t.Fatal(err)
			}
			// Done events are not released and not claimed again.
			if err := in.Release(ctx, id); err != nil {
				t.Fatal(err)
			}
			if ok, err := in.Claim(ctx, id, "checkout.session.completed"); err != nil || ok {
				t.Fatalf("claim of a done event: %v %v", ok, err)
			}
		})
	}
}
