package seatrules

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// draw builds a plan and a choice from rows drawn one character a column. Each argument is
// an area: area 1 is category "STD", area 2 "PRM". Rows are labelled A, B, C … across the
// areas, seats 1, 2, 3 … left to right skipping gaps, as cinemas label them.
//
//	.  free seat          x  taken seat          _  no seat (an aisle)
//	h  house seat         b  broken seat         s  free sofa place     S  chosen sofa place
//	W  free wheelchair    C  free companion seat
//	o  chosen seat        w  chosen wheelchair   c  chosen companion seat
//	p  the party's seat, given up                O  the party's seat, chosen again
//	k  the party's seat, kept                    V  the party's wheelchair space, kept
//	Y  the party's wheelchair space, given up    Z  the party's companion seat, kept
func draw(areas ...[]string) (cinema.SeatPlan, Choice) {
	var plan cinema.SeatPlan
	var ch Choice
	label := 'A'
	for ai, rows := range areas {
		cat := []string{"STD", "PRM"}[ai]
		a := cinema.Area{Number: ai + 1, AreaCategoryCode: cat, AllocatedSeating: true}
		for ri, r := range rows {
			row := cinema.Row{Label: string(label)}
			n := 0
			for ci, c := range r {
				if c == '_' {
					continue
				}
				n++
				p := cinema.SeatPosition{AreaNumber: ai + 1, RowIndex: ri, ColumnIndex: ci}
				s := cinema.Seat{Position: p, AreaCategoryCode: cat, RowLabel: row.Label, Label: strconv.Itoa(n), Kind: cinema.SeatKindNormal, Availability: cinema.SeatFree}
				switch c {
				case 'x':
					s.Availability = cinema.SeatTaken
				case 'h':
					s.Kind, s.Availability = cinema.SeatKindHouse, cinema.SeatUnavailable
				case 'b':
					s.Kind, s.Availability = cinema.SeatKindBroken, cinema.SeatUnavailable
				case 's', 'S':
					s.SofaGroup = []cinema.SeatPosition{p}
				case 'W', 'w', 'V', 'Y':
					s.Kind = cinema.SeatKindWheelchair
				case 'C', 'c', 'Z':
					s.Kind = cinema.SeatKindCompanion
				}
				switch c {
				case 'o', 'w', 'c', 'S':
					ch.Chosen = append(ch.Chosen, p)
				case 'p', 'Y':
					ch.Party = append(ch.Party, p)
				case 'O':
					ch.Party, ch.Chosen = append(ch.Party, p), append(ch.Chosen, p)
				case 'k', 'V', 'Z':
					ch.Party, ch.Keep = append(ch.Party, p), append(ch.Keep, p)
				}
				if slices.Contains(ch.Party, p) {
					s.Availability = cinema.SeatTaken // the plan shows the party's seats taken, by it
				}
				row.Seats = append(row.Seats, s)
			}
			a.Rows = append(a.Rows, row)
			label++
		}
		plan.Areas = append(plan.Areas, a)
	}
	return plan, ch
}

func TestLoneSeat(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []string
		lone    string   // the seats left on their own; "" when the choice is allowed
		suggest []string // the suggestions, nearest first
	}{
		// Refused, with the way out.
		{"beside a taken seat", []string{"..oo.x...."}, "A5", []string{"A4–A5", "A1–A2"}},
		{"at the row's end", []string{".oo......"}, "A1", []string{"A1–A2", "A3–A4"}},
		{"beside an aisle", []string{"..oo._....."}, "A5", []string{"A4–A5", "A1–A2"}},
		{"beside a gap of several columns", []string{"oo.__....."}, "A3", []string{"A4–A5", "A7–A8"}},
		{"beside a house seat", []string{"h.oo...."}, "A2", []string{"A2–A3", "A4–A5"}},
		{"beside a broken seat", []string{"....oo.b"}, "A7", []string{"A4–A5", "A6–A7"}},
		{"between the chosen seats", []string{"o.o...."}, "A2", []string{"A1–A2", "A3–A4"}},
		{"one on each side", []string{"x.oo.x...."}, "A2, A5", []string{"A2–A3", "A4–A5"}},
		{"a single seat", []string{"x.o..x"}, "A2", []string{"A2", "A5"}},
		{"beside a wheelchair space nobody chose", []string{"W.o...."}, "A2", []string{"A2", "A4"}},
		{"beside a sofa", []string{"sso.x..."}, "A4", []string{"A6", "A8"}},
		// Allowed.
		{"no seat left alone", []string{"..oo..x"}, "", nil},
		{"the gap is two seats", []string{"x..oo..x"}, "", nil},
		{"the whole block", []string{"x_ooo_x"}, "", nil},
		{"no choice of the row avoids it", []string{"oo.x..."}, "", nil},
		{"no choice of the row avoids it, three blocks of three", []string{"...__oo.x...__..."}, "", nil},
		{"a seat alone already is not the choice's doing", []string{"x.x..oo.."}, "", nil},
		{"a wheelchair space chosen with its neighbours", []string{"wco._...."}, "", nil},
		{"a sofa place", []string{"S.x..."}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, ch := draw(tc.rows)
			checkLone(t, plan, ch, tc.lone, tc.suggest)
		})
	}
}

// TestLoneSeatOnlyCountsWhatTheChoiceMakes: a seat on its own before the choice, elsewhere in
// the row, is neither named nor in the way of the suggestions.
func TestLoneSeatOnlyCountsWhatTheChoiceMakes(t *testing.T) {
	plan, ch := draw([]string{"x.xoo.x......"})
	checkLone(t, plan, ch, "A6", []string{"A8–A9", "A10–A11"})
}

func TestLoneSeatPartysOwnSeats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []string
		lone    string
		suggest []string
	}{
		// A seat of the party that stays is occupied: a seat between it and a chosen one is alone.
		{"beside a kept seat", []string{"k.o..."}, "A2", []string{"A2", "A4"}},
		{"right beside a kept seat", []string{"ko...."}, "", nil},
		// A seat the party gives up is free once the choice is made.
		{"a seat given up in a swap is free", []string{"xpo.x"}, "A2, A4", []string{"A2", "A4"}},
		{"the same row with that seat taken: nothing avoids it", []string{"xxo.x"}, "", nil},
		{"a purchase chooses its seats anew", []string{"..pOox"}, "", nil},
		{"moving one seat of an order leaves one alone", []string{"..Opo.x..."}, "A4, A6", []string{"A3–A4", "A1–A2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, ch := draw(tc.rows)
			checkLone(t, plan, ch, tc.lone, tc.suggest)
		})
	}
}

// TestLoneSeatSwap: a swap frees the seats its tickets leave, but never suggests moving a
// ticket back to one of them.
func TestLoneSeatSwap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []string
		lone    string
		suggest []string
	}{
		{"the seat left is free for others", []string{"...opk.x"}, "A5", []string{"A3", "A1"}},
		{"the seat left is not suggested", []string{"xpo..x"}, "A2", []string{"A5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, ch := draw(tc.rows)
			ch.Swap = true
			checkLone(t, plan, ch, tc.lone, tc.suggest)
		})
	}
}

func TestLoneSeatNamesTheFirstRowThatBreaksIt(t *testing.T) {
	plan, ch := draw([]string{"..oo..x", "x.oo......"}, []string{"oo......"})
	var lone *LoneSeatError
	if err := Check(plan, ch); !errors.As(err, &lone) || lone.Row != "B" || Names(lone.Chosen) != "B3–B4" || Names(lone.Lone) != "B2" {
		t.Fatalf("Check = %v, want row B, B3–B4 leaving B2", err)
	}
}

func checkLone(t *testing.T, plan cinema.SeatPlan, ch Choice, lone string, suggest []string) {
	t.Helper()
	err := Check(plan, ch)
	if lone == "" {
		if err != nil {
			t.Fatalf("Check = %v, want it allowed", err)
		}
		return
	}
	var le *LoneSeatError
	if !errors.As(err, &le) {
		t.Fatalf("Check = %v, want a lone seat %s", err, lone)
	}
	var got []string
	for _, s := range le.Suggestions {
		got = append(got, Names(s))
	}
	if Names(le.Lone) != lone || !slices.Equal(got, suggest) {
		t.Fatalf("lone %s, suggestions %q; want %s, %q", Names(le.Lone), got, lone, suggest)
	}
	for _, s := range le.Suggestions {
		if err := Check(plan, Choice{Party: ch.Party, Keep: ch.Keep, Chosen: positionsOf(s), Swap: ch.Swap}); err != nil {
			t.Errorf("the suggestion %s is refused too: %v", Names(s), err)
		}
	}
}

func positionsOf(seats []cinema.Seat) []cinema.SeatPosition {
	out := make([]cinema.SeatPosition, len(seats))
	for i, s := range seats {
		out[i] = s.Position
	}
	return out
}

func TestCompanionSeat(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []string
		refused string // the companion seats named; "" when allowed
	}{
		{"alone", []string{"WcW..."}, "A2"},
		{"with an ordinary seat", []string{"WCWco_.."}, "A4"},
		{"with its wheelchair space", []string{"wcW..."}, ""},
		{"with a wheelchair space nobody chose", []string{"WCWc.._", "......W"}, "A4"},
		{"with a wheelchair space in another row", []string{"WCWc..", "....w."}, ""},
		{"two companions, one wheelchair space", []string{"cwc..."}, ""},
		{"a wheelchair space alone", []string{"w....."}, ""},
		{"with the booking's wheelchair space, kept", []string{"VcW..."}, ""},
		{"kept while the wheelchair space is given up", []string{"YZ.o.."}, "A2"},
		{"a booking that already had one keeps it", []string{"WZo..."}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, ch := draw(tc.rows)
			err := Check(plan, ch)
			var ce *CompanionError
			switch {
			case tc.refused == "" && errors.As(err, &ce):
				t.Fatalf("Check = %v, want it allowed", err)
			case tc.refused != "" && !errors.As(err, &ce):
				t.Fatalf("Check = %v, want companion seat %s refused", err, tc.refused)
			case tc.refused != "" && Names(ce.Seats) != tc.refused:
				t.Fatalf("named %s, want %s", Names(ce.Seats), tc.refused)
			}
		})
	}
}

func TestNames(t *testing.T) {
	plan, _ := draw([]string{"..._..", "......"})
	s := func(row, col int) cinema.Seat {
		st, _ := plan.Seat(cinema.SeatPosition{AreaNumber: 1, RowIndex: row, ColumnIndex: col})
		return st
	}
	for _, tc := range []struct {
		seats []cinema.Seat
		want  string
	}{
		{[]cinema.Seat{s(0, 1)}, "A2"},
		{[]cinema.Seat{s(0, 0), s(0, 1), s(0, 2)}, "A1–A3"},
		{[]cinema.Seat{s(0, 2), s(0, 4)}, "A3, A4"}, // across the aisle: not side by side
		{[]cinema.Seat{s(0, 5), s(1, 0)}, "A5, B1"},
	} {
		if got := Names(tc.seats); got != tc.want {
			t.Errorf("Names = %q, want %q", got, tc.want)
		}
	}
}
