package storage_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func TestMigrateAppliesOnceThenNoop(t *testing.T) {
	cases := []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "m.db") }},
		{"postgres", func(t *testing.T) string { return testenv.PostgresURL(t) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := storage.Open(ctx, tc.url(t))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			n, err := db.Migrate(ctx, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("first run applied no migrations")
			}
			n, err = db.Migrate(ctx, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("second run applied %d migrations, want 0", n)
			}
			// The sessions table exists and takes a row.
			if _, err := db.SQL.ExecContext(ctx, insertSession(db.Dialect), "tok", []byte("x"), expiryArg(db.Dialect, time.Now().Add(time.Hour))); err != nil {
				t.Fatalf("sessions table unusable: %v", err)
			}
		})
	}
}

func insertSession(d storage.Dialect) string {
	if d == storage.Postgres {
		return "INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, $3)"
	}
	return "INSERT INTO sessions (token, data, expiry) VALUES ($1, $2, julianday($3))"
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	for _, u := range []string{"mysql://x", "", "sqlite:"} {
		if _, err := storage.Open(context.Background(), u); err == nil {
			t.Errorf("Open(%q) succeeded, want error", u)
		}
	}
}

func TestMigrateConcurrentPostgres(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			db, err := storage.Open(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			_, err = db.Migrate(ctx, slog.New(slog.DiscardHandler))
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent migrate: %v", err)
		}
	}
}

func expiryArg(d storage.Dialect, t time.Time) any {
	if d == storage.Postgres {
		return t
	}
	return t.UTC().Format("2006-01-02T15:04:05.999")
}
