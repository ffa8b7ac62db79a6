package words

import (
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/i18n"
)

// SameDay reports whether t falls on the day y-m-d (in t's own zone).
func SameDay(t time.Time, y int, m time.Month, d int) bool {
	ty, tm, td := t.Date()
	return ty == y && tm == m && td == d
}

// Cutoff writes a cut-off in l's words: "30 minutes", "2 hours", "1 hour 30 minutes".
func Cutoff(l *i18n.Localizer, d time.Duration) string {
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

// WhenWithSeconds is a moment to the second in l's way, in zone: "Wed 25 Nov, 20:15:07".
func WhenWithSeconds(l *i18n.Localizer, t time.Time, zone *time.Location) string {
	return l.T("staff.when_seconds", "Day", l.Time(t, zone, i18n.DayShort), "Clock", t.In(zone).Format("15:04:05"))
}
