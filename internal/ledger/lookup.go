package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ByKey returns the entry with idempotency key, or ErrNotFound.
func (s *Store) ByKey(ctx context.Context, key string) (Entry, error) {
	e, err := scanOne(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM ledger_entries WHERE idempotency_key = $1`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return e, ErrNotFound
	}
	if err != nil {
		return e, fmt.Errorf("ledger: entry by key: %w", err)
	}
	return e, nil
}

// Naming returns the entries that name the provider payment ref, as the payment taken (a
// reader's card-present payment, an online payment's session), as the reference reported to
// the ticketing system, or as the payment a refund went back to; oldest first.
func (s *Store) Naming(ctx context.Context, ref string) ([]Entry, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, nil
	}
	return s.query(ctx, `SELECT `+columns+` FROM ledger_entries
		WHERE provider_payment_id = $1 OR provider_reference = $1 ORDER BY created_at, id`, ref)
}

// SoldOnReader reports whether the booking was made by a sale this site took on a card
// reader (a walk-in at the counter, a guest at the kiosk): its order was completed with the
// cinema's own payment, not through the online payment provider.
func (s *Store) SoldOnReader(ctx context.Context, cinemaID string, number int64) (bool, error) {
	var n int
	if err := s.sales.QueryRow(ctx, cinemaID, number).Scan(&n); err != nil {
		return false, fmt.Errorf("ledger: sales of %s/%d: %w", cinemaID, number, err)
	}
	return n > 0, nil
}
