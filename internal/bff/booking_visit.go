package bff

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Server-session keys of the booking flow. The swap flow reads sessBookingCinema and
// sessBookingNumber too.
const (
	sessBookingCinema = "booking.cinema" // string
	sessBookingNumber = "booking.number" // int64
	sessEdit          = "edit"           // JSON of editVisit
	sessChanges       = "booking.changes"
	sessMailKey       = "booking.mail" // outbox key of the message about the last change
)

// boundBooking is the booking this visit proved it may see (number + e-mail).
type boundBooking struct {
	CinemaID string
	Number   int64
}

func (s *Server) boundBooking(c echo.Context) (boundBooking, bool) {
	ctx := c.Request().Context()
	b := boundBooking{CinemaID: s.Sessions.GetString(ctx, sessBookingCinema), Number: s.Sessions.GetInt64(ctx, sessBookingNumber)}
	return b, b.CinemaID != "" && b.Number != 0
}

// bindBooking binds the visit to a booking; this is a privilege change, so the session token
// is renewed.
func (s *Server) bindBooking(c echo.Context, b boundBooking) error {
	ctx := c.Request().Context()
	if cur, ok := s.boundBooking(c); ok && cur != b {
		s.clearEdit(c) // an edit of another booking does not carry over
	}
	s.Sessions.Put(ctx, sessBookingCinema, b.CinemaID)
	s.Sessions.Put(ctx, sessBookingNumber, b.Number)
	return s.RenewSession(c)
}

// editVisit is the edit in progress, kept only in the server session: the upstream's
// userSessionId never reaches the browser.
type editVisit struct {
	UserSessionID string       `json:"usid"`
	CinemaID      string       `json:"cinema"`
	BookingID     string       `json:"bookingId"`
	BookingNumber int64        `json:"number"`
	SessionID     string       `json:"session"`
	Original      []originLine `json:"original"` // the booking's tickets when the edit started
	StartBalance  int64        `json:"startBalance"`
	Currency      string       `json:"currency"`
	Paid          bool         `json:"paid"`
	FilmTitle     string       `json:"film"`
	Showtime      time.Time    `json:"showtime"`
	Started       time.Time    `json:"started"`
	Entry         string       `json:"entry,omitempty"`   // ledger entry of the payment/refund under way
	Summary       []changeItem `json:"changes,omitempty"` // what the change does (changeSummary)
	Email         string       `json:"email,omitempty"`   // the booking's e-mail address: where the message about the change goes
	// OriginalTotal is the booking's total when the edit started (TotalKnown: an edit saved
	// before this was kept has none), Payments its payments: the edit page's breakdown.
	OriginalTotal int64         `json:"originalTotal,omitempty"`
	TotalKnown    bool          `json:"totalKnown,omitempty"`
	Payments      []editPayment `json:"payments,omitempty"`
}

// editPayment is a payment of the booking, as the edit page names it and plans a refund over it.
type editPayment struct {
	Reference string `json:"ref"`
	CardType  string `json:"card,omitempty"`
	Masked    string `json:"masked,omitempty"`
	Cents     int64  `json:"cents"`
}

// originLine is a ticket booked before the edit, by its id in the edit order. Seat is its
// seat in English words (the key the change records use), Place the same seat by its labels.
type originLine struct {
	ID          string       `json:"id"`
	Description string       `json:"desc"`
	Seat        string       `json:"seat"`
	Place       web.SeatName `json:"place,omitzero"`
	PriceCents  int64        `json:"price"`
}

// place is the line's seat by its labels, or by its English words alone when the edit began
// before the labels were kept.
func (ol originLine) place() web.SeatName {
	if ol.Place.Labelled() {
		return ol.Place
	}
	return web.SeatName{Text: ol.Seat}
}

// editInSession is the visit's edit in progress.
var editInSession = web.SessionValue[editVisit]{Key: sessEdit}

func (s *Server) currentEdit(c echo.Context) (editVisit, bool) {
	e, ok := editInSession.Get(c.Request().Context(), s.Sessions)
	if !ok || e.UserSessionID == "" {
		return editVisit{}, false
	}
	return e, true
}

func (s *Server) saveEdit(c echo.Context, e editVisit) {
	editInSession.Put(c.Request().Context(), s.Sessions, e)
}

func (s *Server) clearEdit(c echo.Context) {
	editInSession.Remove(c.Request().Context(), s.Sessions)
}

// readBooking reads a booking completed from the listing and the seat plan
// (internal/bookings): the real API's answer alone has seat labels only. The seat plan comes
// from s.SeatPlans: it only places the tickets (layout), so a cached one does.
func (s *Server) readBooking(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (cinema.Booking, error) {
	b, err := s.PlacedBookings.Read(ctx, cinemaID, number, also...)
	return b.Booking, err
}
