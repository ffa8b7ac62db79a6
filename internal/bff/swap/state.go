package swap

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/views/pages/swapview"
)

// swapState is a swap checked by the BFF (pending) or made (done), kept only in the server
// session.
type swapState struct {
	CinemaID  string          `json:"cinema"`
	Number    int64           `json:"number"`
	BookingID string          `json:"bookingId"`
	Header    swapview.Header `json:"header"`
	Moves     []move          `json:"moves"`
	Showtime  time.Time       `json:"showtime,omitzero"` // for the change cut-off; zero: not known
	TimeZone  string          `json:"tz,omitempty"`      // the cinema's, to write Showtime in the page's language
	Email     string          `json:"email,omitempty"`   // where the message about the swap goes
	Lang      string          `json:"lang,omitempty"`    // the language the swap was asked for in ("en", "de")
	MailKey   string          `json:"mail,omitempty"`    // outbox key of that message, once written
}

// header is the booking's header in l's language: the showtime is written again (the visit
// keeps the moment, the page may be in another language by now).
func (v swapState) header(l *i18n.Localizer) swapview.Header {
	h := v.Header
	if !v.Showtime.IsZero() && v.TimeZone != "" {
		h.Showtime = words.Showtime(l, v.Showtime, cinema.Cinema{TimeZone: v.TimeZone})
	}
	return h
}

// move is one ticket moving to a new seat. From and ToText name the seats for the records
// of the change, in English (seatKey); the labels name them for the page, in its language.
type move struct {
	Seq      int                 `json:"seq"`
	Ticket   string              `json:"ticket"`
	Package  bool                `json:"pkg,omitempty"`
	From     string              `json:"from"`
	To       cinema.SeatPosition `json:"to"`
	ToText   string              `json:"toText"`
	FromRow  string              `json:"fromRow,omitempty"`
	FromSeat string              `json:"fromSeat,omitempty"`
	ToRow    string              `json:"toRow,omitempty"`
	ToSeat   string              `json:"toSeat,omitempty"`
}

// shown names the moves of v: each ticket and the seat it goes to, in order.
func (v swapState) shown() string {
	parts := make([]string, len(v.Moves))
	for i, m := range v.Moves {
		parts[i] = fmt.Sprintf("%d:%d-%d-%d", m.Seq, m.To.AreaNumber, m.To.RowIndex, m.To.ColumnIndex)
	}
	return strings.Join(parts, ",")
}

// fromText is the old seat in l's language.
func (m move) fromText(l *i18n.Localizer) string {
	if m.FromRow == "" {
		return m.From // kept by an older version
	}
	return tickets.SeatWords(l, m.FromRow, m.FromSeat)
}

// toText is the new seat asked for, in l's language.
func (m move) toText(l *i18n.Localizer) string {
	if m.ToRow == "" {
		return m.ToText
	}
	return tickets.SeatWords(l, m.ToRow, m.ToSeat)
}

// boundBooking is the booking the visit has opened, named by cinema and number.
type boundBooking struct {
	CinemaID string
	Number   int64
}

// access checks that the visit has opened the booking named in the path (the booking flow
// binds it after the number + e-mail look-up).
func (h *Handler) access(c echo.Context) (boundBooking, error) {
	number, err := strconv.ParseInt(c.Param("number"), 10, 64)
	b, ok := h.Visits.BoundBooking(c)
	bb := boundBooking{CinemaID: b.CinemaID, Number: b.Number}
	if err != nil || !ok || bb.CinemaID != c.Param("cinema") || bb.Number != number {
		l := web.Loc(c)
		return boundBooking{}, &web.Error{Code: web.EForbidden, Heading: l.T("swap.not_opened.heading"), Message: l.T("swap.not_opened.message"),
			BackURL: h.url("booking.find"), BackLabel: l.T("swap.not_opened.find")}
	}
	return bb, nil
}

// load is the visit kept under key, when it is about the booking bb.
func (h *Handler) load(c echo.Context, key string, bb boundBooking) (swapState, bool) {
	v, ok := web.SessionValue[swapState]{Key: key}.Get(c.Request().Context(), h.Sessions)
	if !ok || v.CinemaID != bb.CinemaID || v.Number != bb.Number || len(v.Moves) == 0 {
		return swapState{}, false
	}
	return v, true
}

// save keeps v under key in the server session.
func (h *Handler) save(c echo.Context, key string, v swapState) {
	web.SessionValue[swapState]{Key: key}.Put(c.Request().Context(), h.Sessions, v)
}

// changeNotice is what a seat swap tells the customer: old seats and new seats, in the
// language of the visit behind ctx.
func changeNotice(ctx context.Context, v swapState) notify.Notice {
	lang := ""
	if l := i18n.FromContext(ctx); l != nil {
		lang = l.Lang()
	}
	n := notify.Notice{Kind: notify.KindSwap, Key: "swap:" + ledger.NewID(), To: v.Email, Lang: lang, CinemaID: v.CinemaID, BookingNumber: v.Number}
	for _, m := range v.Moves {
		n.Lines = append(n.Lines, notify.Line{Change: notify.ChangeMoved, Description: m.Ticket, Seat: m.ToText, From: m.From})
		n.Replaced = append(n.Replaced, changes.Ticket{Line: m.Seq, Description: m.Ticket, Seat: m.From})
	}
	return n
}
