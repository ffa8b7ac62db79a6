package bff

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// What the kiosk flow asks of the root (kiosk.Site) beyond what swap asks too (swap_site.go):
// the same site type, one adapter per method.

var _ kiosk.Site = site{}

func (a site) Cinemas(ctx context.Context) ([]cinema.Cinema, error) { return a.s.Cinemas(ctx) }

func (a site) PopFlash(c echo.Context) string { return a.s.PopFlash(c) }

func (a site) LanguageLinks(c echo.Context) []layouts.LangLink { return a.s.LanguageLinks(c) }

func (a site) StaffUser(c echo.Context) string { return a.s.StaffUser(c) }

func (a site) StaffMember(c echo.Context) string { return a.s.StaffMember(c) }

func (a site) HasVisit(c echo.Context) bool { return a.s.hasVisit(c) }

func (a site) EndVisit(c echo.Context) error { return a.s.endVisit(c) }

func (a site) PauseIdle(c echo.Context) { web.PauseKioskIdle(c) }

// newKioskFlow builds the kiosk's handler on s's clients and stores.
func (s *Server) newKioskFlow() *kiosk.Handler {
	h := &kiosk.Handler{
		Site:      site{s},
		Sessions:  s.Sessions,
		Logger:    s.Logger,
		Now:       s.Now,
		Ticketing: s.Ticketing,
		Bookings:  s.PlacedBookings,
		Limits:    kiosk.Limits{Store: s.Limits, PerClient: findPerClient, PerBookingClient: findPerBookingClient},
		Links: kiosk.Links{
			Home:         s.URL(web.RouteHome),
			Buy:          s.URL(web.RouteWhatsOn),
			FindBooking:  s.URL(web.RouteFindBooking),
			VisitReset:   s.URL(web.RouteVisitReset),
			NextCustomer: s.URL(web.RouteNextCustomer),
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
