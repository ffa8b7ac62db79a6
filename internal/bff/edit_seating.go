package bff

import (
	"context"
	"slices"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// seatWithParty moves tickets just added to an edit next to the party's seats. AddTickets
// cannot take seats in edit state, so the ticketing system seats them where it likes (the
// sandbox: the best block of the area, wherever the party sits). When free seats beside the
// party are there for them, in the same row and area, SetSelectedSeats puts them there; when
// not, or when that fails, the ticketing system's choice stays. It reports whether it moved
// them.
func (s *Server) seatWithParty(ctx context.Context, e editVisit, before, after cinema.Order) bool {
	had := map[string]bool{}
	var party []cinema.SeatPosition
	for _, t := range editSeatTickets(e, before) {
		had[t.ID] = true
		if t.Seat != nil && t.Seat.Placed {
			party = append(party, t.Seat.Position)
		}
	}
	live := editSeatTickets(e, after)
	var added []cinema.OrderTicket
	for _, t := range live {
		if t.Seat == nil || !t.Seat.Placed {
			return false // seats we cannot place: nothing to improve on
		}
		if !had[t.ID] {
			added = append(added, t)
		}
	}
	if len(party) == 0 || len(added) == 0 {
		return false
	}
	var addedPos []cinema.SeatPosition
	for _, t := range added {
		addedPos = append(addedPos, t.Seat.Position)
	}
	if seatedTogether(party, addedPos) {
		return false // already beside the party
	}
	// A cached plan (seat states at most seatStatesTTL old): the upstream decides below
	// whether the seats beside the party are still free.
	snap, err := s.seatPlans.Plan(ctx, e.CinemaID, e.SessionID)
	if err != nil {
		return false
	}
	plan := snap.Plan
	// Per area category: the party's seats of that category, and where the added tickets go.
	need := map[string]int{}
	for _, t := range added {
		need[t.Seat.AreaCategoryCode]++
	}
	target := map[string][]cinema.SeatPosition{}
	for cat, n := range need {
		var mine []cinema.SeatPosition
		for _, p := range party {
			if st, ok := plan.Seat(p); ok && st.AreaCategoryCode == cat {
				mine = append(mine, p)
			}
		}
		if got := besideParty(plan, mine, cat, n); got != nil {
			target[cat] = got
		}
	}
	if len(target) == 0 {
		return false
	}
	var seats []upstream.SelectedSeat
	for _, t := range live {
		pos, cat := t.Seat.Position, t.Seat.AreaCategoryCode
		if !had[t.ID] && len(target[cat]) > 0 {
			pos, target[cat] = target[cat][0], target[cat][1:]
		}
		seats = append(seats, upstream.SelectedSeat{AreaCategoryCode: cat, Position: pos})
	}
	if _, err := s.ticketing.SetSelectedSeats(ctx, upstream.SetSelectedSeatsRequest{UserSessionID: e.UserSessionID, CinemaID: e.CinemaID, SessionID: e.SessionID, Seats: seats}); err != nil {
		loggerFrom(ctx, s.logger).Info("added tickets not moved beside the party", "err", err)
		return false
	}
	return true
}

// seatedTogether reports whether every added seat joins the party through seats side by side
// (same area and row, neighbouring columns) of the party and the added tickets.
func seatedTogether(party, added []cinema.SeatPosition) bool {
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

// besideParty finds n free ordinary seats of category cat right beside a block of the party's
// seats, in the same row: all to one side when they fit (right first), else split over both
// sides. Rows where more of the party sits come first. nil when there are none.
func besideParty(plan cinema.SeatPlan, party []cinema.SeatPosition, cat string, n int) []cinema.SeatPosition {
	type block struct {
		area, row, lo, hi int
		cols              map[int]cinema.Seat
	}
	mine := map[cinema.SeatPosition]bool{}
	for _, p := range party {
		mine[p] = true
	}
	var blocks []block
	for _, a := range plan.Areas {
		if a.AreaCategoryCode != cat {
			continue
		}
		for ri, r := range a.Rows {
			cols := map[int]cinema.Seat{}
			var partyCols []int
			for _, st := range r.Seats {
				cols[st.Position.ColumnIndex] = st
				if mine[st.Position] {
					partyCols = append(partyCols, st.Position.ColumnIndex)
				}
			}
			slices.Sort(partyCols)
			for i := 0; i < len(partyCols); {
				j := i
				for j+1 < len(partyCols) && partyCols[j+1] == partyCols[j]+1 {
					j++
				}
				blocks = append(blocks, block{area: a.Number, row: ri, lo: partyCols[i], hi: partyCols[j], cols: cols})
				i = j + 1
			}
		}
	}
	slices.SortStableFunc(blocks, func(x, y block) int { return (y.hi - y.lo) - (x.hi - x.lo) })
	usable := func(b block, col int) bool {
		st, ok := b.cols[col]
		return ok && st.Availability == cinema.SeatFree && st.Kind == cinema.SeatKindNormal && len(st.SofaGroup) == 0
	}
	for _, b := range blocks {
		right, left := 0, 0
		for right < n && usable(b, b.hi+1+right) {
			right++
		}
		for left < n && usable(b, b.lo-1-left) {
			left++
		}
		if right+left < n {
			continue
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
	return nil
}
