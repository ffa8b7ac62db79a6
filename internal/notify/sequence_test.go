package notify

import (
	"context"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// TestSequenceCountsConfirmedChanges: the calendar's SEQUENCE (changes.Store.Count) grows by one
// with each edit or swap message written, not with a purchase, not with the same key again, not
// with another booking's change, and not with a change rolled back.
func TestSequenceCountsConfirmedChanges(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store := changes.New(db.SQL)
			count := func() int {
				t.Helper()
				n, err := store.Count(ctx, "0001", 100004)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			now := time.Now()
			base := Notice{To: "paid4@example.com", CinemaID: "0001", BookingNumber: 100004}
			steps := []struct {
				kind Kind
				key  string
				want int
			}{
				{KindPurchase, "purchase:1", 0},
				{KindEdit, "edit:1", 1},
				{KindEdit, "edit:1", 1}, // the same cause seen twice
				{KindSwap, "swap:1", 2},
				{KindRefund, "refund:1", 2},
			}
			for _, s := range steps {
				n := base
				n.Kind, n.Key = s.kind, s.key
				if _, err := WriteAlone(ctx, db.SQL, n, now); err != nil {
					t.Fatal(err)
				}
				if got := count(); got != s.want {
					t.Fatalf("after %s %s: SEQUENCE %d, want %d", s.kind, s.key, got, s.want)
				}
			}
			other := base
			other.Kind, other.Key, other.BookingNumber = KindEdit, "edit:other", 100003
			if _, err := WriteAlone(ctx, db.SQL, other, now); err != nil {
				t.Fatal(err)
			}
			tx, err := db.SQL.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := base
			n.Kind, n.Key = KindEdit, "edit:rolled-back"
			if _, err := Write(ctx, tx, n, now); err != nil {
				t.Fatal(err)
			}
			_ = tx.Rollback()
			if got := count(); got != 2 {
				t.Fatalf("another booking's change or a rolled-back one counted: %d", got)
			}
		})
	}
}
