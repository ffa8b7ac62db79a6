package sandbox

import (
	"fmt"
	"net/http"
)

func swapRefusal(status int, reason, format string, args ...any) *apiError {
	return &apiError{status: status, result: resInvalidRequest, ext: extSwapRefused, reason: reason, msg: fmt.Sprintf(format, args...)}
}

type swapRequest struct {
	Swaps []struct {
		TicketSequenceNumber *flexInt `json:"ticketSequenceNumber"`
		NewSeat              *struct {
			AreaNumber       flexInt  `json:"areaNumber"`
			RowIndex         flexInt  `json:"rowIndex"`
			ColumnIndex      flexInt  `json:"columnIndex"`
			AreaCategoryCode string   `json:"areaCategoryCode"` // optional check
			SessionID        *flexInt `json:"sessionId"`        // optional check
		} `json:"newSeat"`
	} `json:"swaps"`
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

func (s *Server) checkSwaps(b *booking, req *swapRequest) *apiError {
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
	bySeq := map[int]*bookedTicket{}
	inBooking := map[*session]map[int]bool{}
	for _, t := range b.tickets {
		bySeq[t.seq] = t
		if inBooking[t.sess] == nil {
			inBooking[t.sess] = map[int]bool{}
		}
		inBooking[t.sess][t.seat] = true
	}
	var moves []move
	seenTicket := map[*bookedTicket]bool{}
	seenSeat := map[*session]map[int]bool{}
	for i, sw := range req.Swaps {
		if sw.TicketSequenceNumber == nil || sw.NewSeat == nil {
			return swapRefusal(http.StatusBadRequest, "invalid_request", "swaps[%d] needs ticketSequenceNumber and newSeat", i)
		}
		t, ok := bySeq[int(*sw.TicketSequenceNumber)]
		if !ok {
			return swapRefusal(http.StatusBadRequest, "unknown_ticket", "the booking has no ticket with sequence number %d", *sw.TicketSequenceNumber)
		}
		if seenTicket[t] {
			return swapRefusal(http.StatusBadRequest, "invalid_request", "ticket %d is swapped twice", t.seq)
		}
		seenTicket[t] = true
		ns := sw.NewSeat
		ss := t.sess
		if ns.SessionID != nil && int(*ns.SessionID) != ss.id {
			return swapRefusal(http.StatusBadRequest, "different_session", "ticket %d is for session %d; seats can only move within it", t.seq, ss.id)
		}
		idx, ok := ss.screen.byPos[seatPos{int(ns.AreaNumber), int(ns.RowIndex), int(ns.ColumnIndex)}]
		if !ok {
			return swapRefusal(http.StatusBadRequest, "invalid_seat", "no seat at area %d row %d column %d", ns.AreaNumber, ns.RowIndex, ns.ColumnIndex)
		}
		d := &ss.screen.seats[idx]
		from := &ss.screen.seats[t.seat]
		if d.area.category.Code != from.area.category.Code || (ns.AreaCategoryCode != "" && ns.AreaCategoryCode != from.area.category.Code) {
			return swapRefusal(http.StatusBadRequest, "different_area_category", "seat %s%s is in area category %s, ticket %d is in %s", d.rowName, d.label, d.area.category.Code, t.seq, from.area.category.Code)
		}
		if seenSeat[ss] == nil {
			seenSeat[ss] = map[int]bool{}
		}
		if seenSeat[ss][idx] {
			return swapRefusal(http.StatusBadRequest, "duplicate_seat", "seat %s%s is the target of more than one swap", d.rowName, d.label)
		}
		seenSeat[ss][idx] = true
		if inBooking[ss][idx] {
			return swapRefusal(http.StatusConflict, "seat_in_booking", "seat %s%s is already assigned to this booking", d.rowName, d.label)
		}
		if !d.sellable() || ss.owners[idx] != (owner{}) {
			return swapRefusal(http.StatusConflict, "seat_unavailable", "seat %s%s is not available", d.rowName, d.label)
		}
		moves = append(moves, move{t, idx})
	}
	for _, t := range b.tickets {
		if t.pkg == 0 || seenTicket[t] {
			continue
		}
		for mt := range seenTicket {
			if mt.pkg == t.pkg {
				return swapRefusal(http.StatusBadRequest, "partial_package", "ticket %d is in a package with ticket %d; all tickets of a package must be swapped together", mt.seq, t.seq)
			}
		}
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
