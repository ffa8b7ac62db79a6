package seatplans

import (
	"slices"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Party seating: tickets added to a booking should sit with the people already booked. The
// ticketing system cannot seat tickets added in edit state (it puts them where it likes), so
// the BFF works out free seats beside the party on a seat plan and asks for those. These
// functions are that working out; reading the plan and asking the upstream stay with the
// caller. A plan here is only ever a suggestion: the upstream decides whether the seats are
// still free.

// PartyTicket is one ticket of an order as party seating sees it: its seat, and whether it was
// just added (and so may be moved) or was there before.
type PartyTicket struct {
	Category string // area category code
	Position cinema.SeatPosition
	Added    bool
}

// ApartFromParty reports whether some added ticket sits apart from the party (the seats of
// those there before). Only then is there something to improve, and a plan worth reading:
// with no party or nothing added there is not.
func ApartFromParty(party []cinema.SeatPosition, tickets []PartyTicket) bool {
	var added []cinema.SeatPosition
	for _, t := range tickets {
		if t.Added {
			added = append(added, t.Position)
		}
	}
	if len(party) == 0 || len(added) == 0 {
		return false
	}
	return !SeatedTogether(party, added)
}

// SeatedTogether reports whether every added seat joins the party through seats side by side
// (same area and row, neighbouring columns) of the party and the added tickets.
func SeatedTogether(party, added []cinema.SeatPosition) bool {
	in := map[cinema.SeatPosition]bool{}
	for _, p := range append(slices.Clone(party), added...) {
		in[p] = true
	}
	reached := map[cinema.SeatPosition]bool{}
	queue := slices.Clone(party)
	for _, p := range party {
		reached[p] = true
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, d := range []int{-1, 1} {
			q := cinema.SeatPosition{AreaNumber: p.AreaNumber, RowIndex: p.RowIndex, ColumnIndex: p.ColumnIndex + d}
			if in[q] && !reached[q] {
				reached[q] = true
				queue = append(queue, q)
			}
		}
	}
	for _, p := range added {
		if !reached[p] {
			return false
		}
	}
	return true
}

// BesidePartySeats is the order's tickets, in the same order, with the added ones moved beside
// the party on plan. Each area category is done on its own, beside the party's seats of that
// category (a premium ticket does not join a party in standard seats): when BesideParty finds
// room for all the category's added tickets they move there, in ticket order; otherwise they
// stay where they are. ok is false when no added ticket moves.
func BesidePartySeats(plan cinema.SeatPlan, party []cinema.SeatPosition, tickets []PartyTicket) (seats []PartyTicket, ok bool) {
	need := map[string]int{}
	for _, t := range tickets {
		if t.Added {
			need[t.Category]++
		}
	}
	target := map[string][]cinema.SeatPosition{}
	for cat, n := range need {
		var mine []cinema.SeatPosition
		for _, p := range party {
			if st, ok := plan.Seat(p); ok && st.AreaCategoryCode == cat {
				mine = append(mine, p)
			}
		}
		if got := BesideParty(plan, mine, cat, n); got != nil {
			target[cat] = got
		}
	}
	if len(target) == 0 {
		return nil, false
	}
	seats = slices.Clone(tickets)
	for i, t := range seats {
		if t.Added && len(target[t.Category]) > 0 {
			seats[i].Position, target[t.Category] = target[t.Category][0], target[t.Category][1:]
		}
	}
	return seats, true
}

// BesideParty finds n free ordinary seats (no sofa places) of category cat right beside a
// block of the party's seats (seats side by side in one row): all on one side when they fit
// (the right first), else as many as fit on the right and the rest on the left. Wider blocks
// are tried first; of equally wide ones, the first on the plan. nil when no block has room.
func BesideParty(plan cinema.SeatPlan, party []cinema.SeatPosition, cat string, n int) []cinema.SeatPosition {
	blocks := partyBlocks(plan, party, cat)
	slices.SortStableFunc(blocks, func(x, y partyBlock) int { return (y.hi - y.lo) - (x.hi - x.lo) })
	for _, b := range blocks {
		if out := b.beside(n); out != nil {
			return out
		}
	}
	return nil
}

// partyBlock is a run of the party's seats side by side in one row: columns lo to hi, with
// every seat of the row by column.
type partyBlock struct {
	area, row, lo, hi int
	cols              map[int]cinema.Seat
}

// partyBlocks are the blocks of the party's seats in the areas of category cat, in plan
// order.
func partyBlocks(plan cinema.SeatPlan, party []cinema.SeatPosition, cat string) []partyBlock {
	mine := map[cinema.SeatPosition]bool{}
	for _, p := range party {
		mine[p] = true
	}
	var blocks []partyBlock
	for _, a := range plan.Areas {
		if a.AreaCategoryCode != cat {
			continue
		}
		for ri, r := range a.Rows {
			blocks = append(blocks, rowBlocks(a.Number, ri, r, mine)...)
		}
	}
	return blocks
}

// rowBlocks cuts the party's seats (mine) of a row into blocks of adjacent columns.
func rowBlocks(area, ri int, r cinema.Row, mine map[cinema.SeatPosition]bool) []partyBlock {
	cols := map[int]cinema.Seat{}
	var partyCols []int
	for _, st := range r.Seats {
		cols[st.Position.ColumnIndex] = st
		if mine[st.Position] {
			partyCols = append(partyCols, st.Position.ColumnIndex)
		}
	}
	slices.Sort(partyCols)
	var blocks []partyBlock
	for i := 0; i < len(partyCols); {
		j := i
		for j+1 < len(partyCols) && partyCols[j+1] == partyCols[j]+1 {
			j++
		}
		blocks = append(blocks, partyBlock{area: area, row: ri, lo: partyCols[i], hi: partyCols[j], cols: cols})
		i = j + 1
	}
	return blocks
}

// usable reports whether the seat at col is free, ordinary and not a sofa place.
func (b partyBlock) usable(col int) bool {
	st, ok := b.cols[col]
	return ok && st.Availability == cinema.SeatFree && st.Kind == cinema.SeatKindNormal && len(st.SofaGroup) == 0
}

// beside is n usable seats right beside the block: all on one side when they fit (the right
// first), else as many as fit on the right and the rest on the left; nil when there is no
// room.
func (b partyBlock) beside(n int) []cinema.SeatPosition {
	right, left := 0, 0
	for right < n && b.usable(b.hi+1+right) {
		right++
	}
	for left < n && b.usable(b.lo-1-left) {
		left++
	}
	if right+left < n {
		return nil
	}
	r := min(right, n) // as many as fit on the right, the rest on the left
	if left >= n && right < n {
		r = 0
	}
	var out []cinema.SeatPosition
	for i := range r {
		out = append(out, b.cols[b.hi+1+i].Position)
	}
	for i := range n - r {
		out = append(out, b.cols[b.lo-1-i].Position)
	}
	return out
}
