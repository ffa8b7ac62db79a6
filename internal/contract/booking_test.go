package contract

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestGetSingleBooking(t *testing.T) {
	e := newEnv(t, envOptions{})
	// On the wire, as the real API answers: seat labels, no positions, no session details.
	raw, err := e.client.GetSingleBooking(e.ctx, berlin, 100001)
	noErr(t, err)
	if raw.Tickets[0].Seat == nil || raw.Tickets[0].Seat.Placed || raw.Session.FilmTitle != "" || raw.Tickets[0].Seat.Name() != "F11" {
		t.Errorf("the sandbox sends more than the real wire: %+v %+v", raw.Session, raw.Tickets[0].Seat)
	}
	b, err := e.booking(berlin, 100001)
	noErr(t, err)
	if b.Number != 100001 || b.ID != "BK0186A1" || b.CinemaID != berlin || !b.Paid || b.InSeatDelivery || b.BeingEdited {
		t.Errorf("booking %+v", b)
	}
	if b.Session.ID != bigSession || b.Session.FilmTitle == "" || b.Session.Showtime.IsZero() || b.CustomerEmail != "paid1@example.com" {
		t.Errorf("session %+v, email %q", b.Session, b.CustomerEmail)
	}
	if len(b.Tickets) != 2 || b.Tickets[0].Seq == 0 || b.Tickets[0].Seat == nil || b.Tickets[0].Seat.Name() != "F11" || b.Tickets[0].Price.Cents != 1250 {
		t.Fatalf("tickets %+v", b.Tickets)
	}
	sp := e.plan(bigSession)
	if b.Tickets[0].Seat.Position != seat(t, sp, "F", "11").Position {
		t.Errorf("ticket seat %+v, plan says %+v", b.Tickets[0].Seat, seat(t, sp, "F", "11").Position)
	}
	if b.Total.Currency != "EUR" || b.Total.Cents < 2500 || len(b.Payments) != 1 || b.Payments[0].ExternalKnown || b.Payments[0].ProviderReference == "" {
		t.Errorf("total %v payments %+v", b.Total, b.Payments)
	}

	pkg, err := e.booking(berlin, 100012)
	noErr(t, err)
	if len(pkg.Tickets) != 2 || pkg.Tickets[0].PackageGroup == 0 || len(pkg.PackageMates(pkg.Tickets[0].Seq)) != 2 {
		t.Errorf("package booking %+v", pkg.Tickets)
	}
	con, err := e.booking(berlin, 100011)
	noErr(t, err)
	if len(con.Concessions) != 2 || con.Concessions[0].Quantity == 0 {
		t.Errorf("concessions %+v", con.Concessions)
	}
	unpaid, err := e.booking(berlin, 100010)
	noErr(t, err)
	if unpaid.Paid || len(unpaid.SwapRestrictions()) == 0 {
		t.Errorf("unpaid %+v", unpaid)
	}
	// In-seat delivery is not on the real wire: the swap is refused by the upstream
	// (TestSwapSeatsRefusals), so the booking itself must not claim to know.
	inSeat, err := e.booking(berlin, 100017)
	noErr(t, err)
	if inSeat.InSeatDelivery || len(inSeat.SwapRestrictions()) != 0 {
		t.Errorf("in-seat %+v", inSeat)
	}
	gbp, err := e.booking("0002", 200001)
	noErr(t, err)
	if gbp.Total.Currency != "GBP" {
		t.Errorf("currency %v", gbp.Total)
	}

	_, err = e.booking(berlin, 999999)
	er := wantErr(t, err, upstream.ErrNotFound)
	if er.ExtendedResultCode != upstream.ExtBookingNotFound {
		t.Errorf("error %#v", er)
	}
	_ = cinema.Booking{}
}
