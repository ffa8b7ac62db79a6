package booking

import (
	"slices"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// TestChosenSeats: the map's checkboxes and the list's selects send the same field; an empty
// select and a seat sent twice count once, and a value that is no seat still counts as chosen
// (so the count is checked, and the plan refuses it) without a position.
func TestChosenSeats(t *testing.T) {
	chosen, positions := chosenSeats([]string{"1-2-3", "", "1-2-3", "1-2-4", "nonsense"})
	if len(chosen) != 3 || !chosen["1-2-3"] || !chosen["1-2-4"] || !chosen["nonsense"] {
		t.Errorf("chosen = %v, want 1-2-3, 1-2-4 and nonsense", chosen)
	}
	want := []cinema.SeatPosition{{AreaNumber: 1, RowIndex: 2, ColumnIndex: 3}, {AreaNumber: 1, RowIndex: 2, ColumnIndex: 4}}
	if !slices.Equal(positions, want) {
		t.Errorf("positions = %v, want %v", positions, want)
	}
}

// TestSameSeats: the choice changes nothing only when every ticket sits, placed, in a seat
// chosen; a ticket without a seat or with a seat not placed on the plan always changes.
func TestSameSeats(t *testing.T) {
	at := func(col int, placed bool) cinema.OrderTicket {
		return cinema.OrderTicket{Seat: &cinema.SeatRef{Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: col}, Placed: placed}}
	}
	chosen := map[string]bool{"1-2-3": true, "1-2-4": true}
	cases := []struct {
		name    string
		tickets []cinema.OrderTicket
		want    bool
	}{
		{"the seats they sit in", []cinema.OrderTicket{at(3, true), at(4, true)}, true},
		{"one seat another", []cinema.OrderTicket{at(3, true), at(5, true)}, false},
		{"a seat not placed", []cinema.OrderTicket{at(3, true), at(4, false)}, false},
		{"a ticket without a seat", []cinema.OrderTicket{at(3, true), {}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameSeats(tc.tickets, chosen); got != tc.want {
				t.Errorf("sameSeats = %v, want %v", got, tc.want)
			}
		})
	}
}
