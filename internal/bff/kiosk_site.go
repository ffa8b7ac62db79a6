package bff

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// What the kiosk flow asks of the root (kiosk.Site) beyond what swap asks too (swap_site.go):
// the same site type, one adapter per method.

var _ kiosk.Site = site{}

func (a site) Cinemas(ctx context.Context) ([]cinema.Cinema, error) { return a.s.cinemas(ctx) }

func (a site) PopFlash(c echo.Context) string { return a.s.popFlash(c) }

func (a site) LanguageLinks(c echo.Context) []layouts.LangLink { return a.s.languageLinks(c) }

func (a site) StaffUser(c echo.Context) string { return a.s.staffUser(c) }

func (a site) StaffMember(c echo.Context) string { return a.s.staffMember(c) }

func (a site) HasVisit(c echo.Context) bool { return a.s.hasVisit(c) }

func (a site) EndVisit(c echo.Context) error { return a.s.endVisit(c) }

func (a site) PauseIdle(c echo.Context) { pauseKioskIdle(c) }

// newKioskFlow builds the kiosk's handler on s's clients and stores.
func (s *Server) newKioskFlow() *kiosk.Handler {
	h := &kiosk.Handler{
		Site:      site{s},
		Sessions:  s.sessions,
		Logger:    s.logger,
		Now:       s.now,
		Ticketing: s.ticketing,
		Bookings:  s.placedBookings,
		Limits:    kiosk.Limits{Store: s.limits, PerClient: findPerClient, PerBookingClient: findPerBookingClient},
		Links: kiosk.Links{
			Home:         s.url(RouteHome),
			Buy:          s.url(RouteWhatsOn),
			FindBooking:  s.url(RouteFindBooking),
			VisitReset:   s.url(RouteVisitReset),
			NextCustomer: s.url(RouteNextCustomer),
		},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.collections != nil {
		h.Collections = s.collections
	}
	if s.mail != nil && s.mail.signer != nil {
		h.Codes = s.mail.signer
	}
	return h
}
