package visit

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// Server-session keys of the booking flow. The swap flow reads SessBookingCinema and
// SessBookingNumber too.
const (
	SessBookingCinema = "booking.cinema" // string
	SessBookingNumber = "booking.number" // int64
	SessEdit          = "edit"           // JSON of Edit
	SessChanges       = "booking.changes"
	SessMailKey       = "booking.mail" // outbox key of the message about the last change
)

// Bound is the booking this visit proved it may see (number + e-mail).
type Bound struct {
	CinemaID string
	Number   int64
}

func (v *Visits) BoundBooking(c echo.Context) (Bound, bool) {
	ctx := c.Request().Context()
	b := Bound{CinemaID: v.kernel.Sessions.GetString(ctx, SessBookingCinema), Number: v.kernel.Sessions.GetInt64(ctx, SessBookingNumber)}
	return b, b.CinemaID != "" && b.Number != 0
}

// BindBooking binds the visit to a booking; this is a privilege change, so the session token
// is renewed.
func (v *Visits) BindBooking(c echo.Context, b Bound) error {
	ctx := c.Request().Context()
	if cur, ok := v.BoundBooking(c); ok && cur != b {
		// An edit of another booking does not carry over, and its order is let go at the
		// ticketing system (a payment under way keeps it: ReleaseEdit); a forgotten edit order
		// would hold its seats and refuse the next change of that booking until it expired.
		v.ReleaseEdit(c)
		v.ClearEdit(c)
	}
	v.kernel.Sessions.Put(ctx, SessBookingCinema, b.CinemaID)
	v.kernel.Sessions.Put(ctx, SessBookingNumber, b.Number)
	if web.DeviceOf(c).Mode == device.Counter {
		// The counter serves the booking looked up now, not the sale it just finished: the
		// customer strip names this one.
		v.kernel.Sessions.Remove(ctx, SessBuyDone)
	}
	return v.kernel.RenewSession(c)
}

// Edit is the edit in progress, kept only in the server session: the upstream's
// userSessionId never reaches the browser.
type Edit struct {
	UserSessionID string       `json:"usid"`
	CinemaID      string       `json:"cinema"`
	BookingID     string       `json:"bookingId"`
	BookingNumber int64        `json:"number"`
	SessionID     string       `json:"session"`
	Original      []OriginLine `json:"original"` // the booking's tickets when the edit started
	StartBalance  int64        `json:"startBalance"`
	Currency      string       `json:"currency"`
	Paid          bool         `json:"paid"`
	FilmTitle     string       `json:"film"`
	Showtime      time.Time    `json:"showtime"`
	Started       time.Time    `json:"started"`
	Entry         string       `json:"entry,omitempty"`   // ledger entry of the payment/refund under way
	Summary       []Change     `json:"changes,omitempty"` // what the change does (changeSummary)
	Email         string       `json:"email,omitempty"`   // the booking's e-mail address: where the message about the change goes
	// OriginalTotal is the booking's total when the edit started (TotalKnown: an edit saved
	// before this was kept has none), Payments its payments: the edit page's breakdown.
	OriginalTotal int64         `json:"originalTotal,omitempty"`
	TotalKnown    bool          `json:"totalKnown,omitempty"`
	Payments      []EditPayment `json:"payments,omitempty"`
	// Screen is the screen of the edit's show. MovedFrom is the show the booking leaves when
	// the edit moves it to another showtime (SessionID, FilmTitle, Showtime are then the new
	// show's); nil for a change within the same show.
	Screen    string `json:"screen,omitempty"`
	MovedFrom *Show  `json:"movedFrom,omitempty"`
}

// Show is a showing of a film, as an edit remembers it.
type Show struct {
	SessionID string    `json:"session"`
	FilmTitle string    `json:"film"`
	Showtime  time.Time `json:"showtime"`
	Screen    string    `json:"screen,omitempty"`
}

// Showtimes are the start times whose change cut-offs the edit must respect: its show's, and
// the show it moves the booking away from.
func (e Edit) Showtimes() []time.Time {
	out := []time.Time{e.Showtime}
	if e.MovedFrom != nil {
		out = append(out, e.MovedFrom.Showtime)
	}
	return out
}

// EditPayment is a payment of the booking, as the edit page names it and plans a refund over it.
type EditPayment struct {
	Reference string `json:"ref"`
	CardType  string `json:"card,omitempty"`
	Masked    string `json:"masked,omitempty"`
	Cents     int64  `json:"cents"`
}

// OriginLine is a ticket booked before the edit, by its id in the edit order. Seat is its
// seat in English words (the key the change records use), Place the same seat by its labels.
type OriginLine struct {
	ID          string         `json:"id"`
	Description string         `json:"desc"`
	Seat        string         `json:"seat"`
	Place       words.SeatName `json:"place,omitzero"`
	PriceCents  int64          `json:"price"`
}

// SeatName is the line's seat by its labels, or by its English words alone when the edit began
// before the labels were kept.
func (ol OriginLine) SeatName() words.SeatName {
	if ol.Place.Labelled() {
		return ol.Place
	}
	return words.SeatName{Text: ol.Seat}
}

// editInSession is the visit's edit in progress.
var editInSession = web.SessionValue[Edit]{Key: SessEdit}

func (v *Visits) CurrentEdit(c echo.Context) (Edit, bool) {
	e, ok := editInSession.Get(c.Request().Context(), v.kernel.Sessions)
	if !ok || e.UserSessionID == "" {
		return Edit{}, false
	}
	return e, true
}

func (v *Visits) SaveEdit(c echo.Context, e Edit) {
	editInSession.Put(c.Request().Context(), v.kernel.Sessions, e)
}

func (v *Visits) ClearEdit(c echo.Context) {
	editInSession.Remove(c.Request().Context(), v.kernel.Sessions)
}

// ReadBooking reads a booking completed from the listing and the seat plan
// (internal/bookings): the real API's answer alone has seat labels only. The seat plan comes
// from s.SeatPlans: it only places the tickets (layout), so a cached one does. Its tickets carry
// the cinema's names in ctx's language (Named).
func (v *Visits) ReadBooking(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (cinema.Booking, error) {
	b, err := v.placed.Read(ctx, cinemaID, number, also...)
	return v.Named(ctx).Booking(b.Booking), err
}

// SeatsAsOf is the time of a map's seat states, in the cinema's time zone and ctx's
// language, for the page to say how current the map is. To the minute: the page does not
// read the states again, and the seats are checked anew when the person continues.
func (v *Visits) SeatsAsOf(ctx context.Context, cinemaID string, at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return i18n.FromContext(ctx).Time(at, v.CinemaByID(ctx, cinemaID).Location(), i18n.Clock)
}
