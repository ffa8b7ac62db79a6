package bff

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// ticketCollection is one printing of a booking's tickets at a kiosk or the box office (table
// ticket_collections, migration 00014): our own record, beside the upstream's mark, so a second
// collection can say when and where the tickets were printed before.
type ticketCollection struct {
	ID            string
	CinemaID      string
	BookingNumber int64
	DeviceID      string
	DeviceName    string
	Actor         string // the signed-in staff member; "" at a kiosk
	At            time.Time
}

// errNoCollection: the booking's tickets were never collected here.
var errNoCollection = errors.New("bff: no ticket collection")

// recordCollection adds a collection row and returns it with its id.
func recordCollection(ctx context.Context, db *sql.DB, tc ticketCollection) (ticketCollection, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return tc, fmt.Errorf("collection id: %w", err)
	}
	tc.ID = hex.EncodeToString(b)
	_, err := db.ExecContext(ctx, `INSERT INTO ticket_collections (id, cinema_id, booking_number, device_id, device_name, actor, collected_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7)`, tc.ID, tc.CinemaID, tc.BookingNumber, tc.DeviceID, tc.DeviceName, tc.Actor, tc.At.UnixMilli())
	if err != nil {
		return tc, fmt.Errorf("record ticket collection of %s/%d: %w", tc.CinemaID, tc.BookingNumber, err)
	}
	return tc, nil
}

// latestCollection is the booking's most recent collection, or errNoCollection.
func latestCollection(ctx context.Context, db *sql.DB, cinemaID string, number int64) (ticketCollection, error) {
	tc := ticketCollection{CinemaID: cinemaID, BookingNumber: number}
	var at int64
	err := db.QueryRowContext(ctx, `SELECT id, device_id, device_name, actor, collected_at FROM ticket_collections
		WHERE cinema_id = $1 AND booking_number = $2 ORDER BY collected_at DESC, id LIMIT 1`, cinemaID, number).
		Scan(&tc.ID, &tc.DeviceID, &tc.DeviceName, &tc.Actor, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return tc, errNoCollection
	}
	if err != nil {
		return tc, fmt.Errorf("read ticket collections of %s/%d: %w", cinemaID, number, err)
	}
	tc.At = time.UnixMilli(at)
	return tc, nil
}

// countCollections is how often the booking's tickets were collected here.
func countCollections(ctx context.Context, db *sql.DB, cinemaID string, number int64) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM ticket_collections WHERE cinema_id = $1 AND booking_number = $2`, cinemaID, number).Scan(&n)
	return n, err
}
