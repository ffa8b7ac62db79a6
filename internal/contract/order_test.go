package contract

import (
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestRegularOrderLifecycle(t *testing.T) {
	e := newEnv(t, envOptions{})
	o, seats := e.newOrder(2)
	if len(o.UserSessionID) != 32 || o.CinemaID != berlin || o.Total.Cents < 2500 || o.Total.Currency != "EUR" || o.Expires.IsZero() || o.LastUpdated.IsZero() {
		t.Fatalf("order %+v", o)
	}
	tk := o.Tickets()
	if len(tk) != 2 || tk[0].ID == "" || tk[0].Seat == nil || tk[0].Seat.Position != seats[0].Position || tk[0].TypeCode != "0001" || tk[0].SessionID != bigSession {
		t.Fatalf("tickets %+v", tk)
	}
	if o.Sessions[0].FilmTitle == "" || !o.Sessions[0].SeatsAllocated {
		t.Errorf("session %+v", o.Sessions[0])
	}
	if until := time.Until(o.Expires); until < 8*time.Minute || until > 11*time.Minute {
		t.Errorf("expires in %v", until)
	}
	// The seats are now held for others.
	if s := seat(t, e.plan(bigSession), seats[0].RowLabel, seats[0].Label); s.Availability != cinema.SeatHeld && s.Availability != cinema.SeatTaken {
		t.Errorf("seat after AddTickets = %v", s.Availability)
	}

	got, err := e.client.GetOrder(e.ctx, o.UserSessionID)
	noErr(t, err)
	if got.Total != o.Total || len(got.Tickets()) != 2 {
		t.Errorf("GetOrder %+v", got)
	}

	// Move to other seats.
	other := freeSeats(t, e.plan(bigSession), "0000000001", 2)
	moved, err := e.client.SetSelectedSeats(e.ctx, upstream.SetSelectedSeatsRequest{UserSessionID: o.UserSessionID, CinemaID: berlin, SessionID: bigSession, Seats: selected(other...)})
	noErr(t, err)
	if p := moved.Tickets()[0].Seat; p == nil || (p.Position != other[0].Position && p.Position != other[1].Position) {
		t.Errorf("after SetSelectedSeats %+v", moved.Tickets())
	}

	// Remove one ticket.
	fewer, err := e.client.RemoveTickets(e.ctx, upstream.RemoveTicketsRequest{UserSessionID: o.UserSessionID, SessionID: bigSession, TicketIDs: []string{moved.Tickets()[0].ID}})
	noErr(t, err)
	if len(fewer.Tickets()) != 1 || fewer.Total.Cents >= o.Total.Cents {
		t.Errorf("after RemoveTickets %+v", fewer)
	}

	r, err := e.client.ResetOrderExpiry(e.ctx, o.UserSessionID)
	noErr(t, err)
	if r.LastUpdated.IsZero() || r.LastUpdated.Before(o.LastUpdated) {
		t.Errorf("reset %+v (was %v)", r, o.LastUpdated)
	}

	noErr(t, e.client.CancelOrder(e.ctx, o.UserSessionID))
	_, err = e.client.GetOrder(e.ctx, o.UserSessionID)
	if err == nil {
		t.Error("GetOrder after CancelOrder succeeded")
	}
}

func TestRegularOrderRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	sp := e.plan(bigSession)
	// F11 is sold (booking 100001).
	_, err := e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{
		UserSessionID: upstream.NewUserSessionID(), CinemaID: berlin, SessionID: bigSession,
		Tickets: []upstream.TicketRequest{{TypeCode: "0001"}}, Seats: selected(seat(t, sp, "F", "11")),
	})
	wantErr(t, err, upstream.ErrSeatsUnavailable)

	_, err = e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{
		UserSessionID: upstream.NewUserSessionID(), CinemaID: berlin, SessionID: "999999", Tickets: []upstream.TicketRequest{{TypeCode: "0001"}},
	})
	wantErr(t, err, upstream.ErrInvalidRequest)

	_, err = e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{
		UserSessionID: "not-hex!", CinemaID: berlin, SessionID: bigSession, Tickets: []upstream.TicketRequest{{TypeCode: "0001"}},
	})
	wantErr(t, err, upstream.ErrInvalidRequest)

	_, err = e.client.GetOrder(e.ctx, upstream.NewUserSessionID())
	er := wantErr(t, err, upstream.ErrNotFound)
	if er.ExtendedResultCode != upstream.ExtOrderNotFound {
		t.Errorf("error %#v", er)
	}

	o, _ := e.newOrder(1)
	_, err = e.client.SetSelectedSeats(e.ctx, upstream.SetSelectedSeatsRequest{UserSessionID: o.UserSessionID, CinemaID: berlin, SessionID: bigSession, Seats: selected(seat(t, sp, "F", "12"))})
	wantErr(t, err, upstream.ErrSeatsUnavailable)
	err = e.client.CancelOrder(e.ctx, upstream.NewUserSessionID())
	wantErr(t, err, upstream.ErrNotFound)
}

func TestOrderExpiry(t *testing.T) {
	clock := testclock.New(time.Now())
	e := newEnv(t, envOptions{clock: clock})
	o, seats := e.newOrder(1)
	if !o.Expires.Equal(clock.Now().Add(10*time.Minute).Truncate(time.Second)) && o.Expires.Sub(clock.Now()) > 10*time.Minute+time.Second {
		t.Errorf("expires %v, now %v", o.Expires, clock.Now())
	}
	clock.Advance(11 * time.Minute)
	_, err := e.client.GetOrder(e.ctx, o.UserSessionID)
	er := wantErr(t, err, upstream.ErrOrderExpired)
	if er.Result != upstream.ResultInvalidRequestData || er.ExtendedResultCode != upstream.ExtOrderExpired {
		t.Errorf("error %#v", er)
	}
	_, err = e.client.ResetOrderExpiry(e.ctx, o.UserSessionID)
	wantErr(t, err, upstream.ErrOrderExpired)
	if s := seat(t, e.plan(bigSession), seats[0].RowLabel, seats[0].Label); s.Availability != cinema.SeatFree {
		t.Errorf("seat of an expired order is %v", s.Availability)
	}
}
