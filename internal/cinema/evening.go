package cinema

import "time"

// NightEndsHour is the local hour at which a cinema's night ends. A show that starts after
// midnight but before it is the last show of the evening before, as cinemas list it (and as
// the ticketing system's SessionBusinessDate counts it): a show at 00:08 on Saturday is
// Friday night's. No cinema starts a show of the new day before 06:00.
const NightEndsHour = 6

// Evening is the day a show starting at start belongs to, as local midnight in loc: the
// day of its start, or the day before for a start between midnight and NightEndsHour, which
// night reports. It is also the day a moment counts as "today" for a cinema's listing.
func Evening(start time.Time, loc *time.Location) (day time.Time, night bool) {
	t := start.In(loc)
	day = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	if t.Hour() < NightEndsHour {
		return day.AddDate(0, 0, -1), true
	}
	return day, false
}
