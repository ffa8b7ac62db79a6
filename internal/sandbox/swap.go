package sandbox

import (
	"fmt"
	"net/http"
)

func swapRefusal(status int, reason, format string, args ...any) *apiError {
	return &apiError{status: status, result: resInvalidRequest, ext: extSwapRefused, reason: reason, msg: fmt.Sprintf(format, args...)}
}

type swapRequest struct {
	Swaps []swapItem `json:"swaps"`
}

// swapItem is one swap: a ticket of the booking and the seat it moves to.
type swapItem struct {
	TicketSequenceNumber *flexInt  `json:"ticketSequenceNumber"`
	NewSeat              *swapSeat `json:"newSeat"`
}

type swapSeat struct {
	AreaNumber       flexInt  `json:"areaNumber"`
	RowIndex         flexInt  `json:"rowIndex"`
	ColumnIndex      flexInt  `json:"columnIndex"`
	AreaCategoryCode string   `json:"areaCategoryCode"` // optional check
	SessionID        *flexInt `json:"sessionId"`        // optional check
}

// handleSwapSeats moves booked seats of a paid booking to free seats of the
// same session and area category (contract 4.9). All swaps are checked
// before any seat moves, so a refusal changes nothing.
func (s *Server) handleSwapSeats(r *http.Request) reply {
	var req swapRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famEdit, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.sweep(now)
	b, ok := s.bookings[r.PathValue("bookingId")]
	if !ok || b.cinema.ID != r.PathValue("cinemaId") {
		return errReply(famEdit, errBookingNotFound)
	}
	if ss := b.startedSession(now); ss != nil {
		return errReply(famEdit, swapRefusal(http.StatusBadRequest, "session_started", "%s", sessionStartedText(ss, "seats cannot be swapped once the session has started")))
	}
	if e := s.checkSwaps(b, &req); e != nil {
		return errReply(famEdit, e)
	}
	return okReply(camelEnvelope{})
}

type move struct {
	t    *bookedTicket
	seat int
}

// checkSwaps checks every swap of the request and, when all may be made, moves the seats.
func (s *Server) checkSwaps(b *booking, req *swapRequest) *apiError {
	if e := swappable(b, req); e != nil {
		return e
	}
	sc := newSwapCheck(b)
	var moves []move
	for i, sw := range req.Swaps {
		m, e := sc.check(i, sw)
		if e != nil {
			return e
		}
		moves = append(moves, m)
	}
	if e := sc.wholePackages(); e != nil {
		return e
	}
	for _, m := range moves {
		m.t.sess.setOwner(m.t.seat, owner{})
	}
	for _, m := range moves {
		m.t.seat = m.seat
		m.t.sess.setOwner(m.seat, owner{booking: b})
	}
	s.log.Info("seats swapped", "booking_id", b.id, "swaps", len(moves))
	return nil
}

// swappable refuses a booking whose seats cannot be swapped at all, and a request without
// swaps.
func swappable(b *booking, req *swapRequest) *apiError {
	switch {
	case !b.paid:
		return swapRefusal(http.StatusBadRequest, "unpaid_booking", "seats of an unpaid booking cannot be swapped")
	case b.inSeatDelivery:
		return swapRefusal(http.StatusBadRequest, "in_seat_delivery", "the booking has in-seat delivery configured; its seats cannot be swapped")
	case b.edit != nil:
		return swapRefusal(http.StatusConflict, "already_in_edit", "the booking is being edited; finish the edit first")
	case len(req.Swaps) == 0:
		return swapRefusal(http.StatusBadRequest, "invalid_request", "swaps is empty")
	}
	return nil
}

// swapCheck is what checking the swaps of a booking one by one needs: its tickets by
// sequence number, the seats it has, and the tickets and seats earlier swaps named.
type swapCheck struct {
	b          *booking
	bySeq      map[int]*bookedTicket
	inBooking  map[*session]map[int]bool
	seenTicket map[*bookedTicket]bool
	seenSeat   map[*session]map[int]bool
}

func newSwapCheck(b *booking) *swapCheck {
	sc := &swapCheck{b: b, bySeq: map[int]*bookedTicket{}, inBooking: map[*session]map[int]bool{},
		seenTicket: map[*bookedTicket]bool{}, seenSeat: map[*session]map[int]bool{}}
	for _, t := range b.tickets {
		sc.bySeq[t.seq] = t
		if sc.inBooking[t.sess] == nil {
			sc.inBooking[t.sess] = map[int]bool{}
		}
		sc.inBooking[t.sess][t.seat] = true
	}
	return sc
}

// check checks swap i: a ticket of the booking named once, moving within its session to a
// seat of its area category that no other swap names and nobody has.
func (sc *swapCheck) check(i int, sw swapItem) (move, *apiError) {
	if sw.TicketSequenceNumber == nil || sw.NewSeat == nil {
		return move{}, swapRefusal(http.StatusBadRequest, "invalid_request", "swaps[%d] needs ticketSequenceNumber and newSeat", i)
	}
	t, ok := sc.bySeq[int(*sw.TicketSequenceNumber)]
	if !ok {
		return move{}, swapRefusal(http.StatusBadRequest, "unknown_ticket", "the booking has no ticket with sequence number %d", *sw.TicketSequenceNumber)
	}
	if sc.seenTicket[t] {
		return move{}, swapRefusal(http.StatusBadRequest, "invalid_request", "ticket %d is swapped twice", t.seq)
	}
	sc.seenTicket[t] = true
	idx, e := swapTarget(t, sw.NewSeat)
	if e != nil {
		return move{}, e
	}
	if e := sc.targetFree(t.sess, idx); e != nil {
		return move{}, e
	}
	return move{t, idx}, nil
}

// swapTarget is the seat ns names for ticket t: in t's session and area category.
func swapTarget(t *bookedTicket, ns *swapSeat) (int, *apiError) {
	ss := t.sess
	if ns.SessionID != nil && int(*ns.SessionID) != ss.id {
		return 0, swapRefusal(http.StatusBadRequest, "different_session", "ticket %d is for session %d; seats can only move within it", t.seq, ss.id)
	}
	idx, ok := ss.screen.byPos[seatPos{int(ns.AreaNumber), int(ns.RowIndex), int(ns.ColumnIndex)}]
	if !ok {
		return 0, swapRefusal(http.StatusBadRequest, "invalid_seat", "no seat at area %d row %d column %d", ns.AreaNumber, ns.RowIndex, ns.ColumnIndex)
	}
	d := &ss.screen.seats[idx]
	from := &ss.screen.seats[t.seat]
	if d.area.category.Code != from.area.category.Code || (ns.AreaCategoryCode != "" && ns.AreaCategoryCode != from.area.category.Code) {
		return 0, swapRefusal(http.StatusBadRequest, "different_area_category", "seat %s%s is in area category %s, ticket %d is in %s", d.rowName, d.label, d.area.category.Code, t.seq, from.area.category.Code)
	}
	return idx, nil
}

// targetFree checks that no earlier swap moves to seat idx, that the booking does not have
// it already, and that it is sellable and nobody else's.
func (sc *swapCheck) targetFree(ss *session, idx int) *apiError {
	d := &ss.screen.seats[idx]
	if sc.seenSeat[ss] == nil {
		sc.seenSeat[ss] = map[int]bool{}
	}
	if sc.seenSeat[ss][idx] {
		return swapRefusal(http.StatusBadRequest, "duplicate_seat", "seat %s%s is the target of more than one swap", d.rowName, d.label)
	}
	sc.seenSeat[ss][idx] = true
	if sc.inBooking[ss][idx] {
		return swapRefusal(http.StatusConflict, "seat_in_booking", "seat %s%s is already assigned to this booking", d.rowName, d.label)
	}
	if !d.sellable() || ss.owners[idx] != (owner{}) {
		return swapRefusal(http.StatusConflict, "seat_unavailable", "seat %s%s is not available", d.rowName, d.label)
	}
	return nil
}

// wholePackages refuses swaps that move only some tickets of a package.
func (sc *swapCheck) wholePackages() *apiError {
	for _, t := range sc.b.tickets {
		if t.pkg == 0 || sc.seenTicket[t] {
			continue
		}
		for mt := range sc.seenTicket {
			if mt.pkg == t.pkg {
				return swapRefusal(http.StatusBadRequest, "partial_package", "ticket %d is in a package with ticket %d; all tickets of a package must be swapped together", mt.seq, t.seq)
			}
		}
	}
	return nil
}
