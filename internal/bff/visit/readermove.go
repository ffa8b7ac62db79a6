package visit

import (
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// A card reader takes payments for one terminal at a time: enrolling a terminal with a reader
// another one has moves it (device.Enrolments.Enrol), and the terminal that lost it says so at
// its next payment instead of acting as if it never had one.

// ReaderMoved says, in the request's language, where this device's card reader went ("" when
// it was not taken for another terminal): its reader, the terminal that has it now, who moved
// it and when.
func (v *Visits) ReaderMoved(c echo.Context) string {
	dev := web.DeviceOf(c)
	m := dev.ReaderMove
	if !m.Moved() || v.HasReader(c) {
		return ""
	}
	l := web.Loc(c)
	ctx := c.Request().Context()
	zone := v.DefaultLocation(ctx)
	if dev.CinemaID != "" {
		zone = v.CinemaByID(ctx, dev.CinemaID).Location()
	}
	return l.T("kiosk.device_reader_moved", "Reader", m.ReaderID, "To", m.To, "By", m.By, "When", l.Time(m.At, zone, i18n.DateTimeLong))
}
