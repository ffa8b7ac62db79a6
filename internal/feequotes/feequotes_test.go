package feequotes_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/feequotes"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func eur(cents int64) cinema.Money { return cinema.NewMoney(cents, "EUR") }

func newClock() *testclock.Clock { return testclock.New(time.Date(2026, 3, 14, 18, 0, 0, 0, time.UTC)) }

// eachDatabase runs f against a migrated SQLite and PostgreSQL database.
func eachDatabase(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) { f(t, db.SQL) })
	}
}

// row is what the database holds for a cinema.
type row struct {
	Cents     int64
	Currency  string
	LearnedAt int64
}

func readRow(t *testing.T, db *sql.DB, cinemaID string) row {
	t.Helper()
	var r row
	err := db.QueryRow(`SELECT fee_cents, currency, learned_at FROM fee_quotes WHERE cinema_id = $1`, cinemaID).
		Scan(&r.Cents, &r.Currency, &r.LearnedAt)
	if err != nil {
		t.Fatalf("the row of %s: %v", cinemaID, err)
	}
	return r
}

// TestAFeeLearnedIsKnownToTheNextStore: a fee one store learned is known to another store on
// the same database (another replica, or this one after a restart); a cinema no order taught
// anything has no fee known.
func TestAFeeLearnedIsKnownToTheNextStore(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		feequotes.New(db, feequotes.Options{}).Learn(ctx, "0001", eur(75))
		next := feequotes.New(db, feequotes.Options{})
		if fee, ok := next.At(ctx, "0001"); !ok || fee != eur(75) {
			t.Errorf("the next store's fee at 0001: %v %v, want €0.75", fee, ok)
		}
		if fee, ok := next.At(ctx, "0002"); ok {
			t.Errorf("a cinema without an order has a fee: %v", fee)
		}
	})
}

// TestLearnWritesOnlyWhenTheFeeChanged: learning the fee the database already holds leaves
// its row alone (learned_at stays when it was first seen), even from a store without a cache;
// another amount or currency replaces it.
func TestLearnWritesOnlyWhenTheFeeChanged(t *testing.T) {
	steps := []struct {
		name  string
		after time.Duration // since the first step
		fee   cinema.Money
		want  row
	}{
		{"first", 0, eur(75), row{75, "EUR", 0}},
		{"same again", time.Hour, eur(75), row{75, "EUR", 0}},
		{"dearer", 2 * time.Hour, eur(80), row{80, "EUR", 2 * time.Hour.Milliseconds()}},
		{"other currency", 3 * time.Hour, cinema.NewMoney(80, "GBP"), row{80, "GBP", 3 * time.Hour.Milliseconds()}},
		{"same once more", 4 * time.Hour, cinema.NewMoney(80, "GBP"), row{80, "GBP", 3 * time.Hour.Milliseconds()}},
	}
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		clk := newClock()
		start := clk.Now()
		for _, s := range steps {
			clk.Set(start.Add(s.after))
			// A store of its own each time: the database, not a cache, must refuse the rewrite.
			feequotes.New(db, feequotes.Options{Now: clk.Now}).Learn(context.Background(), "0001", s.fee)
			got := readRow(t, db, "0001")
			got.LearnedAt -= start.UnixMilli()
			if got != s.want {
				t.Errorf("%s: the row is %+v, want %+v", s.name, got, s.want)
			}
		}
	})
}

// TestTheCacheStandsInFrontOfTheDatabase: within its age the cache answers without the
// database (a change made behind its back is not seen, and learning the fee it holds writes
// nothing); past its age it asks again. "No fee known" is believed for MissTTL only.
func TestTheCacheStandsInFrontOfTheDatabase(t *testing.T) {
	const ttl, missTTL = time.Minute, 30 * time.Second
	cases := []struct {
		name     string
		learned  bool          // the store under test learned €0.75 first (else it saw no fee)
		after    time.Duration // when the store under test asks again, after another wrote €0.90
		relearn  bool          // the store under test learns €0.75 again then
		wantFee  cinema.Money  // what the store under test then says
		wantKnow bool
		wantRow  int64 // the database's fee in cents in the end
	}{
		{"known, within its age", true, ttl - time.Second, false, eur(75), true, 90},
		{"known, past its age", true, ttl + time.Second, false, eur(90), true, 90},
		{"relearned within its age writes nothing", true, ttl - time.Second, true, eur(75), true, 90},
		{"relearned past its age writes", true, ttl + time.Second, true, eur(75), true, 75},
		{"unknown, within its age", false, missTTL - time.Second, false, cinema.Money{}, false, 90},
		{"unknown, past its age", false, missTTL + time.Second, false, eur(90), true, 90},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eachDatabase(t, func(t *testing.T, db *sql.DB) {
				ctx, clk := context.Background(), newClock()
				st := feequotes.New(db, feequotes.Options{Now: clk.Now, TTL: ttl, MissTTL: missTTL})
				if c.learned {
					st.Learn(ctx, "0001", eur(75))
				} else if _, ok := st.At(ctx, "0001"); ok {
					t.Fatal("a fee known before any order")
				}
				feequotes.New(db, feequotes.Options{Now: clk.Now}).Learn(ctx, "0001", eur(90)) // another replica
				clk.Advance(c.after)
				if c.relearn {
					st.Learn(ctx, "0001", eur(75))
				}
				if fee, ok := st.At(ctx, "0001"); fee != c.wantFee || ok != c.wantKnow {
					t.Errorf("the fee: %v %v, want %v %v", fee, ok, c.wantFee, c.wantKnow)
				}
				if got := readRow(t, db, "0001").Cents; got != c.wantRow {
					t.Errorf("the database holds %d cents, want %d", got, c.wantRow)
				}
			})
		})
	}
}

// TestADatabaseThatFailsNeverFailsThePage: with the database gone, a fee never read is
// unknown, a fee read before is still shown past the cache's age, a fee learned is shown by
// this process, and each failure is logged.
func TestADatabaseThatFailsNeverFailsThePage(t *testing.T) {
	ctx, clk := context.Background(), newClock()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	st := feequotes.New(db.SQL, feequotes.Options{Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	st.Learn(ctx, "0001", eur(75))
	db.Close()
	clk.Advance(time.Hour)

	if fee, ok := st.At(ctx, "0001"); !ok || fee != eur(75) {
		t.Errorf("a fee read before: %v %v, want €0.75 still", fee, ok)
	}
	if fee, ok := st.At(ctx, "0002"); ok {
		t.Errorf("a fee never read: %v, want none known", fee)
	}
	st.Learn(ctx, "0003", eur(50))
	if fee, ok := st.At(ctx, "0003"); !ok || fee != eur(50) {
		t.Errorf("a fee learned while the database is gone: %v %v, want €0.50", fee, ok)
	}
	for _, want := range []string{"read the booking fee", "keep the booking fee"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log says nothing of %q: %s", want, logged.String())
		}
	}
}

// TestWithoutADatabaseTheProcessRemembers: a store without a database keeps what it learned
// for as long as the process lives.
func TestWithoutADatabaseTheProcessRemembers(t *testing.T) {
	ctx, clk := context.Background(), newClock()
	st := feequotes.New(nil, feequotes.Options{Now: clk.Now})
	if _, ok := st.At(ctx, "0001"); ok {
		t.Fatal("a fee known before any order")
	}
	st.Learn(ctx, "0001", eur(75))
	clk.Advance(24 * time.Hour)
	if fee, ok := st.At(ctx, "0001"); !ok || fee != eur(75) {
		t.Errorf("a day later: %v %v, want €0.75", fee, ok)
	}
}
