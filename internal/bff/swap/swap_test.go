package swap

import (
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/visit"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

func TestSwapUnavailableReason(t *testing.T) {
	seated := []cinema.BookedTicket{{Seq: 1, Seat: &cinema.SeatRef{RowLabel: "F", Label: "11", Placed: true}}}
	for _, tc := range []struct {
		b    cinema.Booking
		want string
	}{
		{cinema.Booking{Paid: true, Tickets: seated}, ""},
		{cinema.Booking{Paid: false, PaidKnown: true, Tickets: seated}, "only on a paid booking"},
		{cinema.Booking{Tickets: seated}, ""}, // not said: offered, and the ticketing system decides
		{cinema.Booking{Paid: true, InSeatDelivery: true, Tickets: seated}, "delivered to the seat"},
		{cinema.Booking{Paid: true, BeingEdited: true, Tickets: seated}, "being changed right now"},
		{cinema.Booking{Paid: true, Tickets: []cinema.BookedTicket{{Seq: 1}}}, "no numbered seats"},
	} {
		got := visit.SwapUnavailableReason(webtest.English(t), tc.b)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}
