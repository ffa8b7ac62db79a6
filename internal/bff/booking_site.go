package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/booking"
	"github.com/cinemabff/cinemabff/internal/bff/staff"
)

// newBookingFlow builds the booking flow's handler on s's clients and stores.
func (s *Server) newBookingFlow() *booking.Handler {
	k, v := s.Kernel, s.Visits
	h := &booking.Handler{
		Site:         k,
		Visits:       v,
		Limits:       k.Limits,
		Logger:       k.Logger,
		Now:          k.Now,
		Sessions:     k.Sessions,
		Ticketing:    k.Ticketing,
		Ledger:       s.Ledger,
		Listings:     s.Listings,
		Mail:         s.Mail,
		Payments:     s.Payments,
		SeatPlans:    s.SeatPlans,
		Settings:     s.Settings,
		Settler:      s.Settler,
		SalesOpen:    s.Config.SalesOpen,
		CountersOnly: staff.CountersOnly(k),
	}
	if s.attentionStore != nil {
		h.Reviews = s.attentionStore // a nil *attention.Store in the interface would not be nil
	}
	return h
}
