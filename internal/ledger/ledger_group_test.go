package ledger_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cinemabff/cinemabff/internal/ledger"
)

func refundParts(prefix string, amounts ...int64) []ledger.Entry {
	var out []ledger.Entry
	for i, a := range amounts {
		e := entry(prefix + ":" + string(rune('a'+i)))
		e.Kind, e.AmountCents, e.ProviderPaymentID = ledger.KindRefund, a, "pi_"+string(rune('a'+i))
		out = append(out, e)
	}
	return out
}

// TestRefundGroup: the parts of a refund are written together, numbered, each with its own key;
// a repeat returns the same group; a group is claimed all or nothing.
func TestRefundGroup(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			parts, created, err := st.CreateGroup(ctx, refundParts("g1", 900, 975))
			if err != nil || !created || len(parts) != 2 {
				t.Fatalf("create group: %+v %v %v", parts, created, err)
			}
			if parts[0].RefundGroup == "" || parts[0].RefundGroup != parts[1].RefundGroup || parts[0].RefundPart != 1 || parts[1].RefundPart != 2 ||
				parts[0].IdempotencyKey == parts[1].IdempotencyKey || parts[0].State != ledger.StateCreated {
				t.Fatalf("parts: %+v", parts)
			}
			again, created, err := st.CreateGroup(ctx, refundParts("g1", 900, 975))
			if err != nil || created || len(again) != 2 || again[0].ID != parts[0].ID || again[1].ID != parts[1].ID {
				t.Fatalf("a repeat made another group: %+v %v %v", again, created, err)
			}
			got, err := st.Get(ctx, parts[1].ID)
			if err != nil || got.RefundGroup != parts[0].RefundGroup || got.RefundPart != 2 || got.AmountCents != 975 {
				t.Fatalf("get part: %+v %v", got, err)
			}
			group, err := st.Group(ctx, got)
			if err != nil || len(group) != 2 || group[0].ID != parts[0].ID {
				t.Fatalf("group: %+v %v", group, err)
			}
			// A lone entry is a group of one.
			lone, _, _ := st.Create(ctx, entry("lone"))
			if g, err := st.Group(ctx, lone); err != nil || len(g) != 1 || g[0].ID != lone.ID {
				t.Fatalf("lone group: %+v %v", g, err)
			}

			ids := []string{parts[0].ID, parts[1].ID}
			if _, err := st.Transition(ctx, parts[0].ID, []ledger.State{ledger.StateCreated}, ledger.StateRefunded, "", nil); err != nil {
				t.Fatal(err)
			}
			// Part 2 is not refunded yet: the claim of the whole group fails and writes nothing.
			if _, err := st.TransitionAll(ctx, ids, []ledger.State{ledger.StateRefunded}, ledger.StateApplying, "claim", nil); !errors.Is(err, ledger.ErrStateChanged) {
				t.Fatalf("claim with a part not refunded: %v", err)
			}
			if p, _ := st.Get(ctx, parts[0].ID); p.State != ledger.StateRefunded {
				t.Fatalf("a failed claim moved part 1 to %s", p.State)
			}
			if _, err := st.Transition(ctx, parts[1].ID, []ledger.State{ledger.StateCreated}, ledger.StateRefunded, "", nil); err != nil {
				t.Fatal(err)
			}
			var wins atomic.Int32
			var wg sync.WaitGroup
			for range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out, err := st.TransitionAll(ctx, ids, []ledger.State{ledger.StateRefunded}, ledger.StateApplying, "claim", func(e *ledger.Entry) { e.Attempts++ })
					if err == nil && len(out) == 2 {
						wins.Add(1)
					}
				}()
			}
			wg.Wait()
			if wins.Load() != 1 {
				t.Fatalf("%d claims of one group won", wins.Load())
			}
			for _, id := range ids {
				if p, _ := st.Get(ctx, id); p.State != ledger.StateApplying || p.Attempts != 1 {
					t.Fatalf("part after the claim: %+v", p)
				}
			}
		})
	}
}
