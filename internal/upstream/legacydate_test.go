package upstream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseLegacyDate(t *testing.T) {
	tests := []struct {
		in         string
		wantUnixMS int64
		wantOffset int // seconds east of UTC
		wantUTC    bool
	}{
		{"/Date(946641661000+1300)/", 946641661000, 13 * 3600, false},
		{"/Date(946641661000)/", 946641661000, 0, true},
		{"/Date(946641661000-0530)/", 946641661000, -(5*3600 + 30*60), false},
		{"/Date(946641661000+0000)/", 946641661000, 0, false},
		{"/Date(0)/", 0, 0, true},
		{"/Date(-86400000)/", -86400000, 0, true},
		{"/Date(-86400000+0100)/", -86400000, 3600, false},
		{"/Date(1795000000123)/", 1795000000123, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLegacyDate(tt.in)
			if err != nil {
				t.Fatalf("ParseLegacyDate(%q): %v", tt.in, err)
			}
			if got.UnixMilli() != tt.wantUnixMS {
				t.Errorf("instant = %d ms, want %d", got.UnixMilli(), tt.wantUnixMS)
			}
			_, off := got.Zone()
			if off != tt.wantOffset {
				t.Errorf("offset = %d, want %d", off, tt.wantOffset)
			}
			if (got.Location() == time.UTC) != tt.wantUTC {
				t.Errorf("location = %v, want UTC %v", got.Location(), tt.wantUTC)
			}
			if back := FormatLegacyDate(got); back != tt.in {
				t.Errorf("FormatLegacyDate = %q, want %q", back, tt.in)
			}
		})
	}
}

func TestParseLegacyDateOffsetSetsWallClock(t *testing.T) {
	// 946641661000 ms is 1999-12-31T12:01:01Z; +1300 shows 2000-01-01 01:01:01.
	got, err := ParseLegacyDate("/Date(946641661000+1300)/")
	if err != nil {
		t.Fatal(err)
	}
	if s := got.Format("2006-01-02 15:04:05 -0700"); s != "2000-01-01 01:01:01 +1300" {
		t.Errorf("wall clock %q", s)
	}
	if !got.Equal(time.Date(1999, 12, 31, 12, 1, 1, 0, time.UTC)) {
		t.Errorf("instant %v", got.UTC())
	}
}

func TestParseLegacyDateRejects(t *testing.T) {
	for _, in := range []string{
		"", "/Date()/", "/Date(abc)/", "Date(1000)", "/Date(1000)", "/Date(1000+13)/", "/Date(1000+2400)/",
		"/Date(1000+0060)/", "/Date(+1000)/", "/Date(-)/", "/Date(1000+12a0)/", "2026-11-22T19:30:00Z",
		"/Date(99999999999999999999)/", "/Date(1000+0100+0100)/",
	} {
		if _, err := ParseLegacyDate(in); err == nil {
			t.Errorf("ParseLegacyDate(%q) accepted", in)
		}
	}
}

func TestLegacyDateJSON(t *testing.T) {
	type doc struct {
		D legacyDate `json:"D"`
	}
	// Escaped slashes, as the upstream writes them, and plain ones.
	for _, in := range []string{`{"D":"\/Date(946641661000+1300)\/"}`, `{"D":"/Date(946641661000+1300)/"}`} {
		var d doc
		if err := json.Unmarshal([]byte(in), &d); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if d.D.UnixMilli() != 946641661000 {
			t.Errorf("%s: got %v", in, d.D.Time)
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != `{"D":"\/Date(946641661000+1300)\/"}` {
			t.Errorf("encoded %s", out)
		}
	}
	for _, in := range []string{`{"D":null}`, `{"D":""}`, `{}`} {
		var d doc
		if err := json.Unmarshal([]byte(in), &d); err != nil || !d.D.IsZero() {
			t.Errorf("%s: %v %v", in, d.D.Time, err)
		}
	}
	for _, in := range []string{`{"D":5}`, `{"D":"soon"}`, `{"D":true}`} {
		var d doc
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	out, _ := json.Marshal(doc{})
	if string(out) != `{"D":null}` {
		t.Errorf("zero encodes as %s", out)
	}
}

func TestISOTime(t *testing.T) {
	type doc struct {
		T isoTime `json:"T"`
	}
	want := time.Date(2026, 11, 22, 19, 30, 0, 0, time.UTC)
	for _, in := range []string{"2026-11-22T19:30:00Z", "2026-11-22T20:30:00+01:00", "2026-11-22T19:30:00", "2026-11-22T19:30:00.000Z"} {
		var d doc
		if err := json.Unmarshal([]byte(`{"T":"`+in+`"}`), &d); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !d.T.Equal(want) {
			t.Errorf("%s: got %v", in, d.T.Time)
		}
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"T":"yesterday"}`), &d); err == nil {
		t.Error("bad timestamp accepted")
	}
}

func FuzzParseLegacyDate(f *testing.F) {
	for _, s := range []string{
		"/Date(946641661000+1300)/", "/Date(946641661000)/", "/Date(-1-0000)/", "/Date(0+2359)/",
		"/Date(9223372036854775807)/", "/Date(-9223372036854775808+0100)/", "/Date(", ")/", "/Date(1+)/", "",
	} {
		f.Add(s)
	}
	// Every legacy date of the golden bodies.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\\?/Date\([^)]*\)\\?/`).FindAll(b, -1) {
			f.Add(strings.ReplaceAll(string(m), `\/`, "/"))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseLegacyDate(s)
		if err != nil {
			return
		}
		// Whatever parses formats back to something that parses to the same instant and offset.
		again, err := ParseLegacyDate(FormatLegacyDate(got))
		if err != nil {
			t.Fatalf("round trip of %q: %v", s, err)
		}
		_, o1 := got.Zone()
		_, o2 := again.Zone()
		if !again.Equal(got) || o1 != o2 {
			t.Fatalf("round trip of %q: %v != %v", s, again, got)
		}
		// And the JSON form decodes too.
		var d legacyDate
		b, _ := json.Marshal(legacyDate{got})
		if got.IsZero() {
			return
		}
		if err := json.Unmarshal(b, &d); err != nil || !d.Equal(got) {
			t.Fatalf("JSON round trip of %q (%s): %v", s, b, err)
		}
		if !strings.Contains(string(b), `\/Date(`) {
			t.Fatalf("not escaped: %s", b)
		}
	})
}
