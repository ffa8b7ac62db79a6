package bff

import (
	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// newKioskFlow builds the kiosk's handler on s's clients and stores.
func (s *Server) newKioskFlow() *kiosk.Handler {
	h := &kiosk.Handler{
		Site:     s.Visits,
		Sessions: s.Sessions,
		Logger:   s.Logger,
		Now:      s.Now,
		Bookings: s.PlacedBookings,
		SiteName: s.Cfg.SiteName,
		Limits:   kiosk.Limits{Store: s.Limits, PerClient: visit.FindPerClient, PerBookingClient: visit.FindPerBookingClient},
		Links: kiosk.Links{
			Home:         s.URL(web.RouteHome),
			Buy:          s.URL(web.RouteWhatsOn),
			FindBooking:  s.URL(web.RouteFindBooking),
			VisitReset:   s.URL(web.RouteVisitReset),
			NextCustomer: s.URL(web.RouteNextCustomer),
		},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.Collections != nil {
		h.Collections = s.Collections
	}
	// The upstream hears of a collection only when the operator configured its route
	// (-collection-path): the real ticketing API has no such operation.
	if s.Cfg.MarkCollectedUpstream && s.Ticketing != nil {
		h.Ticketing = s.Ticketing
	}
	if s.Mail != nil && s.Mail.Signer != nil {
		h.Codes = s.Mail.Signer
	}
	return h
}
