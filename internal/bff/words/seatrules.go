package words

import (
	"errors"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/seatrules"
	"github.com/cinemabff/cinemabff/views/components"
)

// SeatRuleNotice is a refusal of the cinema's seating rules (seatrules.Check) in l's words,
// with the way out: the seats to choose instead of leaving one on its own, or what a
// companion seat needs. nil when err is no such refusal.
func SeatRuleNotice(l *i18n.Localizer, err error) *components.Notice {
	var lone *seatrules.LoneSeatError
	var companion *seatrules.CompanionError
	switch {
	case errors.As(err, &lone):
		parts := []string{
			l.N("seating.lone.body", len(lone.Lone), "Chosen", l.N("seating.lone.chosen", len(lone.Chosen), "Seats", seatList(l, lone.Chosen)),
				"Lone", seatList(l, lone.Lone)),
			l.T("seating.lone.why"),
		}
		switch s := lone.Suggestions; len(s) {
		case 0:
		case 1:
			parts = append(parts, l.T("seating.lone.suggest_one", "Seats", seatList(l, s[0])))
		default:
			parts = append(parts, l.T("seating.lone.suggest_two", "First", seatList(l, s[0]), "Second", seatList(l, s[1])))
		}
		return &components.Notice{Kind: components.NoticeError, Heading: l.T("seating.lone.heading"), Body: strings.Join(parts, " ")}
	case errors.As(err, &companion):
		return &components.Notice{Kind: components.NoticeError, Heading: l.T("seating.companion.heading"),
			Body: l.N("seating.companion.body", len(companion.Seats), "Seats", seatList(l, companion.Seats))}
	}
	return nil
}

// seatList names seats as a sign at the seat does: "F11–F12" for seats side by side, "F11"
// alone, "F10 and F13" for seats apart.
func seatList(l *i18n.Localizer, seats []cinema.Seat) string {
	if len(seats) < 2 || seatrules.SideBySide(seats) {
		return seatrules.Names(seats)
	}
	names := make([]string, len(seats))
	for i, s := range seats {
		names[i] = s.RowLabel + s.Label
	}
	return l.T("seating.list_and", "List", strings.Join(names[:len(names)-1], ", "), "Last", names[len(names)-1])
}
