package tickets

import (
	"errors"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Card is one ticket as a person reads it at the door: the showing, the seat in large type,
// the ticket type and price, and the signed code its QR carries.
type Card struct {
	Line          int
	BookingNumber string
	Film          string
	Date          string // "Saturday 28 November 2026", in the cinema's time zone
	Time          string // "20:30"
	DateTime      string // ISO 8601, for <time>
	Screen        string
	Row, Seat     string // "F", "7"; both empty for unallocated seating
	SeatText      string // "Row F, seat 7" or "Free seating"
	Type          string
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
			Type: t.Description, Price: t.Price.Format(locale), SeatText: "Free seating"}
		if st := b.Session.Showtime; !st.IsZero() {
			st = st.In(loc)
			c.Date, c.Time, c.DateTime = st.Format("Monday 2 January 2006"), st.Format("15:04"), st.Format(time.RFC3339)
		}
		code := Code{CinemaID: b.CinemaID, BookingID: b.ID, BookingNumber: b.Number, Line: t.Seq}
		if t.Seat != nil && t.Seat.RowLabel != "" {
			c.Row, c.Seat = t.Seat.RowLabel, t.Seat.Label
			c.SeatText = fmt.Sprintf("Row %s, seat %s", t.Seat.RowLabel, t.Seat.Label)
			code.Seat = t.Seat.RowLabel + "-" + t.Seat.Label
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
