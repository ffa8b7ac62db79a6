package visit

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/calendar"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// BookingCalendar is the booking's calendar file (internal/calendar), its words in l's
// language. The booking page's download and every confirmation e-mail are made here, so both
// carry the same event: the UID of the booking and, as SEQUENCE, the number of changes made to
// it through this service (internal/changes, written with each change's message). A change
// therefore sends an update with a higher SEQUENCE; a cancelled edit writes no change.
func (v *Visits) BookingCalendar(ctx context.Context, l *i18n.Localizer, b cinema.Booking) ([]byte, error) {
	seq := 0
	if v.mail != nil && v.mail.Changes != nil {
		n, err := v.mail.Changes.Count(ctx, b.CinemaID, b.Number)
		if err != nil {
			return nil, err
		}
		seq = n
	}
	domain := ""
	if v.kernel.Cfg.PublicURL != nil {
		domain = v.kernel.Cfg.PublicURL.Hostname()
	}
	ev := calendar.ForBooking(l, calendar.Booking{Booking: b, Cinema: v.CinemaByID(ctx, b.CinemaID), RunTime: v.runTime(ctx, b),
		Sequence: seq, Domain: domain, Stamp: v.kernel.Now()})
	return calendar.Write(ev), nil
}

// ServeCalendar answers with the booking's calendar file as a download, in the request's
// language. The caller has checked that this visit may read the booking.
func (v *Visits) ServeCalendar(c echo.Context, b cinema.Booking) error {
	ics, err := v.BookingCalendar(c.Request().Context(), web.Loc(c), b)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="`+calendar.Filename(b.Number)+`"`)
	h.Set("Cache-Control", "private, no-store") // a person's booking: no shared cache keeps it
	return c.Blob(http.StatusOK, calendar.ContentType, ics)
}

// runTime is the running time of the booking's film from the cinema's listing; 0 (the
// calendar's default) when the listing does not have it.
func (v *Visits) runTime(ctx context.Context, b cinema.Booking) time.Duration {
	id := b.SessionID()
	if v.listings == nil || id == "" {
		return 0
	}
	sess, err := v.listings.FindSession(ctx, b.CinemaID, id) // the shared listing
	if err != nil || sess.FilmID == "" {
		return 0
	}
	listing, err := v.listings.Listing(ctx, b.CinemaID)
	if err != nil {
		return 0
	}
	if f, ok := listing.Film(sess.FilmID); ok {
		return f.RunTime
	}
	return 0
}
