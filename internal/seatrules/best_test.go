package seatrules

import (
	"slices"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

func TestBestTogetherSeatNotOnPlan(t *testing.T) {
	plan, ch := draw([]string{"x.oo......"})
	picked := append(ch.Chosen, cinema.SeatPosition{AreaNumber: 9, RowIndex: 0, ColumnIndex: 0})
	if got, ok := BestTogether(plan, picked); ok || !slices.Equal(got, picked) {
		t.Fatalf("BestTogether = %v, %v; want the pick kept", got, ok)
	}
}

func TestBestTogether(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan [][]string // areas; the seats the ticketing system picked are chosen (o, c, w)
		want [][]string // the seats after, chosen; nil: the pick stays
	}{
		{"a pick that keeps the rules stays", [][]string{{"..oo..x"}}, nil},
		{"a seat alone at the row's end: the nearest block of the row",
			[][]string{{"x.oo......"}}, [][]string{{"xoo......."}}},
		{"the row has no room: the nearest row",
			[][]string{{"xxxx.xxx", "xoo.x...", "x.......", "........"}}, [][]string{{"........", "........", ".oo.....", "........"}}},
		{"a companion seat without a wheelchair space",
			[][]string{{"WcoW...."}}, [][]string{{"....oo.."}}},
		{"a companion seat with a wheelchair space stays", [][]string{{"wcW..."}}, nil},
		{"a companion seat with no block free: the nearest free seats",
			[][]string{{"co_._._."}}, [][]string{{".o_o_._."}}},
		{"only the category that breaks a rule moves",
			[][]string{{"x.oo......"}, {"oo...."}}, [][]string{{"xoo......."}, {"oo...."}}},
		{"nothing better is free", [][]string{{"xoo.x"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, ch := draw(tc.plan...)
			got, ok := BestTogether(plan, ch.Chosen)
			if tc.want == nil {
				if ok || !slices.Equal(got, ch.Chosen) {
					t.Fatalf("BestTogether = %v, %v; want the pick %v kept", got, ok, ch.Chosen)
				}
				return
			}
			_, want := draw(tc.want...)
			if !ok || !slices.Equal(got, want.Chosen) {
				t.Fatalf("BestTogether = %v, %v; want %v", got, ok, want.Chosen)
			}
		})
	}
}
