package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
)

// newKioskFlow builds the kiosk's handler on s's clients and stores.
func (s *Server) newKioskFlow() *kiosk.Handler {
	h := &kiosk.Handler{
		Site:     s.Kernel,
		Visits:   s.Visits,
		Sessions: s.Kernel.Sessions,
		Logger:   s.Kernel.Logger,
		Now:      s.Kernel.Now,
		Bookings: s.PlacedBookings,
		SiteName: s.Kernel.Cfg.SiteName,
		Idle:     s.Config.KioskIdle,
		Limits:   kiosk.Limits{Store: s.Kernel.Limits, PerClient: visit.FindPerClient, PerBookingClient: visit.FindPerBookingClient},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.Collections != nil {
		h.Collections = s.Collections
	}
	// The upstream hears of a collection only when the operator configured its route
	// (-collection-path): the real ticketing API has no such operation.
	if s.Config.MarkCollectedUpstream && s.Kernel.Ticketing != nil {
		h.Ticketing = s.Kernel.Ticketing
	}
	if s.Mail != nil && s.Mail.Signer != nil {
		h.Codes = s.Mail.Signer
	}
	return h
}
