package ratelimit

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// SQL is a Store in the BFF's database (table rate_limits, SQLite or PostgreSQL: the SQL is
// common). Every statement is atomic on its own, so replicas never lose each other's attempts.
type SQL struct {
	db  *sql.DB
	now func() time.Time

	mu    sync.Mutex
	swept time.Time
}

// NewSQL returns a store on db.
func NewSQL(db *sql.DB) *SQL { return &SQL{db: db, now: time.Now} }

// SetClock replaces the clock (tests).
func (s *SQL) SetClock(now func() time.Time) { s.now = now }

// Take implements Store: one upsert that moves the TAT on only when the attempt is allowed
// (the conflict update's WHERE); no row back means refused.
func (s *SQL) Take(ctx context.Context, key string, r Rule) (bool, time.Duration, error) {
	if !r.Valid() {
		return false, 0, ErrBadRule
	}
	now := s.now().UnixMilli()
	s.sweep(ctx, now)
	every := r.Every.Milliseconds()
	var tat int64
	err := s.db.QueryRowContext(ctx, `INSERT INTO rate_limits (bucket, tat) VALUES ($1, $4)
		ON CONFLICT (bucket) DO UPDATE SET tat = CASE WHEN rate_limits.tat > $2 THEN rate_limits.tat + $3 ELSE $4 END
		WHERE rate_limits.tat - $2 <= $5
		RETURNING tat`, key, now, every, now+every, r.tolerance().Milliseconds()).Scan(&tat)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, 0, wrap("take", err)
	}
	wait, err := s.Wait(ctx, key, r)
	if err != nil {
		return false, 0, err
	}
	return false, max(wait, time.Millisecond), nil
}

// Wait implements Store.
func (s *SQL) Wait(ctx context.Context, key string, r Rule) (time.Duration, error) {
	if !r.Valid() {
		return 0, ErrBadRule
	}
	var tat int64
	err := s.db.QueryRowContext(ctx, `SELECT tat FROM rate_limits WHERE bucket = $1`, key).Scan(&tat)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, wrap("wait", err)
	}
	return waitFor(tat, s.now().UnixMilli(), r), nil
}

// Give implements Store.
func (s *SQL) Give(ctx context.Context, key string, r Rule) error {
	if !r.Valid() {
		return ErrBadRule
	}
	_, err := s.db.ExecContext(ctx, `UPDATE rate_limits SET tat = tat - $2 WHERE bucket = $1`, key, r.Every.Milliseconds())
	return wrap("give", err)
}

// sweep deletes full allowances (TAT passed) about once a minute per process.
func (s *SQL) sweep(ctx context.Context, now int64) {
	s.mu.Lock()
	due := time.UnixMilli(now).Sub(s.swept) >= time.Minute
	if due {
		s.swept = time.UnixMilli(now)
	}
	s.mu.Unlock()
	if due {
		_, _ = s.db.ExecContext(ctx, `DELETE FROM rate_limits WHERE tat < $1`, now) // best effort
	}
}
