// Package sqlrows reads the rows of a query into values, one scan function per store, so the
// stores keep only what is their own: the query and how one row becomes a value.
package sqlrows

import (
	"database/sql"
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
