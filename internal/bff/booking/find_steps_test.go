package booking

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/views/pages/bookingview"
)

// TestFindDetails: the look-up form is complete with a booking number of at most twelve digits,
// a cinema and, for a customer looking up by number, a well-formed e-mail address; staff and a
// ticket's code need no address.
func TestFindDetails(t *testing.T) {
	form := func(number, email string, staff bool) bookingview.FindView {
		return bookingview.FindView{CinemaID: "0001", Number: number, Email: email, Staff: staff}
	}
	cases := []struct {
		name       string
		v          bookingview.FindView
		byCode     bool
		wantOK     bool
		wantNumber int64
		wantEmail  string
	}{
		{"customer, number and address", form("123456", "Ann <ann@example.com>", false), false, true, 123456, "ann@example.com"},
		{"customer without an address", form("123456", "", false), false, false, 123456, ""},
		{"customer, malformed address", form("123456", "ann at example", false), false, false, 123456, ""},
		{"customer, ticket code", form("123456", "", false), true, true, 123456, ""},
		{"staff, number alone", form("123456", "", true), false, true, 123456, ""},
		{"no number", form("", "ann@example.com", false), false, false, 0, "ann@example.com"},
		{"not a number", form("12a", "ann@example.com", true), false, false, 0, "ann@example.com"},
		{"zero", form("0", "", true), false, false, 0, ""},
		{"negative", form("-5", "", true), false, false, -5, ""},
		{"thirteen digits", form("1234567890123", "", true), false, false, 1234567890123, ""},
		{"twelve digits", form("123456789012", "", true), false, true, 123456789012, ""},
		{"no cinema", bookingview.FindView{Number: "123456", Staff: true}, false, false, 123456, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			number, email, ok := findDetails(tc.v, tc.byCode)
			if ok != tc.wantOK || number != tc.wantNumber || email != tc.wantEmail {
				t.Errorf("findDetails = %d, %q, %v; want %d, %q, %v", number, email, ok, tc.wantNumber, tc.wantEmail, tc.wantOK)
			}
		})
	}
}

// TestLookUpProves: staff need nothing more than the number; a customer the booking's own
// e-mail address (in any case, spaces around it ignored); a ticket's code proves only a ticket
// of the booking as it is now, whatever address was typed.
func TestLookUpProves(t *testing.T) {
	b := cinema.Booking{CinemaID: "0001", Number: 42, CustomerEmail: " Ann@Example.com ",
		Tickets: []cinema.BookedTicket{{Seq: 1}}}
	current := &tickets.Code{CinemaID: "0001", BookingNumber: 42, Line: 1}
	gone := &tickets.Code{CinemaID: "0001", BookingNumber: 42, Line: 2}
	cases := []struct {
		name  string
		staff bool
		email string
		code  *tickets.Code
		want  bool
	}{
		{"customer, the booking's address", false, "ann@example.com", nil, true},
		{"customer, another address", false, "bob@example.com", nil, false},
		{"customer, no address", false, "", nil, false},
		{"staff, no address", true, "", nil, true},
		{"code of a current ticket", false, "", current, true},
		{"code of a ticket no longer in the booking", false, "", gone, false},
		{"code no longer current, the right address typed", false, "ann@example.com", gone, false},
		{"staff with a code no longer current", true, "", gone, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := lookUpProves(b, tc.staff, tc.email, tc.code); got != tc.want {
				t.Errorf("lookUpProves = %v, want %v", got, tc.want)
			}
		})
	}
}
