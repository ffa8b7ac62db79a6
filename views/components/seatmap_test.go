package components

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// testArea is one area of a test plan, rows written as in the sandbox fixtures: s seat,
// . gap, W wheelchair space, c companion, h house seat, x broken, [ ] sofa left / right,
// t a taken seat; a row named "" with no seats is a cross aisle.
type testArea struct {
	number   int
	category string
	name     string
	rows     [][2]string
}

// largePlan is the sandbox's Saal 1: 412 places, two aisles, a cross aisle, wheelchair
// spaces, companions, house and broken seats, sofas.
func largePlan() cinema.SeatPlan {
	std := "sssss..ssssssssssssss..sssss"
	stalls := testArea{1, "0000000001", "Stalls", [][2]string{{"A", "WcWcs..ssssssssssssss..scWcW"}, {"B", std}, {"C", std}, {"D", std},
		{"E", "sssss..sssssssssttsss..sssss"}, {"F", std}, {"G", std}, {"", ""},
		{"H", "sssss..ssssshhhhsssss..sssss"}, {"J", std}, {"K", "sssss..ssssssssssssss..ssxss"}, {"L", std}, {"M", std}, {"N", std}}}
	lounge := testArea{2, "0000000002", "Premium Lounge", [][2]string{{"P", "ssss.ssssssssssss.ssss"}, {"Q", "ssss.ssssssssssss.ssss"},
		{"R", "[].[][][][][][][][].[]"}, {"S", "[].[][][][][][][][].[]"}, {"T", "[].[][][][][][][][].[]"}}}
	return testPlan(stalls, lounge)
}

func testPlan(areas ...testArea) cinema.SeatPlan {
	plan := cinema.SeatPlan{CinemaID: "0001", SessionID: "1113", AreaCategories: []cinema.AreaCategory{
		{Code: "0000000001", Description: "Standard"}, {Code: "0000000002", Description: "Premium", InSeatDelivery: true}}}
	for _, ta := range areas {
		a := cinema.Area{Number: ta.number, AreaCategoryCode: ta.category, Description: ta.name, AllocatedSeating: true}
		for ri, r := range ta.rows {
			row := cinema.Row{Label: r[0]}
			label := 0
			for ci, ch := range r[1] {
				if ch == '.' {
					continue
				}
				label++
				s := cinema.Seat{Position: cinema.SeatPosition{AreaNumber: ta.number, RowIndex: ri, ColumnIndex: ci},
					AreaCategoryCode: ta.category, RowLabel: r[0], Label: fmt.Sprint(label), Kind: cinema.SeatKindNormal, Availability: cinema.SeatFree}
				switch ch {
				case 'W':
					s.Kind = cinema.SeatKindWheelchair
				case 'c':
					s.Kind = cinema.SeatKindCompanion
				case 'h':
					s.Kind, s.Availability = cinema.SeatKindHouse, cinema.SeatUnavailable
				case 'x':
					s.Kind, s.Availability = cinema.SeatKindBroken, cinema.SeatUnavailable
				case 't':
					s.Availability = cinema.SeatTaken
				case '[':
					s.SofaGroup = []cinema.SeatPosition{s.Position, {AreaNumber: ta.number, RowIndex: ri, ColumnIndex: ci + 1}}
				case ']':
					s.SofaGroup = []cinema.SeatPosition{{AreaNumber: ta.number, RowIndex: ri, ColumnIndex: ci - 1}, s.Position}
				}
				row.Seats = append(row.Seats, s)
				a.ColumnCount = max(a.ColumnCount, ci+1)
			}
			a.Rows = append(a.Rows, row)
		}
		a.RowCount = len(a.Rows)
		plan.Areas = append(plan.Areas, a)
	}
	return plan
}

func pos(area, row, col int) cinema.SeatPosition {
	return cinema.SeatPosition{AreaNumber: area, RowIndex: row, ColumnIndex: col}
}

// localizer is the catalogs' localizer of a language.
func localizer(t testing.TB, tag language.Tag) *i18n.Localizer {
	t.Helper()
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return c.For(tag)
}

// inLanguage is a context whose pages are written in tag.
func inLanguage(t testing.TB, tag language.Tag) context.Context {
	return i18n.NewContext(context.Background(), localizer(t, tag))
}

func renderDoc(t testing.TB, v SeatMapView) (*goquery.Document, string) {
	t.Helper()
	return renderDocIn(t, inLanguage(t, language.English), v)
}

func renderDocIn(t testing.TB, ctx context.Context, v SeatMapView) (*goquery.Document, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := SeatMap(v).Render(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, buf.String()
}

// swapOptions: F11 and F12 are the booking's own, E17/E18 are sold, G3 is already chosen,
// only Standard seats may be chosen.
func swapOptions() SeatMapOptions {
	return SeatMapOptions{Max: 2, Yours: []cinema.SeatPosition{pos(1, 5, 12), pos(1, 5, 13)},
		Chosen: []cinema.SeatPosition{pos(1, 6, 2)}, AreaCategories: []string{"0000000001"}}
}

func TestSeatMapEveryStateHasShapeNameAndLegend(t *testing.T) {
	doc, _ := renderDoc(t, BuildSeatMap(largePlan(), swapOptions()))
	// The person's own seats and the seats they tick are one state to the eye:
	// both are under the key's "selected" line, and there is no separate "yours" line.
	cases := []struct {
		key, seatSel, nameHas, legend string
	}{
		{"free", `label[class="seat"]`, ", free", "Free"},
		{"selected", `label.seat-selected`, ", free", "Your seats (ticked)"},
		{"taken", `label.seat-taken`, ", taken", "Taken"},
		{"yours", `span.seat-yours[role="img"]`, ", your seat", "Your seats (ticked)"},
		{"wheelchair", `label.seat-wheelchair`, "wheelchair space", "Wheelchair space"},
		{"companion", `label.seat-companion`, "companion seat", "Companion seat"},
		{"sofa", `label.seat-sofa-left`, "sofa for 2, left place", "Sofa for two"},
		{"sofa-right", `label.seat-sofa-right`, "sofa for 2, right place", "Sofa for two"},
		{"unavailable", `label.seat-unavailable`, "not available", "Not available"},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			seats := doc.Find(`[data-testid="seatmap"] ` + tc.seatSel)
			if seats.Length() == 0 {
				t.Fatalf("no seat matches %s", tc.seatSel)
			}
			seats.Each(func(_ int, s *goquery.Selection) {
				name, ok := s.Find("input").Attr("aria-label")
				if !ok {
					name, _ = s.Attr("aria-label")
				}
				if !strings.Contains(name, tc.nameHas) {
					t.Errorf("%s: name %q lacks %q", tc.seatSel, name, tc.nameHas)
				}
				if s.Find(`i[aria-hidden="true"]`).Length() != 1 {
					t.Errorf("%s: no glyph", name)
				}
			})
			key := strings.TrimSuffix(tc.key, "-right")
			if key == "yours" {
				key = "selected"
				if n := doc.Find(`[data-testid="legend-yours"]`).Length(); n != 0 {
					t.Errorf("%d separate legend lines for your seats", n)
				}
			}
			li := doc.Find(`[data-testid="legend-` + key + `"]`)
			if li.Length() != 1 || strings.TrimSpace(li.Text()) != tc.legend {
				t.Fatalf("legend %s: %d entries, text %q", key, li.Length(), li.Text())
			}
			if li.Find(`span.seat[aria-hidden="true"] > i`).Length() == 0 {
				t.Errorf("legend %s has no sample shape", key)
			}
		})
	}
	// House and broken seats say why they cannot be had.
	for _, want := range []string{"Row H, seat 11, standard, not available (kept by the cinema)", "Row K, seat 22, standard, not available (out of use)"} {
		if doc.Find(`input[aria-label="`+want+`"]`).Length() != 1 {
			t.Errorf("no seat named %q", want)
		}
	}
}

func TestSeatMapSeatNamesAndRowSummaries(t *testing.T) {
	plan := largePlan()
	doc, _ := renderDoc(t, BuildSeatMap(plan, swapOptions()))
	inputs := doc.Find(`[data-testid="seatmap"] label.seat input[type="checkbox"]`)
	if inputs.Length() != 410 {
		t.Fatalf("%d seat controls, want 412 less the booking's two", inputs.Length())
	}
	name := regexp.MustCompile(`^Row [A-Z], seat \d+(, (wheelchair space|companion seat|sofa for 2, (left|right) place))?, (standard|premium), (free|taken|not available.*)$`)
	inputs.Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("aria-label")
		if !name.MatchString(n) {
			t.Errorf("incomplete seat name %q", n)
		}
		v, _ := s.Attr("value")
		if _, ok := ParseSeatValue(v); !ok || s.AttrOr("name", "") != "seat" {
			t.Errorf("seat %q: value %q name %q", n, v, s.AttrOr("name", ""))
		}
	})
	// Example from the issue, exactly.
	if doc.Find(`input[aria-label="Row F, seat 10, standard, free"]`).Length() != 1 {
		t.Error("Row F, seat 10 not named as expected")
	}
	// The booking's own seats are drawn and named, but are not a choice (no control).
	if doc.Find(`span.seat.seat-yours[role="img"][aria-label="Row F, seat 11, standard, your seat"]`).Length() != 1 || doc.Find(`input[value="1-5-12"]`).Length() != 0 {
		t.Error("the booking's own seat F11 should be named and fixed")
	}
	// Premium seats cannot be chosen for Standard tickets, and say so.
	if doc.Find(`label.seat-unavailable input[aria-label="Row P, seat 1, premium, not available for these tickets (another seating area)"][disabled]`).Length() != 1 {
		t.Error("premium seat not marked as another area")
	}
	// Rows are groups named by their summary.
	row := doc.Find(`[data-testid="seat-row-1-E"]`)
	id, _ := row.Attr("aria-labelledby")
	if row.AttrOr("role", "") != "group" || strings.TrimSpace(doc.Find("#"+id).Find(".seat-row-sum").Text()) != "Row E, 22 of 24 free" {
		t.Errorf("row E summary: %q", doc.Find("#"+id).Text())
	}
	if got := doc.Find(`[data-testid="seatmap-area-2"] > legend`).Text(); got != "Premium Lounge · Premium (not for these tickets)" {
		t.Errorf("area legend %q", got)
	}
	// Taken and unavailable seats are disabled; free seats of the allowed area are not.
	if n := doc.Find(`label.seat-taken input:not([disabled]), label.seat-unavailable input:not([disabled])`).Length(); n != 0 {
		t.Errorf("%d taken/unavailable seats can be ticked", n)
	}
	if doc.Find(`label.seat-selected input[checked]`).Length() != 1 {
		t.Error("the chosen seat is not ticked")
	}
	if got := doc.Find(`[data-seat-count]`).Text(); got != "1 of 2 seats chosen" {
		t.Errorf("count %q", got)
	}
	if doc.Find(`.seatmap-scroll[role="region"][tabindex="0"][aria-label="Seat map"]`).Length() != 1 || doc.Find(`[data-testid="seatmap-screen"]`).Length() != 1 {
		t.Error("scroll region or screen marker missing")
	}
}

func TestSeatMapKeepsGapsAndAisles(t *testing.T) {
	doc, _ := renderDoc(t, BuildSeatMap(largePlan(), SeatMapOptions{}))
	for _, area := range []string{"1", "2"} {
		var width = -1
		doc.Find(`[data-testid="seatmap-area-` + area + `"] .seat-row[role="group"]`).Each(func(_ int, r *goquery.Selection) {
			n := r.Children().Length()
			if width == -1 {
				width = n
			}
			if n != width {
				t.Errorf("area %s row %s has %d cells, want %d (rows must be padded)", area, r.AttrOr("data-testid", ""), n, width)
			}
		})
	}
	// Row B: label, five seats, two gaps (columns 6 and 7), then seat 6 at column 8.
	kids := doc.Find(`[data-testid="seat-row-1-B"]`).Children()
	if kids.Length() != 30 {
		t.Fatalf("row B has %d children, want 28 columns + 2 labels", kids.Length())
	}
	for i, want := range map[int]string{5: "seat", 6: "seat-gap", 7: "seat-gap", 8: "seat", 22: "seat-gap", 23: "seat-gap"} {
		if !kids.Eq(i).HasClass(want) {
			t.Errorf("row B child %d is %q, want %s", i, kids.Eq(i).AttrOr("class", ""), want)
		}
	}
	if kids.Eq(8).Find("input").AttrOr("aria-label", "") != "Row B, seat 6, standard, free" {
		t.Errorf("seat after the aisle: %q", kids.Eq(8).Find("input").AttrOr("aria-label", ""))
	}
	if doc.Find(`[data-testid="seatmap-area-1"] [data-testid="seat-aisle"]`).Length() != 1 {
		t.Error("cross aisle row lost")
	}
	// A sofa's two places sit side by side.
	r := doc.Find(`[data-testid="seat-row-2-R"]`).Children()
	if !r.Eq(1).HasClass("seat-sofa-left") || !r.Eq(2).HasClass("seat-sofa-right") || !r.Eq(3).HasClass("seat-gap") {
		t.Error("sofa pair not adjacent")
	}
}

// TestSeatMapRendersEachSeatOnce: one set of native inputs serves the map and
// the list view; the list view is a labelled switch that is never submitted.
func TestSeatMapRendersEachSeatOnce(t *testing.T) {
	doc, html := renderDoc(t, BuildSeatMap(largePlan(), swapOptions()))
	if doc.Find("select, option").Length() != 0 {
		t.Error("seats rendered a second time as list options")
	}
	doc.Find(`[data-testid="seatmap"] input[name="seat"]`).Each(func(_ int, s *goquery.Selection) {
		v := s.AttrOr("value", "")
		if n := strings.Count(html, `"`+v+`"`); n != 1 {
			t.Errorf("seat %s appears %d times", v, n)
		}
	})
	toggle := doc.Find(`input[type="checkbox"].seatmap-view[data-testid="seatmap-list"]`)
	if toggle.Length() != 1 {
		t.Fatal("no switch to the list view")
	}
	if _, named := toggle.Attr("name"); named {
		t.Error("the list view switch would be submitted with the seats")
	}
	if id := toggle.AttrOr("id", ""); doc.Find(`label[for="`+id+`"]`).Length() != 1 {
		t.Error("the list view switch has no label")
	}
	// The list view needs what the map shows by shape: the seat number and the row summary.
	if got := doc.Find(`label.seat:has(input[value="1-0-0"]) > i`).Text(); got != "1" {
		t.Errorf("A1 glyph holds %q, want the seat number", got)
	}
	if got := doc.Find(`[data-testid="seat-row-1-E"] .seat-row-sum`).Text(); got != "Row E, 22 of 24 free" {
		t.Errorf("row E summary %q", got)
	}
	opt := swapOptions()
	opt.NoList = true
	if doc, _ := renderDoc(t, BuildSeatMap(largePlan(), opt)); doc.Find(".seatmap-view").Length() != 0 {
		t.Error("NoList still offers the list view")
	}
}

func TestSeatValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want cinema.SeatPosition
		ok   bool
	}{
		{"1-5-11", pos(1, 5, 11), true}, {"0-0-0", pos(0, 0, 0), true}, {"2-10-9999", pos(2, 10, 9999), true},
		{"1-5", cinema.SeatPosition{}, false}, {"1-5-11-2", cinema.SeatPosition{}, false}, {"a-1-1", cinema.SeatPosition{}, false},
		{"1--1", cinema.SeatPosition{}, false}, {"1-+1-1", cinema.SeatPosition{}, false}, {"1-1-10000", cinema.SeatPosition{}, false}, {"", cinema.SeatPosition{}, false},
	} {
		got, ok := ParseSeatValue(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseSeatValue(%q) = %v, %v", tc.in, got, ok)
		}
		if ok && SeatValue(got) != strings.TrimLeft(tc.in, "") {
			t.Errorf("SeatValue round trip of %q: %q", tc.in, SeatValue(got))
		}
	}
	ps, err := SeatValues([]string{"", "1-2-3", "1-2-3", "2-0-1"})
	if err != nil || len(ps) != 2 || ps[0] != pos(1, 2, 3) || ps[1] != pos(2, 0, 1) {
		t.Errorf("SeatValues: %v %v", ps, err)
	}
	if _, err := SeatValues([]string{"1-2-3", "F12"}); err == nil {
		t.Error("a non-seat value was accepted")
	}
}

// BenchmarkSeatMapLargeAuditorium builds and renders the map of the 412-place auditorium.
func BenchmarkSeatMapLargeAuditorium(b *testing.B) {
	plan := largePlan()
	opt := swapOptions()
	ctx := inLanguage(b, language.English)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := SeatMap(BuildSeatMap(plan, opt)).Render(ctx, &buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/map")
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	_, _ = w.Write(buf.Bytes())
	_ = w.Close()
	b.ReportMetric(float64(gz.Len()), "gzip-bytes/map")
}

// gridPlan is one area of n seats in rows of 20 (the last row shorter), every fifth seat taken.
func gridPlan(n int) cinema.SeatPlan {
	var rows [][2]string
	for r := 0; n > 0; r++ {
		w := min(n, 20)
		row := []byte(strings.Repeat("s", w))
		for i := 4; i < w; i += 5 {
			row[i] = 't'
		}
		rows = append(rows, [2]string{string(rune('A' + r)), string(row)})
		n -= w
	}
	return testPlan(testArea{1, "0000000001", "Stalls", rows})
}

// BenchmarkSeatMapRender builds and renders maps of 100 and 400 seats in one run: allocs/op
// of /400 against /100 shows how the cost grows with the seat count (allocs/seat beside it).
func BenchmarkSeatMapRender(b *testing.B) {
	for _, n := range []int{100, 400} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			plan := gridPlan(n)
			opt := SeatMapOptions{Max: 2, Chosen: []cinema.SeatPosition{pos(1, 0, 0)}}
			ctx := inLanguage(b, language.English)
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				if err := SeatMap(BuildSeatMap(plan, opt)).Render(ctx, &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len())/float64(n), "bytes/seat")
		})
	}
}

// TestSeatCellsEscapeUpstreamText: seat and row labels and categories come from the
// upstream; the hand-written seat markup escapes them as templ would.
func TestSeatCellsEscapeUpstreamText(t *testing.T) {
	plan := testPlan(testArea{1, "0000000001", "Stalls", [][2]string{{`<R&"'>`, "ss"}}})
	plan.AreaCategories[0].Description = `Std <i>&"'`
	plan.Areas[0].Rows[0].Seats[0].Label = `1<script>`
	v := BuildSeatMap(plan, SeatMapOptions{Yours: []cinema.SeatPosition{pos(1, 0, 1)}})
	doc, html := renderDoc(t, v)
	if strings.Contains(html, "<script>") || strings.Contains(html, "<i>&") {
		t.Fatalf("unescaped upstream text in %s", html)
	}
	want := v.Areas[0].Rows[0].Cells[0].Seat.Name(localizer(t, language.English))
	if want != `Row <R&"'>, seat 1<script>, std <i>&"', free` {
		t.Errorf("name %q", want)
	}
	if got := doc.Find(`label.seat input`).AttrOr("aria-label", ""); got != want {
		t.Errorf("aria-label %q, want %q", got, want)
	}
	if got := doc.Find(`label.seat > i`).Text(); got != "1<script>" {
		t.Errorf("glyph %q", got)
	}
	if got := doc.Find(`span.seat-yours[role="img"]`).AttrOr("aria-label", ""); !strings.HasSuffix(got, ", your seat") || !strings.HasPrefix(got, `Row <R&"'>, seat 2`) {
		t.Errorf("fixed seat name %q", got)
	}
}

// TestSeatMapAllocationsPerSeat: a seat costs no allocations of its own (the map's cost
// grows with its rows, not its seats). Written by templ, a seat cost about 34.
func TestSeatMapAllocationsPerSeat(t *testing.T) {
	ctx := inLanguage(t, language.German) // the longer words
	allocs := func(n int) float64 {
		plan := gridPlan(n)
		opt := SeatMapOptions{Max: 2, Chosen: []cinema.SeatPosition{pos(1, 0, 0)}}
		var buf bytes.Buffer
		return testing.AllocsPerRun(20, func() {
			buf.Reset()
			if err := SeatMap(BuildSeatMap(plan, opt)).Render(ctx, &buf); err != nil {
				t.Fatal(err)
			}
		})
	}
	a100, a400 := allocs(100), allocs(400)
	perSeat := (a400 - a100) / 300
	t.Logf("allocs: %.0f at 100 seats, %.0f at 400 (ratio %.2f, %.2f per added seat)", a100, a400, a400/a100, perSeat)
	// Rows still cost some (about 17 each, 0.86 per seat at 20 seats a row).
	if perSeat > 2 {
		t.Errorf("%.2f allocations per added seat, want at most 2", perSeat)
	}
}

func TestHTMLWriterEscapesAsHTMLPackage(t *testing.T) {
	for _, s := range []string{"", "plain", `<a href="x">Tom & Jerry's</a>`, "&&", "Reihe F, Platz 12 – frei", `"'<>&`} {
		var b strings.Builder
		hw := newHTMLWriter(&b)
		hw.escaped(s)
		if got, want := b.String(), html.EscapeString(s); got != want {
			t.Errorf("escaped(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestReleasedCellsDoNotLeakIntoTheNextMap: a map built on cells handed back by another
// (larger, with other states) renders exactly as one built on new cells, and a released map
// keeps no cells.
func TestReleasedCellsDoNotLeakIntoTheNextMap(t *testing.T) {
	small := gridPlan(100)
	_, want := renderDoc(t, BuildSeatMap(small, SeatMapOptions{Max: 2}))
	for range 5 { // the pool may drop a slab; several rounds make reuse all but certain
		big := BuildSeatMap(largePlan(), swapOptions())
		renderDoc(t, big)
		big.Release()
		if big.Areas != nil || big.cells != nil {
			t.Fatal("a released map still holds its cells")
		}
		m := BuildSeatMap(small, SeatMapOptions{Max: 2})
		if _, got := renderDoc(t, m); got != want {
			t.Fatalf("the map on reused cells differs from one on new cells:\n%s\nwant\n%s", got, want)
		}
		m.Release()
		m.Release() // twice is harmless
	}
}

// A swap's own seats are the seats moving away: a look, a name and a line of the key of their
// own, and the seats being chosen are named as the new ones in the key.
func TestSeatMapCurrentSeats(t *testing.T) {
	opt := swapOptions()
	opt.YoursCurrent = true
	doc, _ := renderDoc(t, BuildSeatMap(largePlan(), opt))
	if doc.Find(`span.seat.seat-current[role="img"][aria-label="Row F, seat 11, standard, your current seat"]`).Length() != 1 {
		t.Error("the booking's seat F11 is not drawn and named as the current seat")
	}
	if doc.Find(`.seatmap-scroll .seat-yours`).Length() != 0 {
		t.Error("current seats drawn with the look of the seats being chosen")
	}
	if got := doc.Find(`[data-testid="legend-current"]`).Text(); !strings.Contains(got, "Your current seats") {
		t.Errorf("key line of the current seats %q", got)
	}
	if got := doc.Find(`[data-testid="legend-selected"]`).Text(); !strings.Contains(got, "Your new seats") {
		t.Errorf("key line of the seats being chosen %q", got)
	}
	// Without the option the booking's seats stay "yours".
	doc, _ = renderDoc(t, BuildSeatMap(largePlan(), swapOptions()))
	if doc.Find(`.seat-current`).Length() != 0 || doc.Find(`[data-testid="legend-current"]`).Length() != 0 {
		t.Error("current seats drawn without the option")
	}
}
