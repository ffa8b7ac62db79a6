package bff

import (
	"context"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	staffpages "github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/views/pages"
)

// What the back office (staffpages.Site) asks of the root beyond what swap and kiosk ask too
// (swap_site.go, kiosk_site.go): the same site type, one adapter per method.

var _ staffpages.Site = site{}

func (a site) Flash(c echo.Context, msg string) { a.s.Flash(c, msg) }

func (a site) SignedInStaff(c echo.Context) (staff.Account, bool) { return a.s.SignedInStaff(c) }

func (a site) StaffLocation(ctx context.Context) *time.Location { return a.s.staffLocation(ctx) }

func (a site) DefaultLocation(ctx context.Context) *time.Location { return a.s.DefaultLocation(ctx) }

func (a site) WhenWithSeconds(l *i18n.Localizer, t time.Time, zone *time.Location) string {
	return web.WhenWithSeconds(l, t, zone)
}

func (a site) DeviceLanguages(l *i18n.Localizer) []pages.DeviceLanguage {
	return a.s.deviceLanguages(l)
}

func (a site) DeviceLanguage(l *i18n.Localizer, code string) pages.DeviceLanguage {
	return a.s.deviceLanguage(l, code)
}

func (a site) ChosenDeviceLanguage(c echo.Context) (string, bool) { return a.s.chosenDeviceLanguage(c) }

func (a site) InvalidDeviceLanguage(l *i18n.Localizer, back string) error {
	return invalidDeviceLanguage(l, back)
}

func (a site) ModeLabel(l *i18n.Localizer, m device.Mode) string { return modeLabel(l, m) }

func (a site) EnrolmentDetail(e device.Enrolment) string { return enrolmentDetail(e) }

// newStaffFlow builds the back office's handler on s's stores, with the guards of its pages.
func (s *Server) newStaffFlow() *staffpages.Handler {
	h := &staffpages.Handler{
		Site:   site{s},
		Logger: s.Logger,
		Trail:  audit.New(s.sql),
		Links:  staffpages.Links{Device: s.URL(web.RouteDevice)},
		Guards: staffpages.Guards{
			Accounts: []echo.MiddlewareFunc{web.Guard(s.AccountsSupervisor)},
			Devices:  []echo.MiddlewareFunc{s.SupervisorsOnly(s.URL(web.RouteStaffDevices))},
			Audit:    []echo.MiddlewareFunc{s.StaffOnly(), web.Guard(s.AuditSupervisor)},
		},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.Staff != nil {
		h.Accounts = s.Staff
	}
	if s.Enrolments != nil {
		h.Enrolments = s.Enrolments
	}
	return h
}

// staffLocation is the time zone staff read times in: the first cinema's (UTC without one).
func (s *Server) staffLocation(ctx context.Context) *time.Location {
	if s.Ticketing == nil {
		return time.UTC
	}
	list, err := s.Cinemas(ctx)
	if err != nil || len(list) == 0 {
		return time.UTC
	}
	return list[0].Location()
}
