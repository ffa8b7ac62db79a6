package visit

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// The change cut-off (internal/changewindow): customers may change, refund or swap until a
// cut-off before the show, staff signed in at an enrolled counter until it starts. The booking
// page says until when; every request that would change a booking upstream asks changesClosed
// first and is refused with the same words, before any upstream call.

// ChangeWindow says, for this visit (customer or staff), whether changes to a booking of a
// show at showtime in cinemaID are still open, in words (the visitor's language) with the
// closing time in the cinema's zone: "Changes possible until 19:30, 30 minutes before the
// show." or the reason they are closed. An unknown showtime is open with no words (the
// upstream has the last word).
func (v *Visits) ChangeWindow(c echo.Context, cinemaID string, showtime time.Time) (text string, open bool) {
	if showtime.IsZero() {
		return "", true
	}
	l := web.Loc(c)
	// The box office may change a booking until the show starts: staff signed in at an
	// enrolled counter, not a staff sign-in on any browser.
	staff := v.kernel.AtCounter(c)
	now := v.kernel.Now()
	zone := v.CinemaByID(c.Request().Context(), cinemaID).Location()
	at := func(t time.Time) string {
		if y, m, d := t.In(zone).Date(); !words.SameDay(now.In(zone), y, m, d) {
			return l.T("booking.at_on_day", "Time", l.Time(t, zone, i18n.Clock), "Day", l.Time(t, zone, i18n.DayLong))
		}
		return l.T("booking.at_time", "Time", l.Time(t, zone, i18n.Clock))
	}
	cutoff := v.changePolicy.Cutoff(cinemaID)
	closes := v.changePolicy.Closes(cinemaID, showtime, staff)
	if v.changePolicy.Open(now, cinemaID, showtime, staff) {
		if staff || cutoff == 0 {
			return l.T("booking.window_open_until_start", "Time", at(closes)), true
		}
		return l.T("booking.window_open", "Time", at(closes), "Cutoff", words.Cutoff(l, cutoff)), true
	}
	switch {
	case staff || cutoff == 0:
		return l.T("booking.window_closed_at_start", "Start", at(showtime)), false
	case !now.Before(showtime):
		// Nobody can change it any more: no box office advice.
		return l.T("booking.window_closed_started", "Time", at(closes), "Cutoff", words.Cutoff(l, cutoff), "Start", at(showtime)), false
	}
	return l.T("booking.window_closed", "Time", at(closes), "Cutoff", words.Cutoff(l, cutoff)), false
}

// ChangesClosed is the reason changes are closed for this visit, or "" while they are open.
func (v *Visits) ChangesClosed(c echo.Context, cinemaID string, showtime time.Time) string {
	if text, open := v.ChangeWindow(c, cinemaID, showtime); !open {
		return text
	}
	return ""
}

// RefuseClosed is the answer (409) to a change that arrives after the cut-off (an open edit
// page, a replayed form), or nil while changes are open. Nothing has been sent upstream.
func (v *Visits) RefuseClosed(c echo.Context, cinemaID string, showtime time.Time, backURL, backLabel string) error {
	reason := v.ChangesClosed(c, cinemaID, showtime)
	if reason == "" {
		return nil
	}
	web.LoggerFrom(c.Request().Context(), v.kernel.Logger).Info("change refused after the cut-off", "path", c.Path(), "cinema", cinemaID, "showtime", showtime)
	return &web.Error{Code: web.EConflict, Heading: web.Loc(c).T("booking.closed_heading"), Message: reason, BackURL: backURL, BackLabel: backLabel}
}
