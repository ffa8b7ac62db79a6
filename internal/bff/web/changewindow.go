package web

import (
	"strings"
	"time"

	"github.com/labstack/echo/v4"

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
func (k *Kernel) ChangeWindow(c echo.Context, cinemaID string, showtime time.Time) (text string, open bool) {
	if showtime.IsZero() {
		return "", true
	}
	l := Loc(c)
	// The box office may change a booking until the show starts: staff signed in at an
	// enrolled counter, not a staff sign-in on any browser.
	staff := k.AtCounter(c)
	now := k.Now()
	zone := k.CinemaByID(c.Request().Context(), cinemaID).Location()
	at := func(t time.Time) string {
		if y, m, d := t.In(zone).Date(); !SameDay(now.In(zone), y, m, d) {
			return l.T("booking.at_on_day", "Time", l.Time(t, zone, i18n.Clock), "Day", l.Time(t, zone, i18n.DayLong))
		}
		return l.T("booking.at_time", "Time", l.Time(t, zone, i18n.Clock))
	}
	cutoff := k.ChangePolicy.Cutoff(cinemaID)
	closes := k.ChangePolicy.Closes(cinemaID, showtime, staff)
	if k.ChangePolicy.Open(now, cinemaID, showtime, staff) {
		if staff || cutoff == 0 {
			return l.T("booking.window_open_until_start", "Time", at(closes)), true
		}
		return l.T("booking.window_open", "Time", at(closes), "Cutoff", CutoffWords(l, cutoff)), true
	}
	switch {
	case staff || cutoff == 0:
		return l.T("booking.window_closed_at_start", "Start", at(showtime)), false
	case !now.Before(showtime):
		// Nobody can change it any more: no box office advice.
		return l.T("booking.window_closed_started", "Time", at(closes), "Cutoff", CutoffWords(l, cutoff), "Start", at(showtime)), false
	}
	return l.T("booking.window_closed", "Time", at(closes), "Cutoff", CutoffWords(l, cutoff)), false
}

// ChangesClosed is the reason changes are closed for this visit, or "" while they are open.
func (k *Kernel) ChangesClosed(c echo.Context, cinemaID string, showtime time.Time) string {
	if text, open := k.ChangeWindow(c, cinemaID, showtime); !open {
		return text
	}
	return ""
}

// RefuseClosed is the answer (409) to a change that arrives after the cut-off (an open edit
// page, a replayed form), or nil while changes are open. Nothing has been sent upstream.
func (k *Kernel) RefuseClosed(c echo.Context, cinemaID string, showtime time.Time, backURL, backLabel string) error {
	reason := k.ChangesClosed(c, cinemaID, showtime)
	if reason == "" {
		return nil
	}
	LoggerFrom(c.Request().Context(), k.Logger).Info("change refused after the cut-off", "path", c.Path(), "cinema", cinemaID, "showtime", showtime)
	return &Error{Code: EConflict, Heading: Loc(c).T("booking.closed_heading"), Message: reason, BackURL: backURL, BackLabel: backLabel}
}

func SameDay(t time.Time, y int, m time.Month, d int) bool {
	ty, tm, td := t.Date()
	return ty == y && tm == m && td == d
}

// CutoffWords writes a cut-off in l's words: "30 minutes", "2 hours", "1 hour 30 minutes".
func CutoffWords(l *i18n.Localizer, d time.Duration) string {
	if d < time.Minute {
		return l.N("common.seconds", int(d/time.Second))
	}
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	var parts []string
	if h > 0 {
		parts = append(parts, l.N("common.hours", h))
	}
	if m > 0 {
		parts = append(parts, l.N("common.minutes", m))
	}
	return strings.Join(parts, " ")
}
