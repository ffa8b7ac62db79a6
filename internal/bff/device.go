package bff

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/views/pages"
)

func (s *Server) deviceView(c echo.Context, saved bool) pages.DeviceView {
	dev := deviceOf(c)
	return pages.DeviceView{
		Current:   dev.Mode.Label(),
		DeviceID:  dev.ID,
		ActionURL: s.url(RouteDevice),
		CSRFToken: csrfToken(c),
		Saved:     saved,
		Modes: []pages.DeviceMode{
			{Value: string(device.Customer), Label: device.Customer.Label(), Description: "A customer's own phone or computer."},
			{Value: string(device.Counter), Label: device.Counter.Label(), Description: "Box-office staff: dense layout and keyboard shortcuts."},
			{Value: string(device.Kiosk), Label: device.Kiosk.Label(), Description: "Lobby touch screen: large targets, starts over after a minute without touch, prints tickets."},
		},
	}
}

// showDevice shows the terminal set-up page.
func (s *Server) showDevice(c echo.Context) error {
	return s.render(c, http.StatusOK, "This terminal", pages.Device(s.deviceView(c, c.QueryParam("saved") == "1")))
}

// saveDevice changes the terminal mode kept in the device cookie.
func (s *Server) saveDevice(c echo.Context) error {
	mode := device.Mode(c.FormValue("mode"))
	if !mode.Valid() {
		return &Error{Code: EInvalid, Heading: "Choose a terminal mode", Message: "Please choose one of the three terminal modes.", BackURL: s.url(RouteDevice), BackLabel: "Back"}
	}
	info := deviceOf(c)
	info.Mode = mode
	if err := s.device.Write(c.Response(), c.Request(), info); err != nil {
		return err
	}
	// The privilege of the visit changes with the mode: new session token.
	if err := s.renewSession(c); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteDevice)+"?saved=1")
}

// resetVisit ends the visit (the kiosk's idle reset, or "start over"): the server session is
// destroyed, the device cookie stays.
func (s *Server) resetVisit(c echo.Context) error {
	if err := s.sessions.Destroy(c.Request().Context()); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteHome))
}
