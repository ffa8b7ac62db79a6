package components

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// TestRowKeyHoldsEverySeatField: a row is written again from its kept copy only when every
// field the seats are written from is the same; a field added to the views without being
// added to appendKey would show one viewer's seats to another.
func TestRowKeyHoldsEverySeatField(t *testing.T) {
	for _, c := range []struct {
		typ    reflect.Type
		fields int
	}{
		{reflect.TypeOf(SeatCellView{}), 2},
		{reflect.TypeOf(SeatView{}), 13},
		{reflect.TypeOf(cinema.SeatPosition{}), 3},
	} {
		if n := c.typ.NumField(); n != c.fields {
			t.Errorf("%s has %d fields, appendKey writes %d: add the new ones to SeatCellView.appendKey and count them here", c.typ, n, c.fields)
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
