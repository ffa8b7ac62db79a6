package passes_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

func TestGoogleObjectsAreIssuedDeactivatedAndIssuedAgain(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		ids := func(cinemaID string, number int64) []string {
			t.Helper()
			objs, err := s.ActiveGoogleObjects(ctx, cinemaID, number)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, o := range objs {
				out = append(out, o.ID)
			}
			return out
		}
		issue := []passes.GoogleObject{{ID: "I.0001-100002-1", Line: 1}, {ID: "I.0001-100002-2", Line: 2}}
		if err := s.IssueGoogleObjects(ctx, "0001", 100002, issue); err != nil {
			t.Fatal(err)
		}
		// A second save link of the same tickets issues nothing new.
		if err := s.IssueGoogleObjects(ctx, "0001", 100002, issue[:1]); err != nil {
			t.Fatal(err)
		}
		if err := s.IssueGoogleObjects(ctx, "0001", 100004, []passes.GoogleObject{{ID: "I.0001-100004-1", Line: 1}}); err != nil {
			t.Fatal(err)
		}
		if got := ids("0001", 100002); !slices.Equal(got, []string{"I.0001-100002-1", "I.0001-100002-2"}) {
			t.Fatalf("active objects of 100002: %v", got)
		}
		if err := s.DeactivateGoogleObject(ctx, "I.0001-100002-2"); err != nil {
			t.Fatal(err)
		}
		if got := ids("0001", 100002); !slices.Equal(got, []string{"I.0001-100002-1"}) {
			t.Fatalf("after deactivating line 2: %v", got)
		}
		if err := s.IssueGoogleObjects(ctx, "0001", 100002, issue); err != nil {
			t.Fatal(err)
		}
		if got := ids("0001", 100002); len(got) != 2 {
			t.Fatalf("an object issued again is not active: %v", got)
		}
		if got := ids("0001", 100004); !slices.Equal(got, []string{"I.0001-100004-1"}) {
			t.Fatalf("another booking's objects: %v", got)
		}
	})
}
