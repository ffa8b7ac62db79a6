package components

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/gzjoin"
)

// TestRowKeyHoldsEverySeatField: a row is written again from its kept copy only when every
// field the row and its seats are written from is the same; a field added to the views
// without being added to keyOfRow or appendKey would show one viewer's seats to another.
func TestRowKeyHoldsEverySeatField(t *testing.T) {
	for _, c := range []struct {
		typ    reflect.Type
		fields int
	}{
		{reflect.TypeOf(SeatRowView{}), 7},
		{reflect.TypeOf(SeatCellView{}), 2},
		{reflect.TypeOf(SeatView{}), 13},
		{reflect.TypeOf(cinema.SeatPosition{}), 3},
	} {
		if n := c.typ.NumField(); n != c.fields {
			t.Errorf("%s has %d fields, appendKey writes %d: add the new ones to keyOfRow or SeatCellView.appendKey and count them here", c.typ, n, c.fields)
		}
	}
}

// TestSharedRowsFollowTheSeats: two viewers of the same plan get the same rows; a seat taken
// in between, a seat of one's own, or another language is written anew, never from the kept
// copy of another state.
func TestSharedRowsFollowTheSeats(t *testing.T) {
	plan := largePlan()
	opt := SeatMapOptions{Max: 2}
	// One localizer per language, as the site has: rows are kept per localizer.
	ctxs := map[language.Tag]context.Context{language.English: inLanguage(t, language.English), language.German: inLanguage(t, language.German)}
	_, first := renderDocIn(t, ctxs[language.English], BuildSeatMap(plan, opt))
	_, again := renderDocIn(t, ctxs[language.English], BuildSeatMap(plan, opt))
	if first != again {
		t.Fatal("the same plan and options rendered twice differ")
	}

	taken := plan
	taken.Areas = append([]cinema.Area(nil), plan.Areas...)
	rows := append([]cinema.Row(nil), taken.Areas[0].Rows...)
	seats := append([]cinema.Seat(nil), rows[1].Seats...)
	seats[0].Availability = cinema.SeatTaken // B1
	rows[1].Seats = seats
	taken.Areas[0].Rows = rows

	tests := []struct {
		name string
		plan cinema.SeatPlan
		opt  SeatMapOptions
		lang language.Tag
		want string // the accessible name of seat B1 (area 1, row 1, column 0)
	}{
		{"free", plan, opt, language.English, "Row B, seat 1, standard, free"},
		{"taken since", taken, opt, language.English, "Row B, seat 1, standard, taken"},
		{"chosen by this viewer", plan, SeatMapOptions{Max: 2, Chosen: []cinema.SeatPosition{pos(1, 1, 0)}}, language.English, "Row B, seat 1, standard, free"},
		{"in German", plan, opt, language.German, "Reihe B, Platz 1, Standard, frei"},
		{"free again", plan, opt, language.English, "Row B, seat 1, standard, free"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, _ := renderDocIn(t, ctxs[tt.lang], BuildSeatMap(tt.plan, tt.opt))
			in := doc.Find(`input[value="1-1-0"]`)
			if got := in.AttrOr("aria-label", ""); !strings.EqualFold(got, tt.want) {
				t.Errorf("seat B1 is %q, want %q", got, tt.want)
			}
			_, checked := in.Attr("checked")
			if wantChecked := len(tt.opt.Chosen) > 0; checked != wantChecked {
				t.Errorf("seat B1 checked = %v, want %v", checked, wantChecked)
			}
		})
	}
}

// TestJoinedSeatMapIsTheSeatMap: a seat map written into a gzjoin page (runs of rows as kept
// parts, the rows with the viewer's own seats in the page) unpacks to the seat map as written
// without it, for viewers with no seat, one seat and seats in two rows; the rows with no own
// seat are joined in as parts.
func TestJoinedSeatMapIsTheSeatMap(t *testing.T) {
	plan := largePlan()
	ctx := inLanguage(t, language.English)
	for _, c := range []struct {
		name   string
		chosen []cinema.SeatPosition
	}{
		{"no seat chosen", nil},
		{"one seat", []cinema.SeatPosition{pos(1, 1, 0)}},
		{"seats in two rows", []cinema.SeatPosition{pos(1, 1, 3), pos(1, 5, 8)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := BuildSeatMap(plan, SeatMapOptions{Max: 2, Chosen: c.chosen})
			doc, want := renderDocIn(t, ctx, v)
			if n := doc.Find(`input[name="seat"][checked]`).Length(); n != len(c.chosen) {
				t.Fatalf("%d seats chosen on the map, want %d", n, len(c.chosen))
			}
			var page gzjoin.Page
			var buf bytes.Buffer
			if err := SeatMap(v).Render(gzjoin.With(ctx, &page), &buf); err != nil {
				t.Fatal(err)
			}
			if !page.Joined() || buf.Len() >= len(want)/2 {
				t.Fatalf("the rows were not joined as parts (%d of %d bytes written into the page)", buf.Len(), len(want))
			}
			var gz bytes.Buffer
			if err := page.Gzip(&gz, buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(&gz)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("the joined seat map differs from the seat map (%d and %d bytes)", len(got), len(want))
			}
		})
	}
}
