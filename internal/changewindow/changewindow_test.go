package changewindow

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestPolicyOpen(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	show := time.Date(2026, 5, 8, 20, 0, 0, 0, berlin) // 18:00 UTC
	p := Policy{Default: 30 * time.Minute, PerCinema: map[string]time.Duration{"0001": 2 * time.Hour, "0003": 0}}
	tests := []struct {
		name     string
		now      time.Time
		cinema   string
		showtime time.Time
		staff    bool
		open     bool
		closes   time.Time
	}{
		{"default: well before", show.Add(-31 * time.Minute), "0002", show, false, true, show.Add(-30 * time.Minute)},
		{"default: a second before the cut-off", show.Add(-30*time.Minute - time.Second), "0002", show, false, true, show.Add(-30 * time.Minute)},
		{"default: at the cut-off it is closed", show.Add(-30 * time.Minute), "0002", show, false, false, show.Add(-30 * time.Minute)},
		{"default: 20 minutes before", show.Add(-20 * time.Minute), "0002", show, false, false, show.Add(-30 * time.Minute)},
		{"per cinema: 2h, 90 minutes before is closed", show.Add(-90 * time.Minute), "0001", show, false, false, show.Add(-2 * time.Hour)},
		{"per cinema: 2h, 3 hours before is open", show.Add(-3 * time.Hour), "0001", show, false, true, show.Add(-2 * time.Hour)},
		{"per cinema: 0 keeps open until the start", show.Add(-time.Minute), "0003", show, false, true, show},
		{"staff: 20 minutes before is open", show.Add(-20 * time.Minute), "0002", show, true, true, show},
		{"staff: a cinema's cut-off does not apply", show.Add(-time.Minute), "0001", show, true, true, show},
		{"staff: at the start it is closed", show, "0002", show, true, false, show},
		{"staff: after the start", show.Add(10 * time.Minute), "0002", show, true, false, show},
		{"instants, not wall clocks: now in UTC", time.Date(2026, 5, 8, 17, 29, 0, 0, time.UTC), "0002", show, false, true, show.Add(-30 * time.Minute)},
		{"instants, not wall clocks: 17:31 UTC is 19:31 in Berlin", time.Date(2026, 5, 8, 17, 31, 0, 0, time.UTC), "0002", show, false, false, show.Add(-30 * time.Minute)},
		{"unknown showtime: open, the upstream decides", show, "0002", time.Time{}, false, true, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Open(tc.now, tc.cinema, tc.showtime, tc.staff); got != tc.open {
				t.Errorf("Open = %v, want %v", got, tc.open)
			}
			if got := p.Closes(tc.cinema, tc.showtime, tc.staff); !got.Equal(tc.closes) {
				t.Errorf("Closes = %v, want %v", got, tc.closes)
			}
		})
	}
}

func TestDefaultAndZeroPolicy(t *testing.T) {
	show := time.Date(2026, 5, 8, 18, 0, 0, 0, time.UTC)
	if got := Default().Cutoff("0001"); got != 30*time.Minute {
		t.Fatalf("default cut-off %s", got)
	}
	if Default().Open(show.Add(-29*time.Minute), "0001", show, false) {
		t.Fatal("default policy open 29 minutes before the show")
	}
	if !(Policy{}).Open(show.Add(-time.Second), "0001", show, false) || (Policy{}).Open(show, "0001", show, false) {
		t.Fatal("the zero policy must close exactly at the start")
	}
}

func TestParsePerCinema(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]time.Duration
		wantErr string
	}{
		{"", nil, ""},
		{"  ", nil, ""},
		{"0001=2h", map[string]time.Duration{"0001": 2 * time.Hour}, ""},
		{"0001=2h,0002=45m", map[string]time.Duration{"0001": 2 * time.Hour, "0002": 45 * time.Minute}, ""},
		{" 0001 = 2h , 0002=0 ,", map[string]time.Duration{"0001": 2 * time.Hour, "0002": 0}, ""},
		{"0001", nil, "want CINEMA=DURATION"},
		{"=2h", nil, "want CINEMA=DURATION"},
		{"0001=", nil, "want CINEMA=DURATION"},
		{"0001=2 hours", nil, "is not a duration"},
		{"0001=-5m", nil, "must not be negative"},
		{"0001=2h,0001=1h", nil, "named twice"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParsePerCinema(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		p       Policy
		wantErr bool
	}{
		{Default(), false},
		{Policy{}, false},
		{Policy{Default: -time.Minute}, true},
		{Policy{Default: time.Hour, PerCinema: map[string]time.Duration{"0001": -time.Second}}, true},
	}
	for _, tc := range tests {
		if err := tc.p.Validate(); (err != nil) != tc.wantErr {
			t.Errorf("%+v: err = %v", tc.p, err)
		}
	}
}
