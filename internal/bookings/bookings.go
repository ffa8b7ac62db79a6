// Package bookings reads a booking as the pages need it, from what the real
// ticketing API answers. GetSingleBooking carries seat labels, not seat-plan
// positions, and says nothing of the session's film, time and screen; this
// package completes the booking from the session listing and the seat plan,
// so that no page depends on fields only our sandbox once sent.
package bookings

import (
	"context"
	"log/slog"
	"sync"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Source is the part of the ticketing client a Reader uses.
type Source interface {
	GetSingleBooking(ctx context.Context, cinemaID string, bookingNumber int64) (cinema.Booking, error)
	FindSession(ctx context.Context, cinemaID, sessionID string) (cinema.Session, error)
	GetSeatPlan(ctx context.Context, cinemaID, sessionID string) (cinema.SeatPlan, error)
}

// Reader reads complete bookings.
type Reader struct {
	Source Source
	Logger *slog.Logger
}

// Booking is a booking with what was learnt to complete it.
type Booking struct {
	cinema.Booking
	// Plan is the session's seat plan when it was read to place the tickets
	// (nil otherwise); its availability is as fresh as the read.
	Plan *cinema.SeatPlan
	// Unplaced are tickets whose seat labels are not on the seat plan.
	Unplaced []cinema.BookedTicket
}

// Read reads booking number of cinemaID. Only the booking itself must be
// read: when the listing or the seat plan cannot be read, the booking comes
// back with what is known (and the failure is logged), so a person can still
// see it; actions that need seat positions then read the plan themselves.
//
// Each of also runs concurrently with the listing and seat-plan reads, once the booking is
// known: a page's own reads that depend only on the booking (its session's ticket types) then
// cost no round trip of their own.
func (r Reader) Read(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (Booking, error) {
	b, err := r.Source.GetSingleBooking(ctx, cinemaID, number)
	if err != nil {
		return Booking{}, err
	}
	out := Booking{Booking: b}
	sessionID := b.SessionID()
	if sessionID == "" {
		return out, nil
	}
	needSession := b.Session.FilmTitle == "" || b.Session.Showtime.IsZero()
	needPlan := false
	for _, t := range b.Tickets {
		if t.Seat != nil && !t.Seat.Placed {
			needPlan = true
		}
	}
	var (
		wg       sync.WaitGroup
		sess     cinema.Session
		plan     cinema.SeatPlan
		sErr     error
		planErr  error
		planRead bool
	)
	if needSession {
		wg.Go(func() { sess, sErr = r.Source.FindSession(ctx, cinemaID, sessionID) })
	}
	if needPlan {
		planRead = true
		wg.Go(func() { plan, planErr = r.Source.GetSeatPlan(ctx, cinemaID, sessionID) })
	}
	for _, f := range also {
		wg.Go(func() { f(ctx, b) })
	}
	wg.Wait()
	if needSession {
		if sErr != nil {
			r.log(ctx, "the booking's session could not be read from the listing", number, sErr)
		} else {
			out.Session = cinema.SessionInfo{ID: sessionID, FilmTitle: sess.FilmTitle, Showtime: sess.Showtime, ScreenName: sess.ScreenName}
		}
	}
	if planRead {
		if planErr != nil {
			r.log(ctx, "the booking's seat plan could not be read to place its tickets", number, planErr)
		} else {
			out.Unplaced = out.PlaceOnPlan(plan)
			out.Plan = &plan
			if len(out.Unplaced) > 0 && r.Logger != nil {
				r.Logger.LogAttrs(ctx, slog.LevelWarn, "booked seats not found on the seat plan by their labels",
					slog.Int64("booking", number), slog.Int("tickets", len(out.Unplaced)),
					slog.String("row", out.Unplaced[0].Seat.RowLabel), slog.String("seat", out.Unplaced[0].Seat.Label))
			}
		}
	}
	return out, nil
}

func (r Reader) log(ctx context.Context, msg string, number int64, err error) {
	if r.Logger != nil {
		r.Logger.LogAttrs(ctx, slog.LevelWarn, msg, slog.Int64("booking", number), slog.Any("err", err))
	}
}
