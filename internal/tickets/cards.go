package tickets

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// Card is one ticket as a person reads it at the door: the showing, the seat in large type,
// the ticket type and price, and the signed code its QR carries.
//
// A page writes a card's words in its own language from Showtime, Row, Seat and Amount
// (components.Tickets). Date, Time, SeatText and Price are the same in English: SeatText is
// also the key a change record names the ticket by (internal/changes), so it stays English.
type Card struct {
	Line          int
	BookingNumber string
	Film          string
	Showtime      time.Time // in the cinema's time zone; zero when not known
	Date          string    // "Saturday 28 November 2026", in the cinema's time zone
	Time          string    // "20:30"
	DateTime      string    // ISO 8601, for <time>
	Screen        string
	Row, Seat     string // "F", "7"; both empty for unallocated seating
	SeatText      string // "Row F, seat 7" or "Free seating"
	Type          string
	Amount        cinema.Money // the price
	Price         string
	Payload       string // the text of the QR code
}

// Cards makes the booking's tickets, in booking order, with codes signed by s. Times are shown
// in loc; money in locale (cinema.Money.Format). A ticket whose code cannot be made (labels a
// code cannot carry) is still listed, without a code, and the error says which.
func Cards(b cinema.Booking, s *Signer, loc *time.Location, locale string) ([]Card, error) {
	var errs []error
	if loc == nil {
		loc = time.UTC
	}
	out := make([]Card, 0, len(b.Tickets))
	for _, t := range b.Tickets {
		c := Card{Line: t.Seq, BookingNumber: fmt.Sprint(b.Number), Film: b.Session.FilmTitle, Screen: b.Session.ScreenName,
			Type: t.Description, Amount: t.Price, Price: t.Price.Format(locale), SeatText: FreeSeatingKey}
		if st := b.Session.Showtime; !st.IsZero() {
			st = st.In(loc)
			c.Showtime = st
			c.Date, c.Time, c.DateTime = st.Format("Monday 2 January 2006"), st.Format("15:04"), st.Format(time.RFC3339)
		}
		code := Code{CinemaID: b.CinemaID, BookingID: b.ID, BookingNumber: b.Number, Line: t.Seq, Seat: codeSeat(t)}
		if t.Seat != nil && t.Seat.RowLabel != "" {
			c.Row, c.Seat = t.Seat.RowLabel, t.Seat.Label
			c.SeatText = SeatKey(t.Seat.RowLabel, t.Seat.Label)
		}
		p, err := s.Payload(code)
		if err != nil {
			errs = append(errs, fmt.Errorf("ticket %d of booking %d: %w", t.Seq, b.Number, err))
		}
		c.Payload = p
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// codeSeat is a ticket's seat as its code carries it: "F-7", or "" for unallocated seating.
func codeSeat(t cinema.BookedTicket) string {
	if t.Seat == nil || t.Seat.RowLabel == "" {
		return ""
	}
	return t.Seat.RowLabel + "-" + t.Seat.Label
}

// CurrentIn reports whether the code is a ticket of b as b is now: b is its booking, its line
// is one of b's tickets and its seat is that ticket's seat. A ticket removed, moved to another
// show (new lines) or given another seat (a swap) is not: its old code still verifies, as it
// was signed, but it no longer stands for a ticket.
func (c Code) CurrentIn(b cinema.Booking) bool {
	differ := func(a, b string) bool { return a != "" && b != "" && a != b }
	if differ(c.CinemaID, b.CinemaID) || (b.Number != 0 && c.BookingNumber != b.Number) || differ(c.BookingID, b.ID) {
		return false
	}
	t, ok := b.Ticket(c.Line)
	return ok && codeSeat(t) == c.Seat
}

// FreeSeatingKey is Card.SeatText of a ticket without a numbered seat.
const FreeSeatingKey = "Free seating"

// SeatKey is Card.SeatText of a numbered seat, "Row F, seat 7": the name the records of a
// change keep for a ticket's seat (in English, whatever the language of the page that made
// them). A page shows it in its own language with ParseSeatKey.
func SeatKey(row, seat string) string { return "Row " + row + ", seat " + seat }

// SeatWords is a seat in l's language, "Row F, seat 7" or "Reihe F, Platz 7"; free seating
// (no row) in its words.
func SeatWords(l *i18n.Localizer, row, seat string) string {
	if row == "" {
		return l.T("common.free_seating")
	}
	return l.T("common.seat", "Row", row, "Seat", seat)
}

// ParseSeatKey reads a seat name written by SeatKey.
func ParseSeatKey(s string) (row, seat string, ok bool) {
	rest, ok := strings.CutPrefix(s, "Row ")
	if !ok {
		return "", "", false
	}
	row, seat, ok = strings.Cut(rest, ", seat ")
	if !ok || row == "" || seat == "" {
		return "", "", false
	}
	return row, seat, true
}
