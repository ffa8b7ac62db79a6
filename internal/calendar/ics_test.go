package calendar

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// prop is one content line read back: NAME;PARAM=V:value, the value unescaped for TEXT.
type prop struct {
	Name   string
	Params map[string]string
	Value  string
}

// component is a BEGIN…END block read back.
type component struct {
	Name  string
	Props []prop
	Subs  []*component
}

func (c *component) get(name string) (prop, bool) {
	for _, p := range c.Props {
		if p.Name == name {
			return p, true
		}
	}
	return prop{}, false
}

func (c *component) value(t *testing.T, name string) string {
	t.Helper()
	p, ok := c.get(name)
	if !ok {
		t.Fatalf("%s has no %s", c.Name, name)
	}
	return p.Value
}

func (c *component) sub(name string) []*component {
	var out []*component
	for _, s := range c.Subs {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Parse reads an iCalendar stream the way a strict client would, failing on what RFC 5545
// forbids: a line not ended by CRLF, a physical line over 75 octets, a fold inside a UTF-8
// sequence, unbalanced BEGIN/END, a bad escape.
func Parse(t *testing.T, raw []byte) *component {
	t.Helper()
	s := string(raw)
	if !strings.HasSuffix(s, "\r\n") {
		t.Fatalf("the file does not end with CRLF")
	}
	physical := strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n")
	var logical []string
	for i, ln := range physical {
		if strings.ContainsAny(ln, "\r\n") {
			t.Fatalf("line %d has a bare CR or LF: %q", i+1, ln)
		}
		if len(ln) > 75 {
			t.Errorf("line %d has %d octets: %q", i+1, len(ln), ln)
		}
		if !utf8.ValidString(ln) {
			t.Errorf("line %d is not UTF-8 on its own (folded inside a character): %q", i+1, ln)
		}
		if strings.HasPrefix(ln, " ") || strings.HasPrefix(ln, "\t") {
			if len(logical) == 0 {
				t.Fatalf("the file begins with a continuation")
			}
			logical[len(logical)-1] += ln[1:]
			continue
		}
		logical = append(logical, ln)
	}
	var stack []*component
	var root *component
	for _, ln := range logical {
		p := parseLine(t, ln)
		switch p.Name {
		case "BEGIN":
			c := &component{Name: p.Value}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.Subs = append(top.Subs, c)
			} else if root != nil {
				t.Fatalf("a second top-level component %s", p.Value)
			} else {
				root = c
			}
			stack = append(stack, c)
		case "END":
			if len(stack) == 0 || stack[len(stack)-1].Name != p.Value {
				t.Fatalf("END:%s does not close the open component", p.Value)
			}
			stack = stack[:len(stack)-1]
		default:
			if len(stack) == 0 {
				t.Fatalf("property %s outside a component", p.Name)
			}
			top := stack[len(stack)-1]
			top.Props = append(top.Props, p)
		}
	}
	if len(stack) != 0 || root == nil || root.Name != "VCALENDAR" {
		t.Fatalf("not one complete VCALENDAR")
	}
	return root
}

func parseLine(t *testing.T, ln string) prop {
	t.Helper()
	// The value begins at the first colon outside a quoted parameter value.
	quoted, colon := false, -1
	for i, r := range ln {
		if r == '"' {
			quoted = !quoted
		}
		if r == ':' && !quoted {
			colon = i
			break
		}
	}
	if colon < 0 {
		t.Fatalf("line without a value: %q", ln)
	}
	head, value := ln[:colon], ln[colon+1:]
	parts := strings.Split(head, ";")
	p := prop{Name: strings.ToUpper(parts[0]), Params: map[string]string{}}
	for _, par := range parts[1:] {
		k, v, ok := strings.Cut(par, "=")
		if !ok {
			t.Fatalf("bad parameter %q in %q", par, ln)
		}
		p.Params[strings.ToUpper(k)] = strings.Trim(v, `"`)
	}
	switch p.Name {
	case "SUMMARY", "LOCATION", "DESCRIPTION", "UID", "TZNAME":
		p.Value = unescape(t, value)
	default:
		p.Value = value
	}
	return p
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ',' || c == ';' {
			t.Errorf("unescaped %q in TEXT %q", c, s)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			t.Fatalf("TEXT ends in a backslash: %q", s)
		}
		switch s[i] {
		case '\\', ';', ',':
			b.WriteByte(s[i])
		case 'n', 'N':
			b.WriteByte('\n')
		default:
			t.Errorf("bad escape \\%c in %q", s[i], s)
		}
	}
	return b.String()
}

// resolve reads DTSTART/DTEND with its TZID through the file's own VTIMEZONE, the way a client
// without Go's zone database would: the offset of the latest observance begun before it.
func resolve(t *testing.T, cal *component, p prop) time.Time {
	t.Helper()
	if strings.HasSuffix(p.Value, "Z") {
		at, err := time.Parse("20060102T150405Z", p.Value)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	local, err := time.Parse(localLayout, p.Value)
	if err != nil {
		t.Fatalf("%s %q: %v", p.Name, p.Value, err)
	}
	var zone *component
	for _, z := range cal.sub("VTIMEZONE") {
		if z.value(t, "TZID") == p.Params["TZID"] {
			zone = z
		}
	}
	if zone == nil {
		t.Fatalf("no VTIMEZONE for TZID %q", p.Params["TZID"])
	}
	type obs struct {
		onset time.Time
		to    time.Duration
	}
	var all []obs
	for _, o := range zone.Subs {
		start, err := time.Parse(localLayout, o.value(t, "DTSTART"))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, obs{onset: start.Add(-parseOffset(t, o.value(t, "TZOFFSETFROM"))), to: parseOffset(t, o.value(t, "TZOFFSETTO"))})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].onset.Before(all[j].onset) })
	for i := len(all) - 1; i >= 0; i-- {
		if at := local.Add(-all[i].to); !at.Before(all[i].onset) {
			return at
		}
	}
	t.Fatalf("%s %s is before every observance", p.Name, p.Value)
	return time.Time{}
}

func parseOffset(t *testing.T, s string) time.Duration {
	t.Helper()
	var h, m, sec int
	if len(s) != 5 && len(s) != 7 {
		t.Fatalf("bad UTC offset %q", s)
	}
	fmt.Sscanf(s[1:3], "%d", &h)
	fmt.Sscanf(s[3:5], "%d", &m)
	if len(s) == 7 {
		fmt.Sscanf(s[5:7], "%d", &sec)
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second
	if s[0] == '-' {
		d = -d
	}
	return d
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("zone %s not available: %v", name, err)
	}
	return loc
}

func TestWriteZones(t *testing.T) {
	stamp := time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC)
	type obs struct{ kind, start, from, to, name string }
	cases := []struct {
		name      string
		zone      string
		local     string // the show's start in the zone, as DTSTART writes it
		run       time.Duration
		wantEnd   string
		wantInZon []obs // observances that must be in the VTIMEZONE
	}{
		{name: "Berlin in summer", zone: "Europe/Berlin", local: "20260710T203000", run: 118 * time.Minute, wantEnd: "20260710T222800",
			wantInZon: []obs{{"DAYLIGHT", "20260329T020000", "+0100", "+0200", "CEST"}, {"STANDARD", "20261025T030000", "+0200", "+0100", "CET"}}},
		{name: "Berlin in winter", zone: "Europe/Berlin", local: "20261224T170000", run: 95 * time.Minute, wantEnd: "20261224T183500",
			wantInZon: []obs{{"STANDARD", "20261025T030000", "+0200", "+0100", "CET"}, {"DAYLIGHT", "20270328T020000", "+0100", "+0200", "CEST"}}},
		{name: "Berlin across the end of summer time", zone: "Europe/Berlin", local: "20261025T013000", run: 2 * time.Hour, wantEnd: "20261025T023000",
			wantInZon: []obs{{"STANDARD", "20261025T030000", "+0200", "+0100", "CET"}}},
		{name: "London in summer", zone: "Europe/London", local: "20260801T193000", run: 131 * time.Minute, wantEnd: "20260801T214100",
			wantInZon: []obs{{"DAYLIGHT", "20260329T010000", "+0000", "+0100", "BST"}, {"STANDARD", "20261025T020000", "+0100", "+0000", "GMT"}}},
		{name: "London in winter", zone: "Europe/London", local: "20260115T200000", run: 84 * time.Minute, wantEnd: "20260115T212400",
			wantInZon: []obs{{"STANDARD", "20251026T020000", "+0100", "+0000", "GMT"}, {"DAYLIGHT", "20260329T010000", "+0000", "+0100", "BST"}}},
		{name: "a zone without summer time", zone: "Asia/Tokyo", local: "20260710T203000", run: time.Hour, wantEnd: "20260710T213000",
			wantInZon: []obs{{"STANDARD", "20250101T090000", "+0900", "+0900", "JST"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loc := mustZone(t, tc.zone)
			l, _ := time.Parse(localLayout, tc.local)
			start := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), 0, 0, loc)
			raw := Write(Event{UID: "booking-0001-100002@cinema.example", Sequence: 2, Stamp: stamp, Start: start, End: start.Add(tc.run),
				Zone: loc, Summary: "The Last Projectionist"})
			cal := Parse(t, raw)
			for _, want := range []string{"VERSION", "PRODID", "METHOD"} {
				if _, ok := cal.get(want); !ok {
					t.Errorf("VCALENDAR has no %s", want)
				}
			}
			if got := cal.value(t, "METHOD"); got != "PUBLISH" {
				t.Errorf("METHOD = %s", got)
			}
			ev := cal.sub("VEVENT")
			if len(ev) != 1 {
				t.Fatalf("%d VEVENTs", len(ev))
			}
			e := ev[0]
			ds, _ := e.get("DTSTART")
			if ds.Params["TZID"] != tc.zone || ds.Value != tc.local {
				t.Errorf("DTSTART = %+v, want TZID=%s:%s", ds, tc.zone, tc.local)
			}
			de, _ := e.get("DTEND")
			if de.Params["TZID"] != tc.zone || de.Value != tc.wantEnd {
				t.Errorf("DTEND = %+v, want TZID=%s:%s", de, tc.zone, tc.wantEnd)
			}
			// Read through the file's own VTIMEZONE, both are the right instants.
			if got := resolve(t, cal, ds); !got.Equal(start) {
				t.Errorf("DTSTART resolves to %v, want %v", got, start.UTC())
			}
			if got := resolve(t, cal, de); !got.Equal(start.Add(tc.run)) {
				t.Errorf("DTEND resolves to %v, want %v", got, start.Add(tc.run).UTC())
			}
			if got := e.value(t, "DTSTAMP"); got != "20261126T230000Z" {
				t.Errorf("DTSTAMP = %s", got)
			}
			if got := e.value(t, "SEQUENCE"); got != "2" {
				t.Errorf("SEQUENCE = %s", got)
			}
			zones := cal.sub("VTIMEZONE")
			if len(zones) != 1 {
				t.Fatalf("%d VTIMEZONEs", len(zones))
			}
			for _, w := range tc.wantInZon {
				found := false
				for _, o := range zones[0].Subs {
					if o.Name == w.kind && o.value(t, "DTSTART") == w.start && o.value(t, "TZOFFSETFROM") == w.from &&
						o.value(t, "TZOFFSETTO") == w.to && o.value(t, "TZNAME") == w.name {
						found = true
					}
				}
				if !found {
					t.Errorf("VTIMEZONE lacks %+v:\n%s", w, raw)
				}
			}
		})
	}
}

func TestWriteUTC(t *testing.T) {
	start := time.Date(2026, 7, 10, 18, 30, 0, 0, time.UTC)
	cal := Parse(t, Write(Event{UID: "u@x", Start: start, End: start.Add(time.Hour), Summary: "Film"}))
	if len(cal.sub("VTIMEZONE")) != 0 {
		t.Errorf("a UTC event has a VTIMEZONE")
	}
	e := cal.sub("VEVENT")[0]
	if got := e.value(t, "DTSTART"); got != "20260710T183000Z" {
		t.Errorf("DTSTART = %s", got)
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{`back\slash`, `back\\slash`},
		{"a;b,c", `a\;b\,c`},
		{"line\nbreak", `line\nbreak`},
		{"crlf\r\nbreak", `crlf\nbreak`},
		{"Lumière Cinemas, Saal 1; Reihe F", `Lumière Cinemas\, Saal 1\; Reihe F`},
		{"tab\tkept, bell\a dropped", `tab` + "\t" + `kept\, bell dropped`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldingAndRoundTrip(t *testing.T) {
	loc := mustZone(t, "Europe/Berlin")
	start := time.Date(2026, 3, 29, 20, 0, 0, 0, loc)
	long := strings.Repeat("Grüße aus dem Kino, Reihe F; Platz 7 – ", 8) + `C:\path` + "\nzweite Zeile"
	for _, tc := range []struct{ name, summary, description string }{
		{"ascii at the limit", strings.Repeat("x", 67), "short"}, // "SUMMARY:" + 67 = 75 octets: no fold
		{"one octet over", strings.Repeat("x", 68), "short"},
		{"multibyte at the fold", strings.Repeat("ü", 60), long},
		{"emoji", strings.Repeat("🎬", 40), "🍿"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := Write(Event{UID: "booking-0001-100002@cinema.example", Stamp: start, Start: start, End: start.Add(time.Hour), Zone: loc,
				Summary: tc.summary, Location: "Lumière Cinemas", Description: tc.description})
			cal := Parse(t, raw) // checks every physical line: ≤ 75 octets, CRLF, whole characters
			e := cal.sub("VEVENT")[0]
			if got := e.value(t, "SUMMARY"); got != tc.summary {
				t.Errorf("SUMMARY read back = %q, want %q", got, tc.summary)
			}
			if got := e.value(t, "DESCRIPTION"); got != tc.description {
				t.Errorf("DESCRIPTION read back = %q, want %q", got, tc.description)
			}
			folded := strings.Contains(string(raw), "SUMMARY:"+tc.summary+"\r\n")
			if wantFold := len("SUMMARY:"+tc.summary) > 75; folded == wantFold {
				t.Errorf("SUMMARY of %d octets folded=%v", len("SUMMARY:"+tc.summary), !folded)
			}
		})
	}
}

func TestForBooking(t *testing.T) {
	cat, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	berlin := cinema.Cinema{ID: "0001", Name: "Lumière Cinemas Mitte", TimeZone: "Europe/Berlin"}
	loc := mustZone(t, "Europe/Berlin")
	show := time.Date(2026, 12, 1, 20, 15, 0, 0, loc)
	b := cinema.Booking{Number: 100002, CinemaID: "0001", Session: cinema.SessionInfo{FilmTitle: "Paper Moons", Showtime: show, ScreenName: "Screen 2"},
		Tickets: []cinema.BookedTicket{{Seq: 1, Seat: &cinema.SeatRef{RowLabel: "F", Label: "7"}}, {Seq: 2, Seat: &cinema.SeatRef{RowLabel: "F", Label: "8"}}}}
	for _, tc := range []struct {
		lang, desc string
		run        time.Duration
		end        string
	}{
		{"en", "Booking 100002\nScreen: Screen 2\nSeats: Row F, seat 7; Row F, seat 8", 95 * time.Minute, "20261201T215000"},
		{"de", "Buchung 100002\nSaal: Screen 2\nPlätze: Reihe F, Platz 7; Reihe F, Platz 8", 0, "20261201T221500"}, // no run time: DefaultRunTime
	} {
		t.Run(tc.lang, func(t *testing.T) {
			ev := ForBooking(cat.ForCode(tc.lang), Booking{Booking: b, Cinema: berlin, RunTime: tc.run, Sequence: 1, Domain: "tickets.example", Stamp: show})
			cal := Parse(t, Write(ev))
			e := cal.sub("VEVENT")[0]
			if got := e.value(t, "UID"); got != "booking-0001-100002@tickets.example" {
				t.Errorf("UID = %s", got)
			}
			if got := e.value(t, "DESCRIPTION"); got != tc.desc {
				t.Errorf("DESCRIPTION = %q, want %q", got, tc.desc)
			}
			if got := e.value(t, "LOCATION"); got != "Lumière Cinemas Mitte" {
				t.Errorf("LOCATION = %q", got)
			}
			if got := e.value(t, "SUMMARY"); got != "Paper Moons" {
				t.Errorf("SUMMARY = %q", got)
			}
			if got, _ := e.get("DTSTART"); got.Value != "20261201T201500" || got.Params["TZID"] != "Europe/Berlin" {
				t.Errorf("DTSTART = %+v", got)
			}
			if got := e.value(t, "DTEND"); got != tc.end {
				t.Errorf("DTEND = %s, want %s", got, tc.end)
			}
		})
	}
	if got := UID("0001", 100002, ""); got != "booking-0001-100002@"+DefaultDomain {
		t.Errorf("UID without a domain = %s", got)
	}
}
