package cinema

import (
	"testing"
	"time"
)

func TestEvening(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(y int, m time.Month, d, hh, mm int) time.Time { return time.Date(y, m, d, hh, mm, 0, 0, berlin) }
	for _, c := range []struct {
		start time.Time
		day   string
		night bool
	}{
		{at(2026, 11, 27, 20, 30), "2026-11-27", false},
		{at(2026, 11, 27, 23, 59), "2026-11-27", false},
		{at(2026, 11, 28, 0, 0), "2026-11-27", true},
		{at(2026, 11, 28, 0, 8), "2026-11-27", true}, // Friday night's late show
		{at(2026, 11, 28, 5, 59), "2026-11-27", true},
		{at(2026, 11, 28, 6, 0), "2026-11-28", false},
		{at(2026, 3, 29, 3, 30), "2026-03-28", true},       // the night the clocks go forward
		{at(2026, 11, 28, 0, 8).UTC(), "2026-11-27", true}, // read in the cinema's zone, not the instant's
	} {
		day, night := Evening(c.start, berlin)
		if got := day.Format(time.DateOnly); got != c.day || night != c.night || day.Location() != berlin || day.Hour() != 0 {
			t.Errorf("Evening(%v) = %v, %v; want %s, %v", c.start, day, night, c.day, c.night)
		}
	}
}

// TestSessionDayAfterMidnight: a session the ticketing system sends without its business day
// is listed under the evening it belongs to.
func TestSessionDayAfterMidnight(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	late := Session{Showtime: time.Date(2026, 11, 28, 0, 8, 0, 0, berlin)}
	if got := late.Day(); got != "2026-11-27" {
		t.Errorf("a 00:08 show without a business day is listed on %s, want the evening before", got)
	}
	given := Session{Showtime: late.Showtime, BusinessDay: time.Date(2026, 11, 28, 0, 0, 0, 0, berlin)}
	if got := given.Day(); got != "2026-11-28" {
		t.Errorf("the ticketing system's business day %s not kept", got)
	}
}
