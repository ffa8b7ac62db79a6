package tickets_test

import (
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// TestCardsCarryWhatPagesWrite: a card keeps the showtime (in the cinema's zone), the seat and
// the price as values, so each page writes them in its own language; SeatText stays the
// English key of the change records, and the code is as before.
func TestCardsCarryWhatPagesWrite(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data")
	}
	b := cinema.Booking{Number: 100004, ID: "WBK100004", CinemaID: "1",
		Session: cinema.SessionInfo{FilmTitle: "Otters", Showtime: time.Date(2026, 11, 28, 19, 30, 0, 0, time.UTC)},
		Tickets: []cinema.BookedTicket{
			{Seq: 1, Description: "Adult", Price: cinema.Money{Cents: 1250, Currency: "EUR"}, Seat: &cinema.SeatRef{RowLabel: "F", Label: "7"}},
			{Seq: 2, Description: "Adult", Price: cinema.Money{Cents: 1250, Currency: "EUR"}},
		}}
	cards, err := tickets.Cards(b, newSigner(t, testKey), berlin, "")
	if err != nil || len(cards) != 2 {
		t.Fatalf("%d cards: %v", len(cards), err)
	}
	c := cards[0]
	if c.Showtime.Location() != berlin || c.Showtime.Hour() != 20 || c.Time != "20:30" {
		t.Errorf("showtime %v, time %q", c.Showtime, c.Time)
	}
	if c.Amount != (cinema.Money{Cents: 1250, Currency: "EUR"}) || c.Row != "F" || c.Seat != "7" {
		t.Errorf("amount %v, seat %q %q", c.Amount, c.Row, c.Seat)
	}
	if c.SeatText != "Row F, seat 7" || cards[1].SeatText != tickets.FreeSeatingKey {
		t.Errorf("seat keys %q, %q", c.SeatText, cards[1].SeatText)
	}
	if code, err := newSigner(t, testKey).Parse(c.Payload); err != nil || code.Seat != "F-7" || code.Line != 1 {
		t.Errorf("code %+v: %v", code, err)
	}
}

func TestSeatKeyRoundTrip(t *testing.T) {
	for _, tc := range []struct{ row, seat string }{{"F", "7"}, {"AA", "112"}, {"Loge 2", "B"}} {
		row, seat, ok := tickets.ParseSeatKey(tickets.SeatKey(tc.row, tc.seat))
		if !ok || row != tc.row || seat != tc.seat {
			t.Errorf("%v: %q %q %v", tc, row, seat, ok)
		}
	}
	for _, s := range []string{"", "Free seating", "Row , seat 1", "Row F, seat ", "Reihe F, Platz 7"} {
		if _, _, ok := tickets.ParseSeatKey(s); ok {
			t.Errorf("%q read as a seat", s)
		}
	}
}

// TestCodeCurrentIn: a code stands for a ticket only while the booking still has that line
// with that seat.
func TestCodeCurrentIn(t *testing.T) {
	seat := func(row, label string) *cinema.SeatRef { return &cinema.SeatRef{RowLabel: row, Label: label} }
	b := cinema.Booking{CinemaID: "0001", ID: "BK1", Number: 100004, Tickets: []cinema.BookedTicket{
		{Seq: 1, Seat: seat("J", "10")}, {Seq: 2, Seat: seat("J", "11")}, {Seq: 4}}}
	code := func(line int, seat string) tickets.Code {
		return tickets.Code{CinemaID: "0001", BookingID: "BK1", BookingNumber: 100004, Line: line, Seat: seat}
	}
	for _, tc := range []struct {
		name string
		code tickets.Code
		want bool
	}{
		{"a current ticket", code(2, "J-11"), true},
		{"a current ticket without a seat", code(4, ""), true},
		{"a removed ticket (J12, line 3)", code(3, "J-12"), false},
		{"a ticket moved to another seat", code(1, "F-14"), false},
		{"another booking's number", func() tickets.Code { c := code(2, "J-11"); c.BookingNumber = 100005; return c }(), false},
		{"a booking id the number no longer has", func() tickets.Code { c := code(2, "J-11"); c.BookingID = "BK9"; return c }(), false},
		{"another cinema", func() tickets.Code { c := code(2, "J-11"); c.CinemaID = "0002"; return c }(), false},
	} {
		if got := tc.code.CurrentIn(b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
