package contract

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestSwapSeats(t *testing.T) {
	e := newEnv(t, envOptions{})
	b, err := e.booking(berlin, 100003)
	noErr(t, err)
	sp := e.plan(bigSession)
	to := freeSeats(t, sp, b.Tickets[0].Seat.AreaCategoryCode, 2)
	noErr(t, e.client.SwapSeats(e.ctx, berlin, b.ID, []upstream.SeatSwap{
		{TicketSequenceNumber: b.Tickets[0].Seq, NewSeat: to[0].Position},
		{TicketSequenceNumber: b.Tickets[1].Seq, NewSeat: to[1].Position},
	}))
	after, err := e.booking(berlin, 100003)
	noErr(t, err)
	if after.Tickets[0].Seat.Position != to[0].Position || after.Tickets[1].Seat.Position != to[1].Position {
		t.Errorf("seats after swap %+v %+v, want %v %v", after.Tickets[0].Seat, after.Tickets[1].Seat, to[0].Position, to[1].Position)
	}
	sp = e.plan(bigSession)
	if s := seat(t, sp, "G", "11"); s.Availability != cinema.SeatFree {
		t.Errorf("old seat G11 is %v", s.Availability)
	}
	if s, _ := sp.Seat(to[0].Position); s.Availability != cinema.SeatTaken {
		t.Errorf("new seat is %v", s.Availability)
	}

	// A package moves as a whole.
	pkg, err := e.booking(berlin, 100012)
	noErr(t, err)
	var sofa []cinema.Seat
	for _, a := range sp.Areas {
		for _, r := range a.Rows {
			for _, s := range r.Seats {
				if len(sofa) == 0 && s.SofaGroup != nil && s.Availability == cinema.SeatFree && s.Position == s.SofaGroup[0] {
					other, ok := sp.Seat(s.SofaGroup[1])
					if ok && other.Availability == cinema.SeatFree {
						sofa = []cinema.Seat{s, other}
					}
				}
			}
		}
	}
	if len(sofa) != 2 {
		t.Fatal("no free sofa")
	}
	noErr(t, e.client.SwapSeats(e.ctx, berlin, pkg.ID, []upstream.SeatSwap{
		{TicketSequenceNumber: pkg.Tickets[0].Seq, NewSeat: sofa[0].Position},
		{TicketSequenceNumber: pkg.Tickets[1].Seq, NewSeat: sofa[1].Position},
	}))
}

func TestSwapSeatsRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	sp := e.plan(bigSession)
	paid, err := e.booking(berlin, 100001) // F11, F12
	noErr(t, err)
	free := freeSeats(t, sp, "0000000001", 1)[0]
	premium := freeSeats(t, sp, "0000000002", 1)[0]
	first := paid.Tickets[0].Seq
	second := paid.Tickets[1].Seq

	one := func(bookingID string, seq int, to cinema.SeatPosition) []upstream.SeatSwap {
		return []upstream.SeatSwap{{TicketSequenceNumber: seq, NewSeat: to}}
	}
	unpaid, err := e.booking(berlin, 100010)
	noErr(t, err)
	inSeat, err := e.booking(berlin, 100017)
	noErr(t, err)
	pkg, err := e.booking(berlin, 100012)
	noErr(t, err)
	other, err := e.booking(berlin, 100002) // F14, F15
	noErr(t, err)

	tests := []struct {
		name      string
		bookingID string
		swaps     []upstream.SeatSwap
		want      upstream.SwapRestriction
		status    int
		seatsGone bool
	}{
		{"unpaid", unpaid.ID, one(unpaid.ID, unpaid.Tickets[0].Seq, free.Position), upstream.SwapUnpaidBooking, 400, false},
		{"in-seat delivery", inSeat.ID, one(inSeat.ID, inSeat.Tickets[0].Seq, premium.Position), upstream.SwapInSeatDelivery, 400, false},
		{"other category", paid.ID, one(paid.ID, first, premium.Position), upstream.SwapDifferentAreaCategory, 400, false},
		{"seat taken", paid.ID, one(paid.ID, first, other.Tickets[0].Seat.Position), upstream.SwapSeatUnavailable, 409, true},
		{"seat of the booking", paid.ID, one(paid.ID, first, paid.Tickets[1].Seat.Position), upstream.SwapSeatInBooking, 409, true},
		{"part of a package", pkg.ID, one(pkg.ID, pkg.Tickets[0].Seq, premium.Position), upstream.SwapPartialPackage, 400, false},
		{"unknown ticket", paid.ID, one(paid.ID, 999, free.Position), upstream.SwapUnknownTicket, 400, false},
		{"same target twice", paid.ID, []upstream.SeatSwap{{TicketSequenceNumber: first, NewSeat: free.Position}, {TicketSequenceNumber: second, NewSeat: free.Position}}, upstream.SwapDuplicateSeat, 400, false},
		{"no such seat", paid.ID, one(paid.ID, first, cinema.SeatPosition{AreaNumber: 9, RowIndex: 99, ColumnIndex: 99}), upstream.SwapInvalidSeat, 400, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.client.SwapSeats(e.ctx, berlin, tt.bookingID, tt.swaps)
			er := wantErr(t, err, upstream.ErrSwapRefused)
			if r, ok := upstream.SwapRefusal(err); !ok || r != tt.want {
				t.Errorf("restriction %q, want %q", r, tt.want)
			}
			if er.HTTPStatus != tt.status || er.ExtendedResultCode != upstream.ExtSwapRefused {
				t.Errorf("error %#v", er)
			}
			if got := errorsIs(err, upstream.ErrSeatsUnavailable); got != tt.seatsGone {
				t.Errorf("ErrSeatsUnavailable = %v", got)
			}
		})
	}
	err = e.client.SwapSeats(e.ctx, berlin, "BKNOPE00", one("", first, free.Position))
	wantErr(t, err, upstream.ErrNotFound)

	// Nothing moved.
	again, err := e.booking(berlin, 100001)
	noErr(t, err)
	if again.Tickets[0].Seat.Name() != "F11" || again.Tickets[1].Seat.Name() != "F12" {
		t.Errorf("a refused swap moved seats: %+v", again.Tickets)
	}
}
