// Package payevents is the inbox of payment provider webhook events. A
// provider delivers an event at least once, perhaps twice, perhaps to two
// replicas at the same moment; the inbox lets exactly one of them act on it.
package payevents

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Inbox records events in the payment_events table.
type Inbox struct {
	db  *sql.DB
	now func() time.Time
}

// New returns the inbox of db (SQLite or PostgreSQL, migrated).
func New(db *sql.DB) *Inbox { return &Inbox{db: db, now: time.Now} }

// Claim records event id. It reports false when the event was recorded
// before, by this replica or another: the caller must not act on it again.
func (i *Inbox) Claim(ctx context.Context, id, eventType string) (bool, error) {
	res, err := i.db.ExecContext(ctx, `INSERT INTO payment_events (event_id, event_type, received_at) VALUES ($1, $2, $3)
		ON CONFLICT (event_id) DO NOTHING`, id, eventType, i.now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("payevents: claim %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("payevents: claim %s: %w", id, err)
	}
	return n == 1, nil
}

// Done marks a claimed event as acted on.
func (i *Inbox) Done(ctx context.Context, id string) error {
	if _, err := i.db.ExecContext(ctx, `UPDATE payment_events SET processed_at = $1 WHERE event_id = $2`, i.now().UnixMilli(), id); err != nil {
		return fmt.Errorf("payevents: done %s: %w", id, err)
	}
	return nil
}

// Release forgets a claimed event that could not be acted on, so that the
// provider's next delivery of it is acted on.
func (i *Inbox) Release(ctx context.Context, id string) error {
	if _, err := i.db.ExecContext(ctx, `DELETE FROM payment_events WHERE event_id = $1 AND processed_at IS NULL`, id); err != nil {
		return fmt.Errorf("payevents: release %s: %w", id, err)
	}
	return nil
}
