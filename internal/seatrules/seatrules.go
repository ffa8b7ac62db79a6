// Package seatrules holds the cinema's own rules for a choice of seats, which the ticketing
// system does not know:
//
//   - No lone empty seat: a choice may not leave a single free seat stranded between a chosen
//     seat and a place nobody can take beside it (a taken seat, a house or broken seat, an
//     aisle, the end of the row), when the same number of seats side by side in that row
//     would leave none. A seat on its own is one that is hardly ever sold, so the cinema asks
//     for the choice that does not make one; when the row has no such choice, any will do.
//   - A companion seat goes with a wheelchair space: it is kept for someone accompanying a
//     wheelchair user, so a booking has one only together with a wheelchair space.
//
// Check applies both to a choice a person made; BestTogether applies them to the seats the
// ticketing system picked by itself for new tickets. Both work on a seat plan only: the
// ticketing system still decides whether the seats are free when they are asked for.
package seatrules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Choice is a party's choice of seats on a seat plan.
type Choice struct {
	// Party is the seats the party holds before the choice (an order's, a booking's). Those
	// neither kept nor chosen again are free once the choice is made.
	Party []cinema.SeatPosition
	// Keep is the seats of Party that stay as they are whatever is chosen: in a swap, the
	// seats of the tickets that do not move.
	Keep []cinema.SeatPosition
	// Chosen is the seats chosen now. A seat of Party chosen again is chosen like any other:
	// a purchase or a booking change chooses all its seats anew.
	Chosen []cinema.SeatPosition
	// Swap says the choice moves tickets to seats the party does not hold (a seat swap): the
	// seats they leave are free for others, but no suggestion sends a ticket back to one.
	Swap bool
}

// LoneSeatError refuses a choice that leaves a seat on its own in a row where another choice
// would not.
type LoneSeatError struct {
	Row    string        // the row's label, "F"
	Chosen []cinema.Seat // the seats chosen in the row, left to right
	Lone   []cinema.Seat // the seats the choice leaves on their own, left to right
	// Suggestions are the nearest seats side by side in the row, as many as chosen there,
	// that leave no seat on its own: at most two, the nearest first.
	Suggestions [][]cinema.Seat
}

func (e *LoneSeatError) Error() string {
	s := fmt.Sprintf("seats %s would leave %s on its own", Names(e.Chosen), Names(e.Lone))
	if len(e.Suggestions) > 0 {
		s += "; " + Names(e.Suggestions[0]) + " would not"
	}
	return s
}

// CompanionError refuses companion seats in a booking without a wheelchair space.
type CompanionError struct {
	Seats []cinema.Seat // the companion seats, in plan order
}

func (e *CompanionError) Error() string {
	return fmt.Sprintf("companion seats %s without a wheelchair space", Names(e.Seats))
}

// Names writes seats by their names for a log or an error: "F11–F12" for seats side by side
// in a row, "F11, F13" otherwise.
func Names(seats []cinema.Seat) string {
	if SideBySide(seats) && len(seats) > 1 {
		return seats[0].RowLabel + seats[0].Label + "–" + seats[len(seats)-1].RowLabel + seats[len(seats)-1].Label
	}
	names := make([]string, len(seats))
	for i, s := range seats {
		names[i] = s.RowLabel + s.Label
	}
	return strings.Join(names, ", ")
}

// SideBySide reports whether seats, in plan order, are one block of one row: neighbouring
// columns with no gap.
func SideBySide(seats []cinema.Seat) bool {
	for i := 1; i < len(seats); i++ {
		a, b := seats[i-1].Position, seats[i].Position
		if a.AreaNumber != b.AreaNumber || a.RowIndex != b.RowIndex || b.ColumnIndex != a.ColumnIndex+1 {
			return false
		}
	}
	return len(seats) > 0
}

// Check returns nil when ch keeps the rules on plan, otherwise a *CompanionError or a
// *LoneSeatError (the first row that breaks the rule, in plan order). Seats not on the plan
// are left to the ticketing system to refuse.
func Check(plan cinema.SeatPlan, ch Choice) error {
	r := newRoom(plan, ch.Party, ch.Keep)
	if err := r.companions(ch); err != nil {
		return err
	}
	for _, key := range r.rowsOf(ch.Chosen) {
		if err := r.loneInRow(key, ch.Chosen, ch.Swap); err != nil {
			return err
		}
	}
	return nil
}

// rowKey names a row of a plan.
type rowKey struct{ area, row int }

func keyOf(p cinema.SeatPosition) rowKey { return rowKey{p.AreaNumber, p.RowIndex} }

// room is a plan as the rules see it: the seats by row and column, and which places are
// occupied before the choice (the base): what the plan says, with the party's seats free
// unless kept.
type room struct {
	rows  map[rowKey]map[int]cinema.Seat
	order []rowKey // rows in plan order
	seat  map[cinema.SeatPosition]cinema.Seat
	base  map[cinema.SeatPosition]bool // occupied before the choice
	party map[cinema.SeatPosition]bool
}

func newRoom(plan cinema.SeatPlan, party, keep []cinema.SeatPosition) *room {
	r := &room{rows: map[rowKey]map[int]cinema.Seat{}, seat: map[cinema.SeatPosition]cinema.Seat{},
		base: map[cinema.SeatPosition]bool{}, party: map[cinema.SeatPosition]bool{}}
	for _, a := range plan.Areas {
		for _, row := range a.Rows {
			for _, s := range row.Seats {
				k := keyOf(s.Position)
				if r.rows[k] == nil {
					r.rows[k] = map[int]cinema.Seat{}
					r.order = append(r.order, k)
				}
				r.rows[k][s.Position.ColumnIndex] = s
				r.seat[s.Position] = s
				r.base[s.Position] = s.Availability != cinema.SeatFree
			}
		}
	}
	for _, p := range party {
		r.party[p] = true
		r.base[p] = false
	}
	for _, p := range keep {
		r.base[p] = true
	}
	return r
}

// ordinary reports whether s is a seat the lone-seat rule looks after: an ordinary seat, not
// a place of a sofa (sold whole), a wheelchair space or a companion seat (each sold to the
// people it is for, so never "on its own" in the rule's sense).
func ordinary(s cinema.Seat) bool {
	return s.Kind == cinema.SeatKindNormal && len(s.SofaGroup) == 0
}

// open reports whether the place at p could be sold to someone else with occupied as the
// room's state: an ordinary seat that is not occupied.
func (r *room) open(p cinema.SeatPosition, occupied func(cinema.SeatPosition) bool) bool {
	s, ok := r.seat[p]
	return ok && ordinary(s) && !occupied(p)
}

// alone reports whether p is an open seat with nothing open on either side.
func (r *room) alone(p cinema.SeatPosition, occupied func(cinema.SeatPosition) bool) bool {
	left, right := p, p
	left.ColumnIndex--
	right.ColumnIndex++
	return r.open(p, occupied) && !r.open(left, occupied) && !r.open(right, occupied)
}

// created lists the seats of row key that taking seats (in that row) leaves on their own and
// that were not on their own before: a seat on its own already is not the choice's doing.
func (r *room) created(key rowKey, taken map[cinema.SeatPosition]bool) []cinema.Seat {
	before := func(p cinema.SeatPosition) bool { return r.base[p] }
	after := func(p cinema.SeatPosition) bool { return r.base[p] || taken[p] }
	var out []cinema.Seat
	for _, col := range sortedCols(r.rows[key]) {
		s := r.rows[key][col]
		p := s.Position
		left, right := p, p
		left.ColumnIndex--
		right.ColumnIndex++
		if (taken[left] || taken[right]) && r.alone(p, after) && !r.alone(p, before) {
			out = append(out, s)
		}
	}
	return out
}

// rowsOf lists the rows of seats on the plan, in plan order.
func (r *room) rowsOf(seats []cinema.SeatPosition) []rowKey {
	in := map[rowKey]bool{}
	for _, p := range seats {
		if _, ok := r.seat[p]; ok {
			in[keyOf(p)] = true
		}
	}
	var out []rowKey
	for _, k := range r.order {
		if in[k] {
			out = append(out, k)
		}
	}
	return out
}

// inRow is the seats of chosen in row key, left to right.
func (r *room) inRow(key rowKey, chosen []cinema.SeatPosition) []cinema.Seat {
	var out []cinema.Seat
	for _, p := range chosen {
		if s, ok := r.seat[p]; ok && keyOf(p) == key && !slices.ContainsFunc(out, func(o cinema.Seat) bool { return o.Position == p }) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b cinema.Seat) int { return cmp.Compare(a.Position.ColumnIndex, b.Position.ColumnIndex) })
	return out
}

// loneInRow applies the lone-seat rule to the seats chosen in one row.
func (r *room) loneInRow(key rowKey, chosen []cinema.SeatPosition, swap bool) error {
	mine := r.inRow(key, chosen)
	// A wheelchair space, a companion seat or a sofa is chosen for where it is, and its
	// neighbours with it: no other seats of the row would do instead.
	if slices.ContainsFunc(mine, func(s cinema.Seat) bool { return !ordinary(s) }) {
		return nil
	}
	lone := r.created(key, positions(mine))
	if len(lone) == 0 {
		return nil
	}
	alts := slices.DeleteFunc(r.blocks(key, len(mine)), func(block []cinema.Seat) bool {
		return swap && slices.ContainsFunc(block, func(s cinema.Seat) bool { return r.party[s.Position] })
	})
	if len(alts) == 0 {
		return nil // nothing in the row avoids it
	}
	// The nearest first: the suggestion moves the choice as little as it can.
	from := mine[0].Position.ColumnIndex
	slices.SortStableFunc(alts, func(a, b []cinema.Seat) int {
		return cmp.Compare(abs(a[0].Position.ColumnIndex-from), abs(b[0].Position.ColumnIndex-from))
	})
	return &LoneSeatError{Row: mine[0].RowLabel, Chosen: mine, Lone: lone, Suggestions: alts[:min(2, len(alts))]}
}

// blocks lists the blocks of n open seats side by side in row key that leave no seat on its
// own, left to right. The seats open are those of the room before the choice, so a block may
// use the party's own seats.
func (r *room) blocks(key rowKey, n int) [][]cinema.Seat {
	row := r.rows[key]
	before := func(p cinema.SeatPosition) bool { return r.base[p] }
	var out [][]cinema.Seat
	for _, col := range sortedCols(row) {
		var block []cinema.Seat
		for c := col; c < col+n; c++ {
			s, ok := row[c]
			if !ok || !r.open(s.Position, before) {
				break
			}
			block = append(block, s)
		}
		if len(block) == n && len(r.created(key, positions(block))) == 0 {
			out = append(out, block)
		}
	}
	return out
}

// companions applies the companion-seat rule to what the party holds after the choice: its
// kept seats and the chosen ones. A companion seat needs a wheelchair space in the same
// booking. What the choice did not bring about is not refused: a booking that already held a
// companion seat without a wheelchair space may keep it while it changes other seats.
func (r *room) companions(ch Choice) error {
	kind := func(p cinema.SeatPosition) cinema.SeatKind { return r.seat[p].Kind }
	after := map[cinema.SeatPosition]bool{}
	for _, p := range slices.Concat(ch.Keep, ch.Chosen) {
		after[p] = true
	}
	var companions []cinema.Seat
	newCompanion, wheelchairAfter, wheelchairBefore := false, false, false
	for p := range after {
		switch kind(p) {
		case cinema.SeatKindWheelchair:
			wheelchairAfter = true
		case cinema.SeatKindCompanion:
			companions = append(companions, r.seat[p])
			newCompanion = newCompanion || !r.party[p]
		}
	}
	for _, p := range ch.Party {
		wheelchairBefore = wheelchairBefore || kind(p) == cinema.SeatKindWheelchair
	}
	if len(companions) == 0 || wheelchairAfter || !(newCompanion || wheelchairBefore) {
		return nil
	}
	slices.SortFunc(companions, func(a, b cinema.Seat) int { return comparePos(a.Position, b.Position) })
	return &CompanionError{Seats: companions}
}

func comparePos(a, b cinema.SeatPosition) int {
	return cmp.Or(cmp.Compare(a.AreaNumber, b.AreaNumber), cmp.Compare(a.RowIndex, b.RowIndex), cmp.Compare(a.ColumnIndex, b.ColumnIndex))
}

func positions(seats []cinema.Seat) map[cinema.SeatPosition]bool {
	out := make(map[cinema.SeatPosition]bool, len(seats))
	for _, s := range seats {
		out[s.Position] = true
	}
	return out
}

func sortedCols(row map[int]cinema.Seat) []int {
	cols := make([]int, 0, len(row))
	for c := range row {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	return cols
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
