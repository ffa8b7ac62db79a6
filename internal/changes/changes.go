// Package changes records the changes this service makes to bookings (edits and seat swaps)
// with the tickets each one replaced, so that a booking page can show replaced tickets as no
// longer valid. A change is written in the same transaction as the customer's message about it.
package changes

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/sqlrows"
)

// Kind says what changed a booking.
type Kind string

const (
	KindEdit Kind = "edit" // tickets added, removed or moved by an edit
	KindSwap Kind = "swap" // booked seats swapped to other seats
)

// Ticket is a ticket as it was before a change replaced it.
type Ticket struct {
	Line        int    `json:"line"`           // the ticket's line in the booking (0: not known)
	Description string `json:"desc"`           // ticket type, e.g. "Adult"
	Seat        string `json:"seat,omitempty"` // "F-7", empty for unallocated seating
}

// Change is one recorded change of a booking.
type Change struct {
	ID            string
	CinemaID      string
	BookingNumber int64
	Kind          Kind
	Replaced      []Ticket
	At            time.Time
}

// Execer is satisfied by *sql.Tx and *sql.DB.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Record writes c inside the caller's transaction.
func Record(ctx context.Context, tx Execer, c Change) error {
	if c.ID == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		c.ID = hex.EncodeToString(b)
	}
	if c.CinemaID == "" || c.BookingNumber == 0 {
		return fmt.Errorf("changes: a change needs its cinema and booking number")
	}
	replaced, err := json.Marshal(c.Replaced)
	if err != nil {
		return fmt.Errorf("changes: encode replaced tickets: %w", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO booking_changes (id, cinema_id, booking_number, kind, replaced, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, c.ID, c.CinemaID, c.BookingNumber, string(c.Kind), string(replaced), c.At.UnixMilli())
	if err != nil {
		return fmt.Errorf("changes: record %s of booking %d: %w", c.Kind, c.BookingNumber, err)
	}
	return nil
}

// Store reads recorded changes.
type Store struct {
	db         *sql.DB
	forBooking *sqlrows.Prepared // every booking page asks it
}

// New returns the store on db.
func New(db *sql.DB) *Store {
	return &Store{db: db, forBooking: sqlrows.Prepare(db, `SELECT id, kind, replaced, created_at FROM booking_changes
		WHERE cinema_id = $1 AND booking_number = $2 ORDER BY created_at, id`)}
}

// ForBooking lists the booking's changes, oldest first.
func (s *Store) ForBooking(ctx context.Context, cinemaID string, number int64) ([]Change, error) {
	rows, err := s.forBooking.Query(ctx, cinemaID, number)
	if err != nil {
		return nil, fmt.Errorf("changes: list for booking %d: %w", number, err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		c := Change{CinemaID: cinemaID, BookingNumber: number}
		var kind, replaced string
		var at int64
		if err := rows.Scan(&c.ID, &kind, &replaced, &at); err != nil {
			return nil, fmt.Errorf("changes: read: %w", err)
		}
		c.Kind, c.At = Kind(kind), time.UnixMilli(at)
		if replaced != "" {
			if err := json.Unmarshal([]byte(replaced), &c.Replaced); err != nil {
				return nil, fmt.Errorf("changes: change %s: replaced tickets: %w", c.ID, err)
			}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// NoLongerValid lists the tickets replaced by the booking's changes that are not among the
// current tickets (a seat given up and later taken again is valid again), newest change first.
// current holds the Key of every ticket of the booking now, by line and seat and by seat alone
// (Key(0, seat)); a replaced ticket whose seat is current again is not listed.
func NoLongerValid(all []Change, current map[string]bool) []Replacement {
	var out []Replacement
	seen := map[string]bool{}
	for i := len(all) - 1; i >= 0; i-- {
		for _, t := range all[i].Replaced {
			k := Key(t.Line, t.Seat)
			if current[k] || current[Key(0, t.Seat)] || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, Replacement{Ticket: t, By: all[i].Kind, At: all[i].At})
		}
	}
	return out
}

// Replacement is a ticket that is no longer valid, with the change that replaced it.
type Replacement struct {
	Ticket
	By Kind
	At time.Time
}

// Key identifies a ticket by its line and seat.
func Key(line int, seat string) string { return fmt.Sprintf("%d|%s", line, seat) }

// Count is how many changes the booking has had through this service: the SEQUENCE of its
// calendar event (internal/calendar). It only grows, since a change is never deleted, and it
// grows in the transaction that writes the message about the change.
func (s *Store) Count(ctx context.Context, cinemaID string, number int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM booking_changes WHERE cinema_id = $1 AND booking_number = $2`,
		cinemaID, number).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("changes: count for booking %d: %w", number, err)
	}
	return n, nil
}
