package bff

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/views/pages"
)

// The device cookie names an enrolment; the mode is the enrolment row's, read on each request
// (device.Enrolments caches a row for at most device.DefaultCacheFor, 5 s: a revocation made on
// another replica ends the mode at the first request after that, one made here at once). Only a
// signed-in supervisor enrols a device or takes it out of its mode.

// resolveDevice fills the mode and name of info from its live enrolment. A cookie naming an
// enrolment that is revoked, unknown or another device's is a customer device, and stale says
// the cookie should be rewritten without it. When the row cannot be read the device is a
// customer for this request (the cookie is kept: the next request may read it).
func (s *Server) resolveDevice(c echo.Context, info device.Info) (device.Info, bool) {
	info.Mode, info.Name = device.Customer, ""
	if info.Enrolment == 0 {
		return info, false
	}
	if s.enrolments == nil {
		return info, false
	}
	ctx := c.Request().Context()
	e, ok, err := s.enrolments.Live(ctx, info.Enrolment, info.ID)
	if err != nil {
		loggerFrom(ctx, s.logger).Error("device enrolment not readable: customer mode for this request", "enrolment", info.Enrolment, "err", err)
		return info, false
	}
	if !ok {
		loggerFrom(ctx, s.logger).Info("device enrolment not live: customer mode", "enrolment", info.Enrolment, "device", info.ID)
		info.Enrolment = 0
		return info, true
	}
	info.Mode, info.Name = e.Mode, e.Name
	return info, false
}

// enrolmentDetail is the audit row's Detail of an enrolment: its name and mode.
func enrolmentDetail(e device.Enrolment) string {
	return fmt.Sprintf("%q as %s (enrolment %d)", e.Name, e.Mode, e.ID)
}

func (s *Server) deviceView(c echo.Context) pages.DeviceView {
	dev := deviceOf(c)
	v := pages.DeviceView{
		Current:   dev.Mode.Label(),
		Name:      dev.Name,
		DeviceID:  dev.ID,
		CSRFToken: csrfToken(c),
	}
	user, sup := s.staffRole(c)
	if !sup {
		if user != "" {
			v.StaffName = s.staffMember(c)
		}
		v.SignInURL = s.signInURL(s.url(RouteDevice))
		return v
	}
	v.CanChange = true
	v.ActionURL = s.url(RouteDevice)
	v.DevicesURL = s.url(RouteStaffDevices)
	v.NameValue = dev.Name
	v.Chosen = string(dev.Mode)
	v.Modes = []pages.DeviceMode{
		{Value: string(device.Customer), Label: device.Customer.Label(), Description: "A customer's own phone or computer. Ends this terminal's enrolment."},
		{Value: string(device.Counter), Label: device.Counter.Label(), Description: "Box-office staff: dense layout and keyboard shortcuts."},
		{Value: string(device.Kiosk), Label: device.Kiosk.Label(), Description: "Lobby touch screen: large targets, starts over after a minute without touch, prints tickets."},
	}
	return v
}

// showDevice shows what this terminal is; a supervisor can change it here, anybody else is
// asked to sign in as one.
func (s *Server) showDevice(c echo.Context) error {
	v := s.deviceView(c)
	v.Saved = c.QueryParam("saved") == "1" && v.CanChange
	return s.render(c, http.StatusOK, "This terminal", pages.Device(v))
}

// saveDevice enrols this browser as a counter or kiosk (replacing its current enrolment), or
// takes it out of that mode. Supervisors only: anybody else is refused and nothing changes.
func (s *Server) saveDevice(c echo.Context) error {
	sup, err := s.requireSupervisor(c, s.url(RouteDevice))
	if err != nil {
		return err
	}
	mode := device.Mode(c.FormValue("mode"))
	if !mode.Valid() {
		return &Error{Code: EInvalid, Heading: "Choose a terminal mode", Message: "Please choose one of the three terminal modes.", BackURL: s.url(RouteDevice), BackLabel: "Back"}
	}
	if s.enrolments == nil {
		return &Error{Code: EUnavailable, Heading: "Not available", Message: "Enrolling a terminal needs the service's database.", BackURL: s.url(RouteDevice), BackLabel: "Back"}
	}
	ctx := c.Request().Context()
	info := deviceOf(c)
	if mode == device.Customer {
		if info.Enrolment != 0 {
			e, err := s.enrolments.Revoke(ctx, info.Enrolment, sup)
			switch {
			case err == nil:
				s.recordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
			case !errors.Is(err, device.ErrAlreadyRevoked) && !errors.Is(err, device.ErrNotFound):
				return err
			}
		}
		info.Enrolment, info.Mode, info.Name = 0, device.Customer, ""
	} else {
		name, err := device.CleanName(c.FormValue("name"))
		if err != nil {
			v := s.deviceView(c)
			v.Chosen, v.NameValue = string(mode), c.FormValue("name")
			v.NameError = fmt.Sprintf("Give this terminal a name of up to %d characters, for example “Counter 2” or “Lobby kiosk left”.", device.MaxNameLength)
			return s.render(c, http.StatusUnprocessableEntity, "This terminal", pages.Device(v))
		}
		e, replaced, err := s.enrolments.Enrol(ctx, info.ID, name, mode, sup)
		if err != nil {
			return err
		}
		for _, r := range replaced {
			s.recordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(r)})
		}
		info.Enrolment, info.Mode, info.Name = e.ID, e.Mode, e.Name
		c.Set(ctxDevice, info) // the audit row is made on the device as enrolled now
		s.recordAudit(c, audit.Entry{Action: audit.ActionDeviceEnrol, Detail: enrolmentDetail(e)})
	}
	c.Set(ctxDevice, info) // the rest of this request sees the new mode
	if err := s.device.Write(c.Response(), c.Request(), info); err != nil {
		return err
	}
	// The privilege of the visit changes with the mode: new session token.
	if err := s.renewSession(c); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteDevice)+"?saved=1")
}
