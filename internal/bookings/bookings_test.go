package bookings

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

type fakeSource struct {
	booking  cinema.Booking
	bookErr  error
	session  cinema.Session
	sessErr  error
	plan     cinema.SeatPlan
	planErr  error
	sessions int
	plans    int
}

func (f *fakeSource) GetSingleBooking(context.Context, string, int64) (cinema.Booking, error) {
	return f.booking, f.bookErr
}

func (f *fakeSource) FindSession(context.Context, string, string) (cinema.Session, error) {
	f.sessions++
	return f.session, f.sessErr
}

func (f *fakeSource) GetSeatPlan(context.Context, string, string) (cinema.SeatPlan, error) {
	f.plans++
	return f.plan, f.planErr
}

func TestRead(t *testing.T) {
	show := time.Date(2026, 11, 22, 19, 30, 0, 0, time.UTC)
	// A fresh booking per case: placing a ticket fills in its seat.
	labelled := func() cinema.Booking {
		return cinema.Booking{Number: 1, Tickets: []cinema.BookedTicket{{Seq: 1, SessionID: "1001", Seat: &cinema.SeatRef{RowLabel: "F", Label: "12"}}}}
	}
	placed := cinema.Booking{Number: 1, Session: cinema.SessionInfo{ID: "1001", FilmTitle: "Known", Showtime: show},
		Tickets: []cinema.BookedTicket{{Seq: 1, SessionID: "1001", Seat: &cinema.SeatRef{RowLabel: "F", Label: "12", Placed: true}}}}
	plan := cinema.SeatPlan{Areas: []cinema.Area{{Number: 1, Rows: []cinema.Row{{Label: "F", Seats: []cinema.Seat{
		{Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}, AreaCategoryCode: "STD", RowLabel: "F", Label: "12"}}}}}}}
	session := cinema.Session{SessionID: "1001", FilmTitle: "Long Night, The", Showtime: show, ScreenName: "Screen 1"}

	tests := []struct {
		name            string
		src             fakeSource
		wantErr         bool
		film            string
		placed          bool
		sessions, plans int
		unplaced        int
		planKept        bool
	}{
		{"labels only: listing and plan complete it", fakeSource{booking: labelled(), session: session, plan: plan}, false, "Long Night, The", true, 1, 1, 0, true},
		{"complete already: no more calls", fakeSource{booking: placed}, false, "Known", true, 0, 0, 0, false},
		{"listing and plan fail: the booking still shows", fakeSource{booking: labelled(), sessErr: errors.New("down"), planErr: errors.New("down")}, false, "", false, 1, 1, 0, false},
		{"labels not on the plan", fakeSource{booking: labelled(), session: session, plan: cinema.SeatPlan{}}, false, "Long Night, The", false, 1, 1, 1, true},
		{"booking fails", fakeSource{bookErr: errors.New("refused")}, true, "", false, 0, 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			b, err := Reader{Source: &src}.Read(context.Background(), "0001", 1)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				return
			}
			if b.Session.FilmTitle != tc.film || b.Tickets[0].Placed() != tc.placed || len(b.Unplaced) != tc.unplaced || (b.Plan != nil) != tc.planKept {
				t.Errorf("booking %+v placed %v unplaced %v plan %v", b.Session, b.Tickets[0].Placed(), b.Unplaced, b.Plan != nil)
			}
			if src.sessions != tc.sessions || src.plans != tc.plans {
				t.Errorf("calls: %d listings, %d plans", src.sessions, src.plans)
			}
		})
	}
}
