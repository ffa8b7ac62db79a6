package sqlrows_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sqlrows"
	"github.com/cinemabff/cinemabff/internal/storage"
)

func TestCollect(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	if _, err := db.SQL.ExecContext(ctx, `CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (1), (2), (3)`); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("row 2 is bad")
	tests := []struct {
		name    string
		scan    func(sqlrows.Scanner) (int, error)
		want    []int
		wantErr error
	}{
		{"every row", func(r sqlrows.Scanner) (v int, err error) { return v, r.Scan(&v) }, []int{1, 2, 3}, nil},
		{"a bad row stops", func(r sqlrows.Scanner) (int, error) {
			var v int
			if err := r.Scan(&v); err != nil || v == 2 {
				return 0, bad
			}
			return v, nil
		}, nil, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := db.SQL.QueryContext(ctx, `SELECT v FROM n ORDER BY v`)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sqlrows.Collect(rows, tt.scan)
			if !errors.Is(err, tt.wantErr) || len(got) != len(tt.want) {
				t.Fatalf("Collect = %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("Collect = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestMillisKeepNoMoment(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_123)
	tests := []struct {
		name string
		in   time.Time
		ms   int64
	}{
		{"no moment", time.Time{}, 0},
		{"a moment", at, 1_796_000_000_123},
	}
	for _, tt := range tests {
		if got := sqlrows.Millis(tt.in); got != tt.ms {
			t.Errorf("%s: Millis = %d, want %d", tt.name, got, tt.ms)
		}
		if got := sqlrows.Time(tt.ms); !got.Equal(tt.in) {
			t.Errorf("%s: Time(%d) = %v, want %v", tt.name, tt.ms, got, tt.in)
		}
	}
}

// TestPreparedIsTriedAgainAfterAFailure: a query that cannot be prepared yet (its table is
// not there) fails, and the next use prepares it anew; once prepared it answers every use.
func TestPreparedIsTriedAgainAfterAFailure(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	q := sqlrows.Prepare(db.SQL, `SELECT v FROM later WHERE v >= $1 ORDER BY v`)
	if _, err := q.Query(ctx, 1); err == nil {
		t.Fatal("a query of a missing table was prepared")
	}
	if _, err := db.SQL.ExecContext(ctx, `CREATE TABLE later (v INTEGER); INSERT INTO later VALUES (1), (2), (3)`); err != nil {
		t.Fatal(err)
	}
	for _, from := range []int{2, 1, 3} {
		rows, err := q.Query(ctx, from)
		if err != nil {
			t.Fatalf("from %d: %v", from, err)
		}
		got, err := sqlrows.Collect(rows, func(r sqlrows.Scanner) (v int, err error) { return v, r.Scan(&v) })
		if err != nil || len(got) != 4-from || got[0] != from {
			t.Errorf("from %d: %v, %v", from, got, err)
		}
	}
}

func TestPreparedRow(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	q := sqlrows.Prepare(db.SQL, `SELECT v FROM n WHERE v = $1`)
	var v int
	if err := q.QueryRow(ctx, 1).Scan(&v); err == nil {
		t.Fatal("a row of a missing table was read")
	}
	if _, err := db.SQL.ExecContext(ctx, `CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg     int
		want    int
		wantErr error
	}{{2, 2, nil}, {1, 1, nil}, {3, 0, sql.ErrNoRows}}
	for _, tt := range tests {
		v = 0
		if err := q.QueryRow(ctx, tt.arg).Scan(&v); !errors.Is(err, tt.wantErr) || v != tt.want {
			t.Errorf("v = %d: got %d, %v; want %d, %v", tt.arg, v, err, tt.want, tt.wantErr)
		}
	}
}

// openSQLite opens an empty SQLite database of the test's own, closed when the test ends.
func openSQLite(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), "sqlite://"+t.TempDir()+"/test.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
