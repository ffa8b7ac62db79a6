package calendar

import (
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// DefaultRunTime is how long an event lasts when the film's running time is not known (the
// listing does not have the film any more, or does not say).
const DefaultRunTime = 2 * time.Hour

// DefaultDomain ends the UIDs of a site that names no host of its own.
const DefaultDomain = "cinemabff.invalid"

// Booking is what the event of a booking is made from.
type Booking struct {
	Booking cinema.Booking
	Cinema  cinema.Cinema
	// RunTime is the film's running time (0: DefaultRunTime).
	RunTime time.Duration
	// Sequence is how often the booking has changed since it was bought (internal/changes):
	// 0 for the purchase, one more for each edit or swap.
	Sequence int
	// Domain ends the UID: the site's host (DefaultDomain when empty).
	Domain string
	Stamp  time.Time
}

// UID is the event's identifier, the same for the booking whatever changes: a calendar
// replaces the event with the same UID and a higher SEQUENCE.
func UID(cinemaID string, number int64, domain string) string {
	if domain == "" {
		domain = DefaultDomain
	}
	return fmt.Sprintf("booking-%s-%d@%s", cinemaID, number, domain)
}

// Filename is the name of the booking's file, for a download and a mail attachment.
func Filename(number int64) string { return fmt.Sprintf("booking-%d.ics", number) }

// ForBooking is the booking's event, its words in l's language: the film as the summary, the
// cinema as the location and the booking number, screen and seats as the description. It
// starts at the show's start and lasts the film's running time, in the cinema's zone.
func ForBooking(l *i18n.Localizer, in Booking) Event {
	b := in.Booking
	run := in.RunTime
	if run <= 0 {
		run = DefaultRunTime
	}
	start := b.Session.Showtime
	lines := []string{l.T("calendar.booking", "Number", fmt.Sprint(b.Number))}
	if b.Session.ScreenName != "" {
		lines = append(lines, l.T("calendar.screen", "Screen", b.Session.ScreenName))
	}
	if seats := seatWords(l, b); seats != "" {
		lines = append(lines, l.T("calendar.seats", "Seats", seats))
	}
	return Event{
		UID:         UID(b.CinemaID, b.Number, in.Domain),
		Sequence:    in.Sequence,
		Stamp:       in.Stamp,
		Start:       start,
		End:         start.Add(run),
		Zone:        in.Cinema.Location(),
		Summary:     b.Session.FilmTitle,
		Location:    in.Cinema.Name,
		Description: strings.Join(lines, "\n"),
	}
}

// seatWords lists the booking's seats in l's language, "Row F, seat 7; Row F, seat 8", or
// says free seating.
func seatWords(l *i18n.Localizer, b cinema.Booking) string {
	var seats []string
	free := false
	for _, t := range b.Tickets {
		if t.Seat == nil || t.Seat.RowLabel == "" {
			free = true
			continue
		}
		seats = append(seats, tickets.SeatWords(l, t.Seat.RowLabel, t.Seat.Label))
	}
	if free && len(seats) == 0 {
		return tickets.SeatWords(l, "", "")
	}
	return strings.Join(seats, "; ")
}
