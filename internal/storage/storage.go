// Package storage opens the BFF's own database (SQLite by default, PostgreSQL for several
// replicas), applies the embedded migrations and builds the server-side session store.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // cgo-free SQLite driver, registered as "sqlite"

	"github.com/cinemabff/cinemabff/migrations"
)

// Dialect names the SQL dialect of an open database.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the BFF's database: a database/sql handle for both dialects, and the pgx pool as well
// when the database is PostgreSQL (the scs pgx store needs it).
type DB struct {
	SQL     *sql.DB
	Pool    *pgxpool.Pool // nil for SQLite
	Dialect Dialect
	// Path is the SQLite file (empty for PostgreSQL); cookie keys are kept beside it.
	Path string
}

// ErrBadURL is returned for a database URL that names no supported database.
var ErrBadURL = errors.New("unsupported database URL")

// Open opens the database named by url: "sqlite:path/to/file.db" (or a bare path ending in .db),
// or "postgres://..." / "postgresql://...". For SQLite the folder is created.
func Open(ctx context.Context, url string) (*DB, error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("ping postgres: %w", err)
		}
		return &DB{SQL: stdlib.OpenDBFromPool(pool), Pool: pool, Dialect: Postgres}, nil
	case strings.HasPrefix(url, "sqlite:"), strings.HasSuffix(url, ".db"):
		path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "//")
		if path == "" {
			return nil, fmt.Errorf("%w: %q has no file path", ErrBadURL, url)
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create database folder: %w", err)
			}
		}
		// WAL lets readers go on while a writer commits; busy_timeout makes concurrent writers
		// wait instead of failing with SQLITE_BUSY.
		dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		// One connection: SQLite has one writer anyway, and a single connection turns lock
		// contention ("database is locked") into orderly queueing in the pool.
		db.SetMaxOpenConns(1)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("ping sqlite %s: %w", path, err)
		}
		return &DB{SQL: db, Dialect: SQLite, Path: path}, nil
	default:
		return nil, fmt.Errorf("%w: %q (want sqlite:PATH or postgres://...)", ErrBadURL, url)
	}
}

// Close closes the database handles.
func (db *DB) Close() error {
	err := db.SQL.Close()
	if db.Pool != nil {
		db.Pool.Close()
	}
	return err
}

// Ping reports whether the database answers within ctx.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return db.SQL.PingContext(ctx)
}

// Migrate applies every pending migration of the database's dialect and returns how many ran.
// On PostgreSQL a session advisory lock serialises replicas that start at the same moment.
func (db *DB) Migrate(ctx context.Context, logger *slog.Logger) (int, error) {
	sub, err := fs.Sub(migrations.FS, string(db.Dialect))
	if err != nil {
		return 0, fmt.Errorf("migrations for %s: %w", db.Dialect, err)
	}
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if db.Dialect == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 120)) // retry every second for two minutes
		if err != nil {
			return 0, fmt.Errorf("postgres migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db.SQL, sub, opts...)
	if err != nil {
		return 0, fmt.Errorf("migration provider: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return 0, fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range results {
		logger.Info("migration applied", "version", r.Source.Version, "file", r.Source.Path, "duration", r.Duration)
	}
	return len(results), nil
}
