package bff

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages/swap"
)

// Server-session keys of the swap flow.
const (
	sessSwapPending = "swap.pending" // JSON of swapVisit: checked moves awaiting the go-ahead
	sessSwapDone    = "swap.done"    // JSON of swapVisit: the last swap made, for its result page
)

// swapVisit is a swap checked by the BFF (pending) or made (done), kept only in the server
// session.
type swapVisit struct {
	CinemaID  string      `json:"cinema"`
	Number    int64       `json:"number"`
	BookingID string      `json:"bookingId"`
	Header    swap.Header `json:"header"`
	Moves     []swapMove  `json:"moves"`
	Showtime  time.Time   `json:"showtime,omitzero"` // for the change cut-off; zero: not known
	Email     string      `json:"email,omitempty"`   // where the message about the swap goes
	MailKey   string      `json:"mail,omitempty"`    // outbox key of that message, once written
}

// swapMove is one ticket moving to a new seat.
type swapMove struct {
	Seq     int                 `json:"seq"`
	Ticket  string              `json:"ticket"`
	Package bool                `json:"pkg,omitempty"`
	From    string              `json:"from"`
	To      cinema.SeatPosition `json:"to"`
	ToText  string              `json:"toText"`
}

// swapAccess checks that the visit has opened the booking named in the path (the booking flow
// binds it after the number + e-mail look-up).
func (s *Server) swapAccess(c echo.Context) (boundBooking, error) {
	number, err := strconv.ParseInt(c.Param("number"), 10, 64)
	bb, ok := s.boundBooking(c)
	if err != nil || !ok || bb.CinemaID != c.Param("cinema") || bb.Number != number {
		return boundBooking{}, &Error{Code: EForbidden, Heading: "Find your booking first",
			Message: "This page belongs to a booking this visit has not opened. To change seats, first find the booking with its number and your e-mail address.",
			BackURL: s.url(RouteFindBooking), BackLabel: "Find your booking"}
	}
	return bb, nil
}

func (s *Server) loadSwap(c echo.Context, key string, bb boundBooking) (swapVisit, bool) {
	raw := s.sessions.GetString(c.Request().Context(), key)
	var v swapVisit
	if raw == "" || json.Unmarshal([]byte(raw), &v) != nil || v.CinemaID != bb.CinemaID || v.Number != bb.Number || len(v.Moves) == 0 {
		return swapVisit{}, false
	}
	return v, true
}

func (s *Server) saveSwap(c echo.Context, key string, v swapVisit) {
	b, _ := json.Marshal(v) // plain struct: cannot fail
	s.sessions.Put(c.Request().Context(), key, string(b))
}

// swapUnavailableReason says why the booking's seats cannot be swapped online, from what the
// booking record shows (unpaid, in-seat delivery, being edited, no allocated seats); "" when
// nothing visible stands in the way. The upstream has the last word. The booking page shows
// this instead of the "Change seats" link.
func swapUnavailableReason(b cinema.Booking) string {
	for _, r := range b.SwapRestrictions() {
		return swapRestrictionText(upstream.SwapRestriction(r))
	}
	if b.BeingEdited {
		return "This booking is being changed right now, perhaps in another tab or at the box office. Finish or cancel that change first."
	}
	seated := false
	for _, t := range b.Tickets {
		if t.Placed() {
			return ""
		}
		seated = seated || t.Seat != nil
	}
	if seated {
		// The booking names its seats by row and number; they could not be found on the
		// showing's seat map (not read, or labelled differently).
		return "We could not find your seats on this showing's seat map just now. Please try again in a minute, or ask at the box office."
	}
	return "The tickets of this booking have no numbered seats, so there are no seats to change."
}
