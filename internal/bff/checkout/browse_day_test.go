package checkout

import (
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

func TestWhatsOnOpensAtTheFirstDayWithAShowToCome(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(day, clock string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", day+" "+clock, berlin)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// 05:52 on Saturday: the night of Friday is still "today".
	today, now := at("2026-11-27", "00:00"), at("2026-11-28", "05:52")
	for _, tc := range []struct {
		name     string
		sessions map[string][]cinema.Session
		want     string
	}{
		{"the night's late show is still to come", map[string][]cinema.Session{
			"2026-11-27": {{Showtime: at("2026-11-28", "05:55"), OnSale: true}},
			"2026-11-28": {{Showtime: at("2026-11-28", "14:00"), OnSale: true}},
		}, "2026-11-27"},
		{"the night's shows have all begun", map[string][]cinema.Session{
			"2026-11-27": {{Showtime: at("2026-11-28", "00:10"), OnSale: true}},
			"2026-11-28": {{Showtime: at("2026-11-28", "14:00"), OnSale: true}},
		}, "2026-11-28"},
		{"the next show not sold online", map[string][]cinema.Session{
			"2026-11-28": {{Showtime: at("2026-11-28", "14:00"), OnSale: false}},
			"2026-11-29": {{Showtime: at("2026-11-29", "20:30"), OnSale: true}},
		}, "2026-11-29"},
		{"nothing in the days offered", map[string][]cinema.Session{
			"2026-12-05": {{Showtime: at("2026-12-05", "20:30"), OnSale: true}},
		}, "2026-11-27"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := firstDayWithShows(func(day string) []cinema.Session { return tc.sessions[day] }, today, now)
			if got.Format("2006-01-02") != tc.want {
				t.Errorf("opens at %s, want %s", got.Format("2006-01-02"), tc.want)
			}
		})
	}
}
