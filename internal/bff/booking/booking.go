// Package booking is the booking flow: finding a booking by its number and e-mail (or a
// ticket's code), showing it with its tickets, and changing it: adding and removing tickets,
// choosing seats, seeing the difference, and completing the change with nothing to pay, a
// payment or a refund through the provider (or at the counter), or cancelling it.
package booking

import "github.com/cinemabff/cinemabff/internal/bff/visit"

// Handler serves the booking flow over what a visit holds.
type Handler struct {
	*visit.Visits
}
