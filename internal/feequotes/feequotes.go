// Package feequotes keeps the booking fee per ticket that the ticketing system last charged at
// each cinema. The ticketing API quotes fees only on an order, so the fee is learned from the
// orders the service opens; it is kept in the BFF's database so that every replica, and the
// process after a restart, can show a ticket step total that includes it (the total the seat
// step and the review show). A short in-process cache stands in front of the database so that
// a page view seldom queries it.
package feequotes

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Default ages of the cache: a fee seldom changes, so a minute-old one is good enough; a cinema
// without one is asked again soon, so that another replica's first order there shows soon.
const (
	DefaultTTL     = time.Minute
	DefaultMissTTL = 30 * time.Second
)

// Options are a Store's logger and the ages of its cache.
type Options struct {
	Logger  *slog.Logger     // nil: discarded
	Now     func() time.Time // the cache's clock (nil: time.Now)
	TTL     time.Duration    // how long a fee read or written is used without asking the database (0: DefaultTTL)
	MissTTL time.Duration    // how long "no fee known" is believed (0: DefaultMissTTL)
}

// Store keeps the fees (SQLite or PostgreSQL: one SQL for both). Without a database it keeps
// them in memory only, for the life of the process.
type Store struct {
	db      *sql.DB // nil: memory only
	logger  *slog.Logger
	now     func() time.Time
	ttl     time.Duration
	missTTL time.Duration

	mu    sync.Mutex
	cache map[string]entry // by cinema id
}

// entry is what the cache knows of one cinema's fee.
type entry struct {
	fee   cinema.Money
	known bool
	until time.Time // asked again after this (a memory-only store never asks)
}

// New returns a store on db (nil: memory only).
func New(db *sql.DB, o Options) *Store {
	s := &Store{db: db, logger: o.Logger, now: o.Now, ttl: o.TTL, missTTL: o.MissTTL, cache: map[string]entry{}}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.missTTL <= 0 {
		s.missTTL = DefaultMissTTL
	}
	return s
}

// cached is the cache's entry for cinemaID, and whether it may be used at now without asking
// the database.
func (s *Store) cached(cinemaID string, now time.Time) (e entry, fresh bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.cache[cinemaID]
	return e, ok && (s.db == nil || now.Before(e.until))
}

// remember caches what the database (or the latest order) says of cinemaID's fee.
func (s *Store) remember(cinemaID string, fee cinema.Money, known bool, now time.Time) {
	age := s.ttl
	if !known {
		age = s.missTTL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache[cinemaID] = entry{fee: fee, known: known, until: now.Add(age)}
}

// At is the booking fee per ticket last charged at cinemaID, and whether one is known. A
// database that cannot be read is logged and counts as no fee known (or as the fee read before,
// which seldom changes): the page then says that fees come on top rather than failing.
func (s *Store) At(ctx context.Context, cinemaID string) (cinema.Money, bool) {
	now := s.now()
	e, fresh := s.cached(cinemaID, now)
	if fresh || s.db == nil {
		return e.fee, e.known
	}
	fee, known, err := s.read(ctx, cinemaID)
	if err != nil {
		s.logger.WarnContext(ctx, "feequotes: read the booking fee", "cinema", cinemaID, "err", err)
		return e.fee, e.known
	}
	s.remember(cinemaID, fee, known, now)
	return fee, known
}

// Learn records that the ticketing system charged perTicket per ticket at cinemaID. It writes
// only when that differs from what the database holds (every seat step view learns again), and
// skips the database altogether while the cache already holds the same fee. A failed write is
// logged: this process still shows the fee, and the next order after the cache's age tries again.
func (s *Store) Learn(ctx context.Context, cinemaID string, perTicket cinema.Money) {
	if perTicket.IsNegative() {
		return
	}
	now := s.now()
	if e, fresh := s.cached(cinemaID, now); fresh && e.known && e.fee == perTicket {
		return
	}
	if s.db != nil {
		if err := s.write(ctx, cinemaID, perTicket, now); err != nil {
			s.logger.WarnContext(ctx, "feequotes: keep the booking fee", "cinema", cinemaID, "fee_cents", perTicket.Cents, "err", err)
		}
	}
	s.remember(cinemaID, perTicket, true, now)
}

// read asks the database for cinemaID's fee.
func (s *Store) read(ctx context.Context, cinemaID string) (cinema.Money, bool, error) {
	var fee cinema.Money
	err := s.db.QueryRowContext(ctx, `SELECT fee_cents, currency FROM fee_quotes WHERE cinema_id = $1`, cinemaID).
		Scan(&fee.Cents, &fee.Currency)
	if errors.Is(err, sql.ErrNoRows) {
		return cinema.Money{}, false, nil
	}
	if err != nil {
		return cinema.Money{}, false, fmt.Errorf("feequotes: read %s: %w", cinemaID, err)
	}
	return fee, true, nil
}

// write stores cinemaID's fee; a row that already holds it is left alone (its learned_at says
// since when the fee is what it is).
func (s *Store) write(ctx context.Context, cinemaID string, fee cinema.Money, now time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO fee_quotes (cinema_id, fee_cents, currency, learned_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (cinema_id) DO UPDATE SET fee_cents = excluded.fee_cents, currency = excluded.currency, learned_at = excluded.learned_at
		WHERE fee_quotes.fee_cents <> excluded.fee_cents OR fee_quotes.currency <> excluded.currency`,
		cinemaID, fee.Cents, fee.Currency, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("feequotes: write %s: %w", cinemaID, err)
	}
	return nil
}
