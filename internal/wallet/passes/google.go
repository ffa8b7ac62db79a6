package passes

import (
	"context"
	"fmt"
)

// GoogleObject is a Google Wallet event ticket object handed out for one ticket of a booking.
type GoogleObject struct {
	ID     string
	Line   int  // the ticket's line in the booking
	Active bool // false once its ticket is gone and Google was told
}

// IssueGoogleObjects notes the objects a save link of the booking carries. An object issued
// before is active again (its ticket line is back).
func (s *Store) IssueGoogleObjects(ctx context.Context, cinemaID string, number int64, objects []GoogleObject) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("issue google objects of %s/%d: %w", cinemaID, number, err)
	}
	defer tx.Rollback()
	now := s.now().UnixMilli()
	for _, o := range objects {
		if _, err := tx.ExecContext(ctx, `INSERT INTO wallet_google_objects (object_id, cinema_id, booking_number, ticket_line, active, created_at)
			VALUES ($1,$2,$3,$4,TRUE,$5) ON CONFLICT (object_id) DO UPDATE SET active = TRUE, ticket_line = excluded.ticket_line`,
			o.ID, cinemaID, number, o.Line, now); err != nil {
			return fmt.Errorf("issue google object %s: %w", o.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("issue google objects of %s/%d: %w", cinemaID, number, err)
	}
	return nil
}

// ActiveGoogleObjects is the booking's objects not yet made inactive, by ticket line.
func (s *Store) ActiveGoogleObjects(ctx context.Context, cinemaID string, number int64) ([]GoogleObject, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT object_id, ticket_line FROM wallet_google_objects
		WHERE cinema_id = $1 AND booking_number = $2 AND active = TRUE ORDER BY ticket_line, object_id`, cinemaID, number)
	if err != nil {
		return nil, fmt.Errorf("google objects of %s/%d: %w", cinemaID, number, err)
	}
	defer rows.Close()
	var out []GoogleObject
	for rows.Next() {
		o := GoogleObject{Active: true}
		if err := rows.Scan(&o.ID, &o.Line); err != nil {
			return nil, fmt.Errorf("google objects of %s/%d: %w", cinemaID, number, err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("google objects of %s/%d: %w", cinemaID, number, err)
	}
	return out, nil
}

// DeactivateGoogleObject notes that Google was told the object's ticket is gone.
func (s *Store) DeactivateGoogleObject(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE wallet_google_objects SET active = FALSE WHERE object_id = $1`, id); err != nil {
		return fmt.Errorf("deactivate google object %s: %w", id, err)
	}
	return nil
}
