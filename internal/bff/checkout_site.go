package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/bff/staff"
)

// newCheckoutFlow builds the purchase flow's handler on s's clients and stores, with its
// watcher of unconfirmed orders where there is a database.
func (s *Server) newCheckoutFlow() *checkout.Handler {
	k, v := s.Kernel, s.Visits
	h := &checkout.Handler{
		Site:          k,
		Visits:        v,
		Background:    k.Background,
		Limits:        k.Limits,
		Logger:        k.Logger,
		Now:           k.Now,
		Sessions:      k.Sessions,
		Ticketing:     k.Ticketing,
		BoxOffice:     s.BoxOffice,
		Ledger:        s.Ledger,
		Listings:      s.Listings,
		Purchases:     s.Purchases,
		SeatPlans:     s.SeatPlans,
		Settings:      s.Settings,
		Settler:       s.Settler,
		PaymentMethod: s.PaymentMethod,
		CountersOnly:  staff.CountersOnly(k),
		Admission:     s.admission,
		SalesOpen:     s.Config.SalesOpen,
		FeeQuotes:     s.feeQuotes,
	}
	return h.Start()
}
