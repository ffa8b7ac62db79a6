package bff

import (
	"database/sql"
	"time"

	"github.com/cinemabff/cinemabff/internal/ratelimit"
)

// Look-up limits. Only failed attempts count (a success or an upstream outage gives its
// attempt back), per client and per booking number and client, never per booking number
// alone: one person's wrong guesses must not lock a booking for everybody.
var (
	// findPerClient: failed look-ups of one client (its address; a staff member's account).
	findPerClient = ratelimit.Rule{Burst: 10, Every: 6 * time.Second}
	// findPerBookingClient: failed look-ups of one booking number by one client.
	findPerBookingClient = ratelimit.Rule{Burst: 5, Every: time.Minute}
)

// defaultLimits is the limit store when Deps names none: the database's, shared by every
// replica, or (no database: tests of the web layer alone) this process's memory.
func defaultLimits(db *sql.DB) ratelimit.Store {
	if db != nil {
		return ratelimit.NewSQL(db)
	}
	return ratelimit.NewMemory()
}
