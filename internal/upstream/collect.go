package upstream

import (
	"context"
	"time"
)

// OpMarkBookingCollected marks a booking's tickets as printed (collected) at a kiosk or the box
// office. Nothing public shows the real API's operation for it: the route is ours
// (docs/wire-profile.md, "Paths"), and a deployment remaps it with -upstream-paths.
const OpMarkBookingCollected = "MarkBookingCollected"

// wireMarkCollectedRequest is ours: the booking as GetSingleBooking names it.
type wireMarkCollectedRequest struct {
	CinemaId      string `json:"CinemaId"`
	BookingNumber string `json:"BookingNumber"` // the number, sent as a string as GetSingleBooking does
}

// wireMarkCollectedResponse is ours: the booking family's envelope, whether the tickets had been
// collected before this call, and when they were first collected (this call's time when not).
type wireMarkCollectedResponse struct {
	bookingCodes
	AlreadyCollected *bool   `json:"AlreadyCollected"`
	CollectedUtc     isoTime `json:"CollectedUtc"`
}

// Collection is what the upstream knows about a booking's collection after it was marked.
type Collection struct {
	// Before is true when the tickets had been collected (printed) before this call.
	Before bool
	// At is when they were first collected: this call's time when Before is false. Zero when the
	// upstream did not say.
	At time.Time
}

// MarkBookingCollected records upstream that the tickets of a booking were printed. Marking is
// idempotent (a second call keeps the first time and says so), so it is retried when the
// upstream is unavailable.
func (c *Client) MarkBookingCollected(ctx context.Context, cinemaID string, bookingNumber int64) (Collection, error) {
	resp, err := do[wireMarkCollectedResponse](ctx, c, OpMarkBookingCollected, routeParams{"cinemaId": cinemaID},
		wireMarkCollectedRequest{CinemaId: cinemaID, BookingNumber: itoa(bookingNumber)}, true, nil)
	if err != nil {
		return Collection{}, err
	}
	col := Collection{At: resp.CollectedUtc.Time}
	if resp.AlreadyCollected != nil {
		col.Before = *resp.AlreadyCollected
	}
	return col, nil
}
