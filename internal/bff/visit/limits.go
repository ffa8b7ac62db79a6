package visit

import (
	"time"

	"github.com/cinemabff/cinemabff/internal/ratelimit"
)

// Look-up limits. Only failed attempts count (a success or an upstream outage gives its
// attempt back), per client and per booking number and client, never per booking number
// alone: one person's wrong guesses must not lock a booking for everybody.
var (
	// FindPerClient: failed look-ups of one client (its address; a staff member's account).
	FindPerClient = ratelimit.Rule{Burst: 10, Every: 6 * time.Second}
	// FindPerBookingClient: failed look-ups of one booking number by one client.
	FindPerBookingClient = ratelimit.Rule{Burst: 5, Every: time.Minute}
)
