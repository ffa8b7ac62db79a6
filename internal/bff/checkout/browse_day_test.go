package checkout

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
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

// TestWhatsOnDay: a day asked for is one the listing offers, from today (the cinema's evening)
// for whatsOnDays days; anything else is today, and says so.
func TestWhatsOnDay(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	today := time.Date(2026, 11, 27, 0, 0, 0, 0, berlin)
	for _, tc := range []struct {
		asked  string
		want   string
		wantOK bool
	}{
		{"", "2026-11-27", true},
		{"2026-11-27", "2026-11-27", true},
		{"2026-11-30", "2026-11-30", true}, // the last of the four days
		{"2026-12-01", "2026-11-27", false},
		{"2026-11-26", "2026-11-27", false},
		{"27.11.2026", "2026-11-27", false},
		{"2026-02-30", "2026-11-27", false},
	} {
		t.Run(tc.asked, func(t *testing.T) {
			day, ok := whatsOnDay(tc.asked, today, berlin)
			if got := day.Format("2006-01-02"); got != tc.want || ok != tc.wantOK || day.Location() != berlin {
				t.Errorf("whatsOnDay(%q) = %s (%v), %v; want %s, %v", tc.asked, got, day.Location(), ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestWhatsOnCinema: What's on shows the cinema asked for, else the device's own, else the
// first; a kiosk shows its own cinema only, whatever is asked, and offers no other.
func TestWhatsOnCinema(t *testing.T) {
	cinemas := []cinema.Cinema{{ID: "0001"}, {ID: "0002"}, {ID: "0003"}}
	for _, tc := range []struct {
		name      string
		here      string
		kiosk     bool
		asked     string
		want      string
		wantFixed bool
		wantKnown bool
	}{
		{"nothing asked, no device", "", false, "", "0001", false, true},
		{"nothing asked, a counter's cinema", "0002", false, "", "0002", false, true},
		{"another asked at a counter", "0002", false, "0003", "0003", false, true},
		{"an unknown one asked", "", false, "9999", "0001", false, false},
		{"an unknown one asked at a counter", "0002", false, "9999", "0002", false, false},
		{"a kiosk's own", "0002", true, "", "0002", true, true},
		{"another asked at a kiosk", "0002", true, "0003", "0002", true, true},
		{"a kiosk of a cinema not listed", "0009", true, "0003", "0003", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cin, fixed, known := whatsOnCinema(cinemas, tc.here, tc.kiosk, tc.asked)
			if cin.ID != tc.want || fixed != tc.wantFixed || known != tc.wantKnown {
				t.Errorf("whatsOnCinema = %s, fixed %v, known %v; want %s, %v, %v", cin.ID, fixed, known, tc.want, tc.wantFixed, tc.wantKnown)
			}
		})
	}
}

// TestTicketQuantities: an empty count is nothing; a count that is no whole number from 0 to
// MaxTicketsPerOrder is marked (and asks for nothing); a package takes its seats.
func TestTicketQuantities(t *testing.T) {
	types := []cinema.TicketType{{Code: "ADULT"}, {Code: "CHILD"}, {Code: "FAMILY", PackageSize: 4}, {Code: "SENIOR"}}
	for _, tc := range []struct {
		name        string
		typed       map[string]string
		wantPlaces  int
		wantReq     int
		wantInvalid []string
	}{
		{"nothing typed", map[string]string{}, 0, 0, nil},
		{"zeros", map[string]string{"ADULT": "0", "CHILD": " 0 "}, 0, 0, nil},
		{"two and one", map[string]string{"ADULT": " 2", "CHILD": "1"}, 3, 2, nil},
		{"a package", map[string]string{"FAMILY": "1", "ADULT": "1"}, 5, 2, nil},
		{"not a number", map[string]string{"ADULT": "two", "CHILD": "1"}, 1, 1, []string{"ADULT"}},
		{"negative", map[string]string{"ADULT": "-1"}, 0, 0, []string{"ADULT"}},
		{"too many", map[string]string{"SENIOR": strconv.Itoa(visit.MaxTicketsPerOrder + 1)}, 0, 0, []string{"SENIOR"}},
		{"the most", map[string]string{"SENIOR": strconv.Itoa(visit.MaxTicketsPerOrder)}, visit.MaxTicketsPerOrder, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := ticketQuantities(types, func(code string) string { return tc.typed[code] })
			var invalid []string
			for _, ty := range types {
				if q.invalid[ty.Code] {
					invalid = append(invalid, ty.Code)
				}
				if q.typed[ty.Code] != strings.TrimSpace(tc.typed[ty.Code]) {
					t.Errorf("typed[%s] = %q, want %q kept", ty.Code, q.typed[ty.Code], strings.TrimSpace(tc.typed[ty.Code]))
				}
			}
			if q.places != tc.wantPlaces || len(q.req) != tc.wantReq || !slices.Equal(invalid, tc.wantInvalid) {
				t.Errorf("places %d, %d requests, invalid %v; want %d, %d, %v", q.places, len(q.req), invalid, tc.wantPlaces, tc.wantReq, tc.wantInvalid)
			}
		})
	}
}
