package applepass

import (
	"strings"
	"testing"
)

func TestParseLocations(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    map[string]Location
		wantErr string
	}{
		{"", map[string]Location{}, ""},
		{" 0001=52.5219:13.4132 , 0002=51.5136:-0.1365,", map[string]Location{"0001": {Latitude: 52.5219, Longitude: 13.4132}, "0002": {Latitude: 51.5136, Longitude: -0.1365}}, ""},
		{"0001=52.5219", nil, "want CINEMA=LATITUDE:LONGITUDE"},
		{"=52.5:13.4", nil, "want CINEMA=LATITUDE:LONGITUDE"},
		{"0001=north:13.4", nil, "latitude -90 to 90"},
		{"0001=91:13.4", nil, "latitude -90 to 90"},
		{"0001=52:181", nil, "longitude -180 to 180"},
		{"0001=52:13,0001=53:14", nil, "named twice"},
	} {
		got, err := ParseLocations(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%q: %v, %v", tc.in, got, err)
			continue
		}
		for id, l := range tc.want {
			if got[id] != l {
				t.Errorf("%q: cinema %s at %v, want %v", tc.in, id, got[id], l)
			}
		}
	}
}
