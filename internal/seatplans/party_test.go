package seatplans

import (
	"slices"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// pos is a seat position in area 1 (row, column); posIn names the area.
func pos(row, col int) cinema.SeatPosition { return posIn(1, row, col) }
func posIn(area, row, col int) cinema.SeatPosition {
	return cinema.SeatPosition{AreaNumber: area, RowIndex: row, ColumnIndex: col}
}

// partyPlan is a plan of rows drawn one string a row, one character a column: '.' free, 'x'
// taken, 'w' a wheelchair space, 's' a free sofa place, ' ' no seat. Area 1 is category
// "STD" (rows), area 2 is "PRM" (premium).
func partyPlan(rows []string, premium []string) cinema.SeatPlan {
	area := func(number int, cat string, rows []string) cinema.Area {
		a := cinema.Area{Number: number, AreaCategoryCode: cat, AllocatedSeating: true}
		for ri, r := range rows {
			var row cinema.Row
			for ci, ch := range r {
				if ch == ' ' {
					continue
				}
				st := cinema.Seat{Position: posIn(number, ri, ci), AreaCategoryCode: cat, Kind: cinema.SeatKindNormal, Availability: cinema.SeatFree}
				switch ch {
				case 'x':
					st.Availability = cinema.SeatTaken
				case 'w':
					st.Kind = cinema.SeatKindWheelchair
				case 's':
					st.SofaGroup = []cinema.SeatPosition{st.Position}
				}
				row.Seats = append(row.Seats, st)
			}
			a.Rows = append(a.Rows, row)
		}
		return a
	}
	return cinema.SeatPlan{Areas: []cinema.Area{area(1, "STD", rows), area(2, "PRM", premium)}}
}

func TestSeatedTogether(t *testing.T) {
	for _, tc := range []struct {
		name         string
		party, added []cinema.SeatPosition
		want         bool
	}{
		{"right beside", []cinema.SeatPosition{pos(0, 3), pos(0, 4)}, []cinema.SeatPosition{pos(0, 5)}, true},
		{"left beside", []cinema.SeatPosition{pos(0, 3)}, []cinema.SeatPosition{pos(0, 2)}, true},
		{"through another added seat", []cinema.SeatPosition{pos(0, 3)}, []cinema.SeatPosition{pos(0, 5), pos(0, 4)}, true},
		{"one seat gap", []cinema.SeatPosition{pos(0, 3)}, []cinema.SeatPosition{pos(0, 5)}, false},
		{"row behind", []cinema.SeatPosition{pos(0, 3)}, []cinema.SeatPosition{pos(1, 3)}, false},
		{"same row and column, other area", []cinema.SeatPosition{pos(0, 3)}, []cinema.SeatPosition{posIn(2, 0, 4)}, false},
		{"one of two apart", []cinema.SeatPosition{pos(0, 3)}, []cinema.SeatPosition{pos(0, 4), pos(0, 9)}, false},
		{"split party, each joined", []cinema.SeatPosition{pos(0, 1), pos(2, 1)}, []cinema.SeatPosition{pos(0, 2), pos(2, 0)}, true},
		{"nothing added", []cinema.SeatPosition{pos(0, 3)}, nil, true},
		{"no party", nil, []cinema.SeatPosition{pos(0, 3)}, false},
	} {
		if got := SeatedTogether(tc.party, tc.added); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBesideParty(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  []string
		party []cinema.SeatPosition
		cat   string
		n     int
		want  []cinema.SeatPosition
	}{
		{"right first", []string{"..xx...."}, []cinema.SeatPosition{pos(0, 2), pos(0, 3)}, "STD", 2,
			[]cinema.SeatPosition{pos(0, 4), pos(0, 5)}},
		{"left when the right is taken", []string{"..xxx..."}, []cinema.SeatPosition{pos(0, 2), pos(0, 3)}, "STD", 2,
			[]cinema.SeatPosition{pos(0, 1), pos(0, 0)}},
		{"split over both sides", []string{".xx.x..."}, []cinema.SeatPosition{pos(0, 1), pos(0, 2)}, "STD", 2,
			[]cinema.SeatPosition{pos(0, 3), pos(0, 0)}},
		{"end of the row", []string{"....xx"}, []cinema.SeatPosition{pos(0, 4), pos(0, 5)}, "STD", 1,
			[]cinema.SeatPosition{pos(0, 3)}},
		{"gap in the row", []string{"xx .."}, []cinema.SeatPosition{pos(0, 0), pos(0, 1)}, "STD", 1, nil},
		{"no wheelchair spaces or sofa places", []string{"wxxs"}, []cinema.SeatPosition{pos(0, 1), pos(0, 2)}, "STD", 1, nil},
		{"not enough room", []string{"x.xx.x"}, []cinema.SeatPosition{pos(0, 2), pos(0, 3)}, "STD", 3, nil},
		{"wider block first", []string{"x.....", "..xx.."}, []cinema.SeatPosition{pos(0, 0), pos(1, 2), pos(1, 3)}, "STD", 1,
			[]cinema.SeatPosition{pos(1, 4)}},
		{"narrower block when the wider has no room", []string{"x.....", "xxxx.."}, []cinema.SeatPosition{pos(0, 0), pos(1, 0), pos(1, 1), pos(1, 2), pos(1, 3)}, "STD", 3,
			[]cinema.SeatPosition{pos(0, 1), pos(0, 2), pos(0, 3)}},
		{"other category", []string{"..xx.."}, []cinema.SeatPosition{pos(0, 2), pos(0, 3)}, "PRM", 1, nil},
		{"no party", []string{"......"}, nil, "STD", 1, nil},
	} {
		got := BesideParty(partyPlan(tc.rows, nil), tc.party, tc.cat, tc.n)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestBesidePartySeats: added tickets move beside the party's seats of their own category, in
// ticket order; the party's tickets and the added ones of a category without room stay.
func TestBesidePartySeats(t *testing.T) {
	plan := partyPlan([]string{"..xx....", "........", "x.x....."}, []string{"....", "xx.."})
	party := []cinema.SeatPosition{pos(0, 2), pos(0, 3), posIn(2, 1, 0), posIn(2, 1, 1)}
	std := func(p cinema.SeatPosition, added bool) PartyTicket {
		return PartyTicket{Category: "STD", Position: p, Added: added}
	}
	prm := func(p cinema.SeatPosition, added bool) PartyTicket {
		return PartyTicket{Category: "PRM", Position: p, Added: added}
	}
	for _, tc := range []struct {
		name    string
		party   []cinema.SeatPosition
		tickets []PartyTicket
		want    []PartyTicket // nil: nothing moves
	}{
		{"two added move right of the party",
			party, []PartyTicket{std(pos(0, 2), false), std(pos(0, 3), false), std(pos(2, 1), true), std(pos(2, 3), true)},
			[]PartyTicket{std(pos(0, 2), false), std(pos(0, 3), false), std(pos(0, 4), true), std(pos(0, 5), true)}},
		{"each category beside its own seats",
			party, []PartyTicket{std(pos(0, 2), false), prm(posIn(2, 1, 0), false), prm(posIn(2, 0, 0), true), std(pos(2, 1), true)},
			[]PartyTicket{std(pos(0, 2), false), prm(posIn(2, 1, 0), false), prm(posIn(2, 1, 2), true), std(pos(0, 4), true)}},
		{"a category with no room stays, the other moves",
			party, []PartyTicket{std(pos(0, 2), false), prm(posIn(2, 0, 0), true), prm(posIn(2, 0, 1), true), prm(posIn(2, 0, 2), true), std(pos(2, 1), true)},
			[]PartyTicket{std(pos(0, 2), false), prm(posIn(2, 0, 0), true), prm(posIn(2, 0, 1), true), prm(posIn(2, 0, 2), true), std(pos(0, 4), true)}},
		{"no party seats of the added category",
			[]cinema.SeatPosition{pos(0, 2), pos(0, 3)}, []PartyTicket{std(pos(0, 2), false), prm(posIn(2, 0, 0), true)},
			nil},
		{"nothing added", party, []PartyTicket{std(pos(0, 2), false)}, nil},
	} {
		got, ok := BesidePartySeats(plan, tc.party, tc.tickets)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.name, got, ok, tc.want)
		}
	}
}

func TestApartFromParty(t *testing.T) {
	party := []cinema.SeatPosition{pos(0, 2), pos(0, 3)}
	for _, tc := range []struct {
		name    string
		party   []cinema.SeatPosition
		tickets []PartyTicket
		want    bool
	}{
		{"added apart", party, []PartyTicket{{Position: pos(0, 2)}, {Position: pos(0, 6), Added: true}}, true},
		{"added beside", party, []PartyTicket{{Position: pos(0, 2)}, {Position: pos(0, 4), Added: true}}, false},
		{"nothing added", party, []PartyTicket{{Position: pos(0, 2)}}, false},
		{"no party", nil, []PartyTicket{{Position: pos(0, 6), Added: true}}, false},
	} {
		if got := ApartFromParty(tc.party, tc.tickets); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
