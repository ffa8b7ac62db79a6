package sandbox

import (
	"net/http"
	"strconv"
	"time"
)

// markCollectedReply is MarkBookingCollected's answer (wire-profile "Paths": ours): the booking
// family's envelope, whether the tickets had been collected before, and when they were first.
type markCollectedReply struct {
	ResultCode         int     `json:"ResultCode"`
	ExtendedResultCode int     `json:"ExtendedResultCode"`
	ErrorDescription   *string `json:"ErrorDescription"`
	AlreadyCollected   bool    `json:"AlreadyCollected"`
	CollectedUtc       string  `json:"CollectedUtc"`
}

// handleMarkBookingCollected records when a booking's tickets were first printed. A second call
// changes nothing and answers with the first time and AlreadyCollected true.
func (s *Server) handleMarkBookingCollected(r *http.Request) reply {
	var req singleBookingRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famBooking, e)
	}
	n, err := strconv.ParseInt(string(req.BookingNumber), 10, 64)
	if err != nil || req.CinemaID == "" {
		return errReply(famBooking, invalid("CinemaId and a numeric BookingNumber are required"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.sweep(now)
	b, ok := s.bookingNums[bookingKey{req.CinemaID, n}]
	if !ok {
		return errReply(famBooking, errBookingNotFound)
	}
	before := !b.collectedAt.IsZero()
	if !before {
		b.collectedAt = now
		s.log.Info("tickets collected", "cinema", req.CinemaID, "booking", n)
	}
	return okReply(markCollectedReply{AlreadyCollected: before, CollectedUtc: b.collectedAt.UTC().Format(time.RFC3339)})
}
