// Package testenv finds the real services tests need (PostgreSQL, Redis, Chromium). On a
// developer machine without them a test skips with a loud message; in CI (CI set) it fails.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cinemabff/cinemabff/internal/storage"
)

// missing fails the test in CI and skips it loudly elsewhere.
func missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is required in CI but unavailable: %v", what, err)
	}
	t.Skipf("\n\n*** SKIPPING: %s unavailable (%v). These tests run for real in CI. ***\n", what, err)
}

// PostgresURL returns the URL of a fresh, empty schema in the test database, dropped at the end.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("CINEMA_TEST_POSTGRES_URL")
	if base == "" {
		base = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		missing(t, "PostgreSQL", err)
	}
	defer conn.Close(context.Background())
	schema := "t_" + randHex(6)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse postgres URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// RedisURL returns the URL of the test Redis after checking it answers.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("CINEMA_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatalf("parse redis URL: %v", err)
	}
	c, err := net.DialTimeout("tcp", pu.Host, 2*time.Second)
	if err != nil {
		missing(t, "Redis", err)
	}
	c.Close()
	return u
}

// Chromium returns the path of the browser for chromedp tests.
func Chromium(t testing.TB) string {
	t.Helper()
	// The headless shell first: the same Blink without the browser around it, it ran the
	// browser tests in half the time of the full browser on two cores.
	for _, p := range []string{os.Getenv("CHROMIUM_PATH"), "/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	_, err := exec.LookPath("chromium")
	missing(t, "Chromium (/usr/bin/chromium-headless-shell or /usr/bin/chromium; apt-get install -y chromium-headless-shell)", err)
	return ""
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// MigratedDatabases opens a migrated database of each dialect the BFF runs on: SQLite in a
// temporary folder, and a fresh PostgreSQL schema (PostgresURL's rules). Both close at the end.
func MigratedDatabases(t testing.TB) map[string]*storage.DB {
	t.Helper()
	out := map[string]*storage.DB{}
	for name, url := range map[string]func() string{
		"sqlite":   func() string { return "sqlite:" + filepath.Join(t.TempDir(), "test.db") },
		"postgres": func() string { return PostgresURL(t) },
	} {
		db, err := storage.Open(context.Background(), url())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := db.Migrate(context.Background(), slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		out[name] = db
	}
	return out
}
