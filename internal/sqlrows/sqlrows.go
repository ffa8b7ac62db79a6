// Package sqlrows reads the rows of a query into values, one scan function per store, so the
// stores keep only what is their own: the query and how one row becomes a value.
package sqlrows

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// Scanner is one row: *sql.Row and *sql.Rows both are.
type Scanner interface{ Scan(dest ...any) error }

// Collect reads every row of rows with scan and closes rows. It stops at the first error, of
// a scan or of the rows.
func Collect[T any](rows *sql.Rows, scan func(Scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Millis is t as the stores keep a moment: milliseconds since the epoch, 0 for no moment.
func Millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Time is the moment of Millis's ms; 0 is no moment (the zero time).
func Time(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// Prepared is a query prepared on its first use and kept: a query asked on every page view
// is parsed once, not on each (SQLite parses a query text anew every time it is given one). A
// preparation that fails is tried again on the next use.
type Prepared struct {
	db    *sql.DB
	query string
	mu    sync.Mutex
	stmt  *sql.Stmt
}

// Prepare returns query on db, to be prepared on its first use.
func Prepare(db *sql.DB, query string) *Prepared { return &Prepared{db: db, query: query} }

// Query runs the prepared query with args.
func (p *Prepared) Query(ctx context.Context, args ...any) (*sql.Rows, error) {
	stmt, err := p.statement(ctx)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(ctx, args...)
}

// QueryRow runs the prepared query with args for one row. When the query cannot be prepared it
// runs as it is, and the row carries the database's own error.
func (p *Prepared) QueryRow(ctx context.Context, args ...any) *sql.Row {
	stmt, err := p.statement(ctx)
	if err != nil {
		return p.db.QueryRowContext(ctx, p.query, args...)
	}
	return stmt.QueryRowContext(ctx, args...)
}

func (p *Prepared) statement(ctx context.Context) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stmt == nil {
		stmt, err := p.db.PrepareContext(ctx, p.query)
		if err != nil {
			return nil, fmt.Errorf("prepare: %w", err)
		}
		p.stmt = stmt
	}
	return p.stmt, nil
}
