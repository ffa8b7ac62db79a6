package swap

import (
	"fmt"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// TestPairMoves: each moving ticket gets a new seat of its own area category, tickets and seats
// both taken in seat order, whatever order they were ticked and chosen in.
func TestPairMoves(t *testing.T) {
	pos := func(row, col int) cinema.SeatPosition {
		return cinema.SeatPosition{AreaNumber: 1, RowIndex: row, ColumnIndex: col}
	}
	ticket := func(seq int, cat string, row, col int) cinema.BookedTicket {
		return cinema.BookedTicket{Seq: seq, Seat: &cinema.SeatRef{Position: pos(row, col), AreaCategoryCode: cat, RowLabel: fmt.Sprint(row), Label: fmt.Sprint(col), Placed: true}}
	}
	seat := func(cat string, row, col int) cinema.Seat {
		return cinema.Seat{Position: pos(row, col), AreaCategoryCode: cat, RowLabel: fmt.Sprint(row), Label: fmt.Sprint(col)}
	}
	// Ticked: the sofa's ticket first, then the two stalls tickets right to left; chosen: the
	// new seats in no order.
	moving := []cinema.BookedTicket{ticket(3, "SOFA", 9, 1), ticket(2, "STALLS", 2, 6), ticket(1, "STALLS", 2, 5)}
	seatsByCat := map[string][]cinema.Seat{
		"STALLS": {seat("STALLS", 4, 8), seat("STALLS", 4, 7)},
		"SOFA":   {seat("SOFA", 10, 2)},
	}
	got := map[int]cinema.SeatPosition{}
	var order []int
	for _, m := range pairMoves(moving, seatsByCat) {
		got[m.Seq] = m.To
		order = append(order, m.Seq)
	}
	want := map[int]cinema.SeatPosition{1: pos(4, 7), 2: pos(4, 8), 3: pos(10, 2)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("moves to %v, want %v", got, want)
	}
	if fmt.Sprint(order) != "[1 2 3]" {
		t.Errorf("moves in order %v, want the tickets in seat order [1 2 3]", order)
	}
}
