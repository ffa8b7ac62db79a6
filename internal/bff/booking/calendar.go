package booking

import "github.com/labstack/echo/v4"

// showBookingCalendar is the bound booking's calendar event (.ics): the same event as the last
// e-mail about it (its UID, the current SEQUENCE), with the booking as it stands now.
func (h *Handler) showBookingCalendar(c echo.Context) error {
	b, _, err := h.requireBooking(c)
	if err != nil {
		return err
	}
	return h.Visits.ServeCalendar(c, b)
}
