package visit

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// errNoTicketing is the answer of a read that needs the ticketing system on a site without one.
var errNoTicketing = errors.New("no ticketing system")

// Cinemas returns the cinemas from the shared listing (internal/listings: one read at a time,
// a stale list rather than none on an upstream failure); none without a ticketing system.
func (v *Visits) Cinemas(ctx context.Context) ([]cinema.Cinema, error) {
	if v.listings == nil {
		return nil, errNoTicketing
	}
	return v.listings.Cinemas(ctx)
}

// CinemaByID finds one cinema; an unknown id yields a UTC cinema with only its id.
func (v *Visits) CinemaByID(ctx context.Context, id string) cinema.Cinema {
	list, err := v.Cinemas(ctx)
	if err == nil {
		for _, c := range list {
			if c.ID == id {
				return c
			}
		}
	}
	return cinema.Cinema{ID: id, Name: id}
}

// Proves reports whether a look-up by number proves booking b its person's: staff need
// nothing more, a customer the booking's e-mail address.
func Proves(b cinema.Booking, staff bool, email string) bool {
	return staff || strings.EqualFold(strings.TrimSpace(b.CustomerEmail), email)
}

// BookingElsewhere is the cinema other than here where booking number is one the person
// proves (Proves), or "" when there is none, it cannot be read, or the terminal stands in no
// one cinema (here ""). A counter or kiosk asks it only after the look-up in its own cinema
// found nothing, so a guest who typed another cinema's booking is told where it belongs
// instead of "not found"; the attempt has already counted against the look-up limits.
func (v *Visits) BookingElsewhere(ctx context.Context, here string, number int64, staff bool, email string) string {
	if here == "" {
		return ""
	}
	list, err := v.Cinemas(ctx)
	if err != nil {
		return ""
	}
	for _, c := range list {
		if c.ID == here {
			continue
		}
		if b, err := v.ReadBooking(ctx, c.ID, number); err == nil && Proves(b, staff, email) {
			return c.ID
		}
	}
	return ""
}

// DefaultLocation is the time zone days are read in where no cinema is at hand (the audit
// trail, the sandbox's mailbox): the first cinema's.
func (v *Visits) DefaultLocation(ctx context.Context) *time.Location {
	if list, err := v.Cinemas(ctx); err == nil && len(list) > 0 {
		return list[0].Location()
	}
	return time.Local
}

// SessionTicketTypes are a session's ticket types as sold outside an order, shared by every
// visitor for the listing's interval (listings.TicketTypes); none without a ticketing system.
// Within an order (an edit, a purchase) call the upstream with its userSessionId instead.
func (v *Visits) SessionTicketTypes(ctx context.Context, cinemaID, sessionID string) ([]cinema.TicketType, error) {
	if v.ticketTypes == nil {
		return nil, errNoTicketing
	}
	return v.ticketTypes.Session(ctx, cinemaID, sessionID)
}
