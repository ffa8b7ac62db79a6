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

// Stored value limits: gift cards and loyalty cards (storedvalue_limits.go). Only refused
// attempts count, as above. Unlike a booking number, a card number is limited for everybody:
// after five refusals it is refused for 15 minutes, whatever the PIN, from every client and
// visit, so a PIN cannot be guessed by spreading the tries. The number counts as typed, known
// or not, so the refusal says nothing about it. The price: someone who knows a card's number
// can hold it up for 15 minutes.
var (
	// storedValuePerCard: refused attempts with one card number (5, then one every 15 minutes).
	storedValuePerCard = ratelimit.Rule{Burst: 5, Every: 15 * time.Minute}
	// storedValuePerClient: refused attempts of one client, whatever the card (trying many cards).
	storedValuePerClient = ratelimit.Rule{Burst: 10, Every: 3 * time.Minute}
	// storedValuePerVisit: refused attempts of one visit (a client whose address changes).
	storedValuePerVisit = ratelimit.Rule{Burst: 10, Every: 3 * time.Minute}
)
