package bff

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Enrolled terminals (/staff/devices): supervisors see every counter and kiosk enrolment,
// change a live one's default language and revoke them.
const (
	RouteStaffDevices        = "staff.devices"
	RouteStaffDeviceRevoke   = "staff.devices.revoke"
	RouteStaffDeviceLanguage = "staff.devices.language"
)

var staffDevicePaths = map[string]string{
	RouteStaffDevices:        "/staff/devices",
	RouteStaffDeviceRevoke:   "/staff/devices/:id/revoke",
	RouteStaffDeviceLanguage: "/staff/devices/:id/language",
}

func (s *Server) registerStaffDeviceRoutes() {
	supervisors := s.supervisorsOnly(s.url(RouteStaffDevices))
	s.route("GET", RouteStaffDevices, s.showStaffDevices, supervisors)
	s.route("POST", RouteStaffDeviceRevoke, s.revokeDevice, supervisors)
	s.route("POST", RouteStaffDeviceLanguage, s.setDeviceLanguage, supervisors)
}

// signInURL is the staff sign-in page that comes back to next after signing in (next is
// dropped unless it is an address on this site: localLink).
func (s *Server) signInURL(next string) string {
	u := s.url(RouteStaffSignIn)
	if n, ok := web.LocalLink(next); ok {
		u += "?next=" + url.QueryEscape(n)
	}
	return u
}

// showStaffDevices lists the enrolments, live ones first.
func (s *Server) showStaffDevices(c echo.Context) error {
	l := loc(c)
	if s.enrolments == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.devices_no_database")}
	}
	ctx := c.Request().Context()
	list, err := s.enrolments.List(ctx, 0)
	if err != nil {
		return err
	}
	v := pages.DevicesView{CSRFToken: csrfToken(c), DeviceURL: s.url(RouteDevice), Languages: s.deviceLanguages(l)}
	if msg := s.popFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	zone := s.staffLocation(ctx)
	at := func(t time.Time) (string, string) {
		return l.Time(t, zone, i18n.DateTimeLong), t.UTC().Format(time.RFC3339)
	}
	this := deviceOf(c)
	for _, e := range list {
		row := pages.DeviceRow{ID: strconv.FormatInt(e.ID, 10), Name: e.Name, Mode: modeLabel(l, e.Mode), ModeValue: string(e.Mode),
			Language: s.deviceLanguage(l, e.Language), EnrolledBy: e.EnrolledBy, DeviceID: e.DeviceID, Live: e.Live(), ThisDevice: e.DeviceID == this.ID}
		row.EnrolledAt, row.EnrolledAtISO = at(e.EnrolledAt)
		if e.Live() {
			row.RevokeURL = s.url(RouteStaffDeviceRevoke, e.ID)
			row.LanguageURL = s.url(RouteStaffDeviceLanguage, e.ID)
		} else {
			row.RevokedAt, row.RevokedAtISO = at(e.RevokedAt)
			row.RevokedBy = e.RevokedBy
		}
		v.Rows = append(v.Rows, row)
	}
	return s.render(c, http.StatusOK, l.T("kiosk.devices_title"), pages.Devices(v))
}

// noSuchDevice is the answer for an enrolment id that names none.
func (s *Server) noSuchDevice(l *i18n.Localizer) error {
	return &web.Error{Code: web.ENotFound, Heading: l.T("kiosk.devices_not_found_heading"), Message: l.T("kiosk.devices_not_found"),
		BackURL: s.url(RouteStaffDevices), BackLabel: l.T("kiosk.devices_back")}
}

// revokeDevice ends an enrolment: its browser is a customer device from its next request on.
func (s *Server) revokeDevice(c echo.Context) error {
	sup := s.staffUser(c) // supervisorsOnly
	l := loc(c)
	if s.enrolments == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.devices_revoke_no_database")}
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return s.noSuchDevice(l)
	}
	e, err := s.enrolments.Revoke(c.Request().Context(), id, sup)
	switch {
	case errors.Is(err, device.ErrNotFound):
		return s.noSuchDevice(l)
	case errors.Is(err, device.ErrAlreadyRevoked):
		s.flash(c, l.T("kiosk.devices_already_revoked", "Name", e.Name, "By", e.RevokedBy))
	case err != nil:
		return err
	case e.Mode == device.Counter:
		s.recordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
		s.flash(c, l.T("kiosk.devices_revoked_counter", "Name", e.Name))
	default:
		s.recordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
		s.flash(c, l.T("kiosk.devices_revoked_kiosk", "Name", e.Name))
	}
	return s.redirect(c, s.url(RouteStaffDevices))
}

// setDeviceLanguage changes the default language of a live enrolment: the kiosk greets its
// next guest in it (a visit under way keeps the language it has). Audited as an enrolment
// change.
func (s *Server) setDeviceLanguage(c echo.Context) error {
	l := loc(c)
	if s.enrolments == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.devices_no_database")}
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return s.noSuchDevice(l)
	}
	lang, ok := s.chosenDeviceLanguage(c)
	if !ok {
		return invalidDeviceLanguage(l, s.url(RouteStaffDevices))
	}
	e, err := s.enrolments.SetLanguage(c.Request().Context(), id, lang)
	switch {
	case errors.Is(err, device.ErrNotFound):
		return s.noSuchDevice(l)
	case errors.Is(err, device.ErrAlreadyRevoked):
		s.flash(c, l.T("kiosk.devices_already_revoked", "Name", e.Name, "By", e.RevokedBy))
	case err != nil:
		return err
	default:
		s.recordAudit(c, audit.Entry{Action: audit.ActionDeviceEnrol, Detail: "default language changed: " + enrolmentDetail(e)})
		s.flash(c, l.T("kiosk.devices_language_saved", "Name", e.Name, "Language", s.deviceLanguage(l, e.Language).Label))
	}
	return s.redirect(c, s.url(RouteStaffDevices))
}

// staffLocation is the time zone staff read times in: the first cinema's (UTC without one).
func (s *Server) staffLocation(ctx context.Context) *time.Location {
	if s.ticketing == nil {
		return time.UTC
	}
	list, err := s.cinemas(ctx)
	if err != nil || len(list) == 0 {
		return time.UTC
	}
	return list[0].Location()
}
