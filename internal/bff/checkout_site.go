package bff

import (
	"database/sql"

	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/feequotes"
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
		FeeQuotes:     s.newFeeQuotes(),
	}
	return h.Start()
}

// newFeeQuotes keeps the booking fees learned from orders in the database, where every replica
// and the next start read them; without a database, in this process's memory.
func (s *Server) newFeeQuotes() *feequotes.Store {
	var db *sql.DB
	if s.Storage != nil {
		db = s.Storage.SQL
	}
	return feequotes.New(db, feequotes.Options{Logger: s.Kernel.Logger})
}
