// Package words writes what the flows say about cinema things in a visitor's language: a
// seat, a showtime, a signed amount, a wait, the seating-area rules of tickets and the prices
// of seats on a map. Pure functions of the localizer and the ticketing system's values.
package words

import (
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// SeatName is a seat by its row and seat labels, kept apart from any language: words writes
// it in a visitor's language, key in English. Text is the seat's words
// alone, for a seat known only by them (an edit started before seats were kept by their
// labels); both then answer with it.
type SeatName struct {
	Row  string `json:"row,omitempty"`
	Seat string `json:"seat,omitempty"`
	Text string `json:"text,omitempty"`
}

// SeatNameOf is the name of a booked seat (none for nil).
func SeatNameOf(r *cinema.SeatRef) SeatName {
	if r == nil {
		return SeatName{}
	}
	return SeatName{Row: r.RowLabel, Seat: r.Label}
}

func (n SeatName) Labelled() bool { return n.Row != "" || n.Seat != "" }

// Key is the seat in English, "Row C, seat 5", whatever the page's language: how the edit
// tells a moved ticket (its seat when the edit began is kept so, originLine.Seat); "" for no
// seat.
func (n SeatName) Key() string {
	if !n.Labelled() {
		return n.Text
	}
	return tickets.SeatKey(n.Row, n.Seat)
}

// Words is the seat in l's language: "Row C, seat 5", "Reihe C, Platz 5"; "" for no seat.
func (n SeatName) Words(l *i18n.Localizer) string {
	if !n.Labelled() {
		return n.Text
	}
	return tickets.SeatWords(l, n.Row, n.Seat)
}

// Seat is a booked seat in l's language ("" for none).
func Seat(l *i18n.Localizer, r *cinema.SeatRef) string { return SeatNameOf(r).Words(l) }

// Showtime is a show's time in the cinema's time zone, in l's language: "Monday 2
// January 2026, 20:15", "Montag, 2. Januar 2026, 20:15 Uhr", and for a show after midnight
// the night it belongs to, "Samstag, 28. November 2026, 00:08 Uhr (Nacht von Freitag auf
// Samstag)"; "" when it is not known.
func Showtime(l *i18n.Localizer, t time.Time, c cinema.Cinema) string {
	if t.IsZero() {
		return ""
	}
	return l.Showtime(t, c.Location())
}

// ShowClock is a show's start in a list of the shows of day (local midnight in loc): its
// clock time, "20:30", or for a show after that day's midnight the night it falls in,
// "Nacht zum Sa., 00:08", so that it is not taken for a show early on the day it is listed
// under.
func ShowClock(l *i18n.Localizer, t time.Time, loc *time.Location, day time.Time) string {
	if y, m, d := t.In(loc).Date(); y != day.Year() || m != day.Month() || d != day.Day() {
		return l.Time(t, loc, i18n.NightClock)
	}
	return l.Time(t, loc, i18n.Clock)
}

// Signed writes an amount with its sign spelled out: "+€0.50", "−€2.00", "€0.00" (a
// minus sign, not a hyphen).
func Signed(l *i18n.Localizer, m cinema.Money) string {
	switch {
	case m.Cents > 0:
		return "+" + l.Money(m)
	case m.Cents < 0:
		return "−" + l.Money(m.Neg())
	}
	return l.Money(m)
}

// Wait is a wait in words, rounded up to whole seconds: "1 second", "12 Sekunden".
func Wait(l *i18n.Localizer, seconds float64) string {
	return l.N("common.seconds", WholeSeconds(seconds))
}
