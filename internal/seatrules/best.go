package seatrules

import (
	"cmp"
	"slices"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// BestTogether holds the seats the ticketing system picked by itself for new tickets (picked,
// one a ticket, in ticket order) to the cinema's rules. The ticketing system's pick is its
// idea of the best seats together and is kept when it keeps the rules. Otherwise, for each
// area category whose seats break a rule, the nearest seats side by side of that category
// that leave no seat on its own take their place: in the same row when it has room, else the
// nearest row. A pick that breaks the companion rule and has no such block gets the nearest
// free ordinary seats instead. The answer is in ticket order, ok false when nothing changes
// (the pick keeps the rules, or nothing better is free, or a seat is not on the plan).
//
// Unlike Check, a seat left on its own is never accepted here while another block avoids it,
// whichever row that is: nobody chose these seats, so nothing is lost by moving them.
func BestTogether(plan cinema.SeatPlan, picked []cinema.SeatPosition) (_ []cinema.SeatPosition, ok bool) {
	seats := slices.Clone(picked)
	var cats []string
	byCat := map[string][]int{} // category -> indexes into seats
	for i, p := range seats {
		s, found := plan.Seat(p)
		if !found {
			return picked, false
		}
		if byCat[s.AreaCategoryCode] == nil {
			cats = append(cats, s.AreaCategoryCode)
		}
		byCat[s.AreaCategoryCode] = append(byCat[s.AreaCategoryCode], i)
	}
	changed := false
	for _, cat := range cats {
		idx := byCat[cat]
		var group, keep []cinema.SeatPosition
		for i, p := range seats {
			if slices.Contains(idx, i) {
				group = append(group, p)
			} else {
				keep = append(keep, p)
			}
		}
		r := newRoom(plan, seats, keep)
		lone, companion := r.pickBreaks(group, seats)
		if !lone && !companion {
			continue
		}
		better := r.nearestBlock(cat, group)
		if better == nil && companion {
			better = r.nearestSingles(cat, group)
		}
		if better == nil {
			continue
		}
		for k, i := range idx {
			seats[i] = better[k]
		}
		changed = true
	}
	if !changed {
		return picked, false
	}
	return seats, true
}

// pickBreaks reports which rules the ticketing system's pick of group breaks: a seat it
// leaves on its own (whatever the rest of the row offers), a companion seat in an order (all)
// without a wheelchair space.
func (r *room) pickBreaks(group, all []cinema.SeatPosition) (lone, companion bool) {
	for _, key := range r.rowsOf(group) {
		mine := r.inRow(key, group)
		if !slices.ContainsFunc(mine, func(s cinema.Seat) bool { return !ordinary(s) }) && len(r.created(key, positions(mine))) > 0 {
			lone = true
		}
	}
	hasKind := func(seats []cinema.SeatPosition, k cinema.SeatKind) bool {
		return slices.ContainsFunc(seats, func(p cinema.SeatPosition) bool { return r.seat[p].Kind == k })
	}
	companion = hasKind(group, cinema.SeatKindCompanion) && !hasKind(all, cinema.SeatKindWheelchair)
	return lone, companion
}

// centre is where seats are: their area (the first's), their mean row and twice their mean
// column (so a centre between two columns stays whole).
type centre struct{ area, row, col2 int }

func centreOf(seats []cinema.SeatPosition) centre {
	c := centre{area: seats[0].AreaNumber}
	for _, p := range seats {
		c.row += p.RowIndex
		c.col2 += 2 * p.ColumnIndex
	}
	c.row /= len(seats)
	c.col2 /= len(seats)
	return c
}

// distance is how far seats are from c: another area is farther than any row, a row farther
// than any column.
func (c centre) distance(seats []cinema.SeatPosition) int {
	d := centreOf(seats)
	score := abs(d.row-c.row)*1000 + abs(d.col2-c.col2)
	if d.area != c.area {
		score += 1_000_000
	}
	return score
}

// nearestBlock is the block of len(group) open seats side by side of category cat that
// leaves no seat on its own, nearest to group; nil when there is none.
func (r *room) nearestBlock(cat string, group []cinema.SeatPosition) []cinema.SeatPosition {
	c := centreOf(group)
	var best []cinema.SeatPosition
	bestScore := 0
	for _, key := range r.order {
		for _, block := range r.blocks(key, len(group)) {
			if slices.ContainsFunc(block, func(s cinema.Seat) bool { return s.AreaCategoryCode != cat }) {
				continue
			}
			ps := make([]cinema.SeatPosition, len(block))
			for i, s := range block {
				ps[i] = s.Position
			}
			if score := c.distance(ps); best == nil || score < bestScore {
				best, bestScore = ps, score
			}
		}
	}
	return best
}

// nearestSingles is the len(group) open ordinary seats of category cat nearest to group, in
// plan order; nil when there are not that many.
func (r *room) nearestSingles(cat string, group []cinema.SeatPosition) []cinema.SeatPosition {
	c := centreOf(group)
	before := func(p cinema.SeatPosition) bool { return r.base[p] }
	var free []cinema.SeatPosition
	for _, key := range r.order {
		for _, col := range sortedCols(r.rows[key]) {
			if s := r.rows[key][col]; s.AreaCategoryCode == cat && r.open(s.Position, before) {
				free = append(free, s.Position)
			}
		}
	}
	if len(free) < len(group) {
		return nil
	}
	slices.SortStableFunc(free, func(a, b cinema.SeatPosition) int {
		return cmp.Compare(c.distance([]cinema.SeatPosition{a}), c.distance([]cinema.SeatPosition{b}))
	})
	out := free[:len(group)]
	slices.SortFunc(out, comparePos)
	return out
}
