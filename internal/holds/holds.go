// Package holds keeps the open purchase orders of every client in the BFF's database, so that
// all replicas agree how many orders (and seats) one client address holds upstream at a time.
// An order is open from the moment a visit asks the upstream for it until it completes, is
// cancelled, expires or is given up. A row whose end was never seen (a crashed visit, an order
// that simply ran out) stops counting at its expiry, so nobody is blocked for longer than the
// upstream would hold the seats.
package holds

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/sqlrows"
)

// Why an order stopped holding seats (the end_reason column).
const (
	ReasonCompleted = "completed" // booked
	ReasonCancelled = "cancelled" // cancelled by the person (or the kiosk's idle reset)
	ReasonExpired   = "expired"   // the upstream no longer has it
	ReasonGivenUp   = "given_up"  // its payment never completed within the watch window
	ReasonReplaced  = "replaced"  // the visit chose other tickets: this order was cancelled
	ReasonFailed    = "failed"    // the upstream refused to create it
	ReasonEnded     = "ended"     // ended, reason not given
)

// Hold is one open (or ended) purchase order.
type Hold struct {
	UserSessionID string
	ClientKey     string // ClientKey of the address it came from
	Seats         int
	Created       time.Time
	Expires       time.Time // it stops counting then, if nothing ends it sooner
	Ended         time.Time // zero: open
	EndReason     string
}

// Open reports whether the hold still counts at now.
func (h Hold) Open(now time.Time) bool { return h.Ended.IsZero() && h.Expires.After(now) }

// LimitError says a client already holds as many open orders as it may.
type LimitError struct {
	Open  int // the client's other open orders
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("holds: the client has %d open orders, at most %d allowed", e.Open, e.Limit)
}

// ErrLimit matches every *LimitError with errors.Is.
var ErrLimit = errors.New("holds: too many open orders")

func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// ClientKey turns a client address into the key stored: a hash, so the table holds no
// addresses in the clear (rows are deleted a day after they stop counting).
func ClientKey(addr string) string {
	sum := sha256.Sum256([]byte("cinemabff/open-orders\x00" + addr))
	return hex.EncodeToString(sum[:16])
}

// Store keeps the holds (SQLite or PostgreSQL: one SQL for both).
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// New returns a store on db; now may be nil (time.Now).
func New(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// keepFor is how long a row stays after it stopped counting (for looking into a complaint).
const keepFor = 24 * time.Hour

// Open records h (Created is set to now) and admits it when the client, with h, holds at most
// limit open orders, not counting the order h replaces (replaces may be ""). When the limit is
// reached, nothing is recorded and a *LimitError is returned. limit <= 0 admits everything.
//
// Admissions of one client take turns: the transaction writes the client's row in
// open_order_clients first, which holds a second transaction of the same client (on any
// replica) until the first ends, so its count sees the first's order.
func (s *Store) Open(ctx context.Context, h Hold, limit int, replaces string) error {
	if h.UserSessionID == "" || h.ClientKey == "" {
		return errors.New("holds: a hold needs an order and a client")
	}
	now := s.now()
	h.Created = now
	if !h.Expires.After(now) {
		return fmt.Errorf("holds: hold of %s expires at %v, before now", h.UserSessionID, h.Expires)
	}
	if err := s.prune(ctx, now); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("holds: begin: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO open_order_clients (client_key, touched_at) VALUES ($1, $2)
		ON CONFLICT (client_key) DO UPDATE SET touched_at = $2`, h.ClientKey, sqlrows.Millis(now)); err != nil {
		return fmt.Errorf("holds: take the client's turn: %w", err)
	}
	if limit > 0 {
		var n int
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM open_orders
			WHERE client_key = $1 AND ended_at = 0 AND expires_at > $2 AND user_session_id <> $3 AND user_session_id <> $4`,
			h.ClientKey, sqlrows.Millis(now), h.UserSessionID, replaces).Scan(&n)
		if err != nil {
			return fmt.Errorf("holds: count open orders: %w", err)
		}
		if n >= limit {
			return &LimitError{Open: n, Limit: limit}
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO open_orders (user_session_id, client_key, seats, created_at, expires_at, ended_at, end_reason)
		VALUES ($1, $2, $3, $4, $5, 0, '')
		ON CONFLICT (user_session_id) DO UPDATE SET client_key = $2, seats = $3, created_at = $4, expires_at = $5, ended_at = 0, end_reason = ''`,
		h.UserSessionID, h.ClientKey, h.Seats, sqlrows.Millis(now), sqlrows.Millis(h.Expires))
	if err != nil {
		return fmt.Errorf("holds: record %s: %w", h.UserSessionID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("holds: record %s: %w", h.UserSessionID, err)
	}
	return nil
}

// prune deletes rows that stopped counting a day ago: they are of no more use.
func (s *Store) prune(ctx context.Context, now time.Time) error {
	cut := sqlrows.Millis(now.Add(-keepFor))
	if _, err := s.db.ExecContext(ctx, `DELETE FROM open_orders WHERE expires_at < $1 OR (ended_at <> 0 AND ended_at < $1)`, cut); err != nil {
		return fmt.Errorf("holds: prune: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM open_order_clients WHERE touched_at < $1`, cut); err != nil {
		return fmt.Errorf("holds: prune: %w", err)
	}
	return nil
}

// Forget removes the hold of an order the upstream never created (nothing was held).
func (s *Store) Forget(ctx context.Context, userSessionID string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM open_orders WHERE user_session_id = $1`, userSessionID); err != nil {
		return fmt.Errorf("holds: forget %s: %w", userSessionID, err)
	}
	return nil
}

// Extend moves an open hold's expiry (the upstream gave the order more time). Ended holds
// stay ended.
func (s *Store) Extend(ctx context.Context, userSessionID string, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE open_orders SET expires_at = $2 WHERE user_session_id = $1 AND ended_at = 0`,
		userSessionID, sqlrows.Millis(expires))
	if err != nil {
		return fmt.Errorf("holds: extend %s: %w", userSessionID, err)
	}
	return nil
}

// End marks the order's hold ended for reason. ended reports whether it was open until now
// (false: unknown, or ended before; the first reason stays).
func (s *Store) End(ctx context.Context, userSessionID, reason string) (ended bool, err error) {
	if reason == "" {
		reason = ReasonEnded
	}
	res, err := s.db.ExecContext(ctx, `UPDATE open_orders SET ended_at = $2, end_reason = $3 WHERE user_session_id = $1 AND ended_at = 0`,
		userSessionID, sqlrows.Millis(s.now()), reason)
	if err != nil {
		return false, fmt.Errorf("holds: end %s: %w", userSessionID, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// OpenFor lists the client's holds that count now, oldest first.
func (s *Store) OpenFor(ctx context.Context, clientKey string) ([]Hold, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT user_session_id, client_key, seats, created_at, expires_at, ended_at, end_reason
		FROM open_orders WHERE client_key = $1 AND ended_at = 0 AND expires_at > $2 ORDER BY created_at, user_session_id`,
		clientKey, sqlrows.Millis(s.now()))
	if err != nil {
		return nil, fmt.Errorf("holds: list open orders: %w", err)
	}
	return sqlrows.Collect(rows, scan)
}

// Get reads the hold of one order (ended or not); found is false when there is none.
func (s *Store) Get(ctx context.Context, userSessionID string) (h Hold, found bool, err error) {
	h, err = scan(s.db.QueryRowContext(ctx, `SELECT user_session_id, client_key, seats, created_at, expires_at, ended_at, end_reason
		FROM open_orders WHERE user_session_id = $1`, userSessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return Hold{}, false, nil
	}
	if err != nil {
		return Hold{}, false, fmt.Errorf("holds: read %s: %w", userSessionID, err)
	}
	return h, true, nil
}

func scan(row sqlrows.Scanner) (Hold, error) {
	var h Hold
	var created, expires, ended int64
	if err := row.Scan(&h.UserSessionID, &h.ClientKey, &h.Seats, &created, &expires, &ended, &h.EndReason); err != nil {
		return h, err
	}
	h.Created, h.Expires, h.Ended = sqlrows.Time(created), sqlrows.Time(expires), sqlrows.Time(ended)
	return h, nil
}
