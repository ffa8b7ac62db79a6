package tickets

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Collection is one printing of a booking's tickets at a kiosk or the box office (table
// ticket_collections, migration 00014): our own record, beside the upstream's mark, so a second
// collection can say when and where the tickets were printed before.
type Collection struct {
	ID            string
	CinemaID      string
	BookingNumber int64
	DeviceID      string
	DeviceName    string
	Actor         string // the signed-in staff member; "" at a kiosk
	At            time.Time
}

// ErrNoCollection says the booking's tickets were never collected here.
var ErrNoCollection = errors.New("tickets: no ticket collection")

// Collections is the store of ticket collections. It owns the table's SQL, so the kiosk and
// box-office handlers ask it questions instead of writing queries.
type Collections struct{ db *sql.DB }

// NewCollections is the collections store on db (SQLite or PostgreSQL, migrated).
func NewCollections(db *sql.DB) *Collections { return &Collections{db: db} }

// Record adds a collection row and returns it with its new random id; tc.ID is ignored.
func (s *Collections) Record(ctx context.Context, tc Collection) (Collection, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return tc, fmt.Errorf("collection id: %w", err)
	}
	tc.ID = hex.EncodeToString(b)
	_, err := s.db.ExecContext(ctx, `INSERT INTO ticket_collections (id, cinema_id, booking_number, device_id, device_name, actor, collected_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7)`, tc.ID, tc.CinemaID, tc.BookingNumber, tc.DeviceID, tc.DeviceName, tc.Actor, tc.At.UnixMilli())
	if err != nil {
		return tc, fmt.Errorf("record ticket collection of %s/%d: %w", tc.CinemaID, tc.BookingNumber, err)
	}
	return tc, nil
}

// Latest is the booking's most recent collection, or ErrNoCollection. Of two at the same
// millisecond the one with the smaller id is taken, so the answer does not change between reads.
func (s *Collections) Latest(ctx context.Context, cinemaID string, number int64) (Collection, error) {
	tc := Collection{CinemaID: cinemaID, BookingNumber: number}
	var at int64
	err := s.db.QueryRowContext(ctx, `SELECT id, device_id, device_name, actor, collected_at FROM ticket_collections
		WHERE cinema_id = $1 AND booking_number = $2 ORDER BY collected_at DESC, id LIMIT 1`, cinemaID, number).
		Scan(&tc.ID, &tc.DeviceID, &tc.DeviceName, &tc.Actor, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return tc, ErrNoCollection
	}
	if err != nil {
		return tc, fmt.Errorf("read ticket collections of %s/%d: %w", cinemaID, number, err)
	}
	tc.At = time.UnixMilli(at)
	return tc, nil
}

// Count is how often the booking's tickets were collected here.
func (s *Collections) Count(ctx context.Context, cinemaID string, number int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM ticket_collections WHERE cinema_id = $1 AND booking_number = $2`, cinemaID, number).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count ticket collections of %s/%d: %w", cinemaID, number, err)
	}
	return n, nil
}
