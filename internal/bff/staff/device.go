package staff

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/pages"
)

// The device cookie names an enrolment; the mode is the enrolment row's, read on each request
// (device.Enrolments caches a row for at most device.DefaultCacheFor, 5 s: a revocation made on
// another replica ends the mode at the first request after that, one made here at once). Only a
// signed-in supervisor enrols a device or takes it out of its mode.

// enrolmentDetail is the audit row's Detail of an enrolment: its name, mode and default
// language (machine text, not translated).
func enrolmentDetail(e device.Enrolment) string {
	lang := e.Language
	if lang == "" {
		lang = "site default"
	}
	return fmt.Sprintf("%q as %s in %s (enrolment %d)", e.Name, e.Mode, lang, e.ID)
}

// modeLabel is a terminal mode's name in l's language.
func modeLabel(l *i18n.Localizer, m device.Mode) string {
	switch m {
	case device.Counter:
		return l.T("kiosk.device_mode_counter")
	case device.Kiosk:
		return l.T("kiosk.device_mode_kiosk")
	default:
		return l.T("kiosk.device_mode_customer")
	}
}

// deviceLanguages are the default languages a terminal can have: the site's default first,
// then each of the site's languages, named in its own language.
func (s *Handler) deviceLanguages(l *i18n.Localizer) []pages.DeviceLanguage {
	out := []pages.DeviceLanguage{s.deviceLanguage(l, "")}
	for _, t := range i18n.Languages {
		out = append(out, s.deviceLanguage(l, t.String()))
	}
	return out
}

// deviceLanguage names an enrolment's default language code: a site language in its own
// language ("Deutsch"); "" (or a language the site no longer speaks) as the site's default.
func (s *Handler) deviceLanguage(l *i18n.Localizer, code string) pages.DeviceLanguage {
	if t, ok := s.Langs.Parse(code); ok && code != "" {
		return pages.DeviceLanguage{Value: t.String(), Label: s.Langs.For(t).T("language.name"), Lang: t.String()}
	}
	fallback := s.Langs.Fallback()
	return pages.DeviceLanguage{Value: "", Label: l.T("kiosk.device_language_site", "Language", s.Langs.For(fallback).T("language.name"))}
}

// chosenDeviceLanguage reads the language field of a form: "" (the site's default) or a site
// language's code; ok is false for anything else.
func (s *Handler) chosenDeviceLanguage(c echo.Context) (code string, ok bool) {
	raw := c.FormValue("language")
	if raw == "" {
		return "", true
	}
	t, ok := s.Langs.Parse(raw)
	if !ok {
		return "", false
	}
	return t.String(), true
}

// invalidDeviceLanguage refuses a language the site does not speak (only a hand-made form
// sends one: the pages offer a choice).
func invalidDeviceLanguage(l *i18n.Localizer, back string) error {
	return &web.Error{Code: web.EInvalid, Heading: l.T("kiosk.device_language_invalid_heading"), Message: l.T("kiosk.device_language_invalid"),
		BackURL: back, BackLabel: l.T("kiosk.back")}
}

func (s *Handler) deviceView(c echo.Context) pages.DeviceView {
	dev := web.DeviceOf(c)
	l := web.Loc(c)
	v := pages.DeviceView{
		Current:   modeLabel(l, dev.Mode),
		Mode:      string(dev.Mode),
		Name:      dev.Name,
		Language:  s.deviceLanguage(l, dev.Language),
		DeviceID:  dev.ID,
		CSRFToken: web.CSRFToken(c),
	}
	user, sup := s.StaffRole(c)
	if !sup {
		if user != "" {
			v.StaffName = s.StaffMember(c)
		}
		v.SignInURL = s.SignInURL(s.URL(web.RouteDevice))
		return v
	}
	v.CanChange = true
	v.ActionURL = s.URL(web.RouteDevice)
	v.DevicesURL = s.URL(web.RouteStaffDevices)
	v.NameValue = dev.Name
	v.Chosen = string(dev.Mode)
	v.Languages = s.deviceLanguages(l)
	v.LangValue = v.Language.Value
	v.Modes = []pages.DeviceMode{
		{Value: string(device.Customer), Label: modeLabel(l, device.Customer), Description: l.T("kiosk.device_mode_customer_text")},
		{Value: string(device.Counter), Label: modeLabel(l, device.Counter), Description: l.T("kiosk.device_mode_counter_text")},
		{Value: string(device.Kiosk), Label: modeLabel(l, device.Kiosk), Description: l.T("kiosk.device_mode_kiosk_text")},
	}
	return v
}

// showDevice shows what this terminal is; a supervisor can change it here, anybody else is
// asked to sign in as one.
func (s *Handler) showDevice(c echo.Context) error {
	v := s.deviceView(c)
	v.Saved = c.QueryParam("saved") == "1" && v.CanChange
	return s.Render(c, http.StatusOK, web.Loc(c).T("kiosk.device_title"), pages.Device(v))
}

// saveDevice enrols this browser as a counter or kiosk with its name and default language
// (replacing its current enrolment), or takes it out of that mode. Supervisors only: anybody
// else is refused and nothing changes.
func (s *Handler) saveDevice(c echo.Context) error {
	sup := s.StaffUser(c) // supervisorsOnly
	l := web.Loc(c)
	mode := device.Mode(c.FormValue("mode"))
	if !mode.Valid() {
		return &web.Error{Code: web.EInvalid, Heading: l.T("kiosk.device_mode_invalid_heading"), Message: l.T("kiosk.device_mode_invalid"), BackURL: s.URL(web.RouteDevice), BackLabel: l.T("kiosk.back")}
	}
	if s.Enrolments == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.device_enrol_no_database"), BackURL: s.URL(web.RouteDevice), BackLabel: l.T("kiosk.back")}
	}
	ctx := c.Request().Context()
	info := web.DeviceOf(c)
	if mode == device.Customer {
		if info.Enrolment != 0 {
			e, err := s.Enrolments.Revoke(ctx, info.Enrolment, sup)
			switch {
			case err == nil:
				s.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
			case !errors.Is(err, device.ErrAlreadyRevoked) && !errors.Is(err, device.ErrNotFound):
				return err
			}
		}
		info.Enrolment, info.Mode, info.Name, info.Language = 0, device.Customer, "", ""
	} else {
		lang, ok := s.chosenDeviceLanguage(c)
		if !ok {
			return invalidDeviceLanguage(l, s.URL(web.RouteDevice))
		}
		name, err := device.CleanName(c.FormValue("name"))
		if err != nil {
			v := s.deviceView(c)
			v.Chosen, v.NameValue, v.LangValue = string(mode), c.FormValue("name"), lang
			v.NameError = l.T("kiosk.device_name_invalid", "Max", device.MaxNameLength)
			return s.Render(c, http.StatusUnprocessableEntity, l.T("kiosk.device_title"), pages.Device(v))
		}
		e, replaced, err := s.Enrolments.Enrol(ctx, info.ID, name, mode, lang, sup)
		if err != nil {
			return err
		}
		for _, r := range replaced {
			s.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(r)})
		}
		info.Enrolment, info.Mode, info.Name, info.Language = e.ID, e.Mode, e.Name, e.Language
		c.Set(web.DeviceKey, info) // the audit row is made on the device as enrolled now
		s.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceEnrol, Detail: enrolmentDetail(e)})
	}
	c.Set(web.DeviceKey, info) // the rest of this request sees the new mode
	if err := s.Devices.Write(c.Response(), c.Request(), info); err != nil {
		return err
	}
	// The privilege of the visit changes with the mode: new session token.
	if err := s.RenewSession(c); err != nil {
		return err
	}
	return s.Redirect(c, s.URL(web.RouteDevice)+"?saved=1")
}

// staffLocation is the time zone staff read times in: the first cinema's (UTC without one).
func (s *Handler) staffLocation(ctx context.Context) *time.Location {
	if s.Ticketing == nil {
		return time.UTC
	}
	list, err := s.Cinemas(ctx)
	if err != nil || len(list) == 0 {
		return time.UTC
	}
	return list[0].Location()
}
