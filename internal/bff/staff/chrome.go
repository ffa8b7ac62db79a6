package staff

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// Chrome is the staff's part of the page frame, registered with the kernel as a chrome hook:
// at a counter the booking link finds anyone's booking; a signed-in staff member gets their
// name, sign-out, Needs attention and, for a supervisor, the back office (with the
// purchase's waiting line); at a counter also
// the next customer and whom the counter serves.
func (h *Handler) Chrome(c echo.Context, ch *layouts.Chrome) {
	k, l, current := h.Site, web.Loc(c), c.Path()
	if k.AtCounter(c) {
		for i := range ch.Nav {
			if ch.Nav[i].URL == k.URL("booking.find") {
				ch.Nav[i].Label = l.T("nav.counter_bookings") // staff find anyone's booking
				ch.Nav[i].Shortcut = "/"                      // from any page, to the look-up's field
			}
		}
	}
	name := k.StaffMember(c)
	if name == "" {
		return
	}
	link := func(label, route string) layouts.Link {
		return layouts.Link{Label: label, URL: k.URL(route), Current: current == k.Path(route)}
	}
	ch.StaffName, ch.SignOutURL = words.StaffName(l, name), k.URL("staff.signout")
	ch.Nav = append(ch.Nav, link(l.T("nav.needs_attention"), "staff.attention"))
	if k.IsSupervisor(c) {
		ch.Nav = append(ch.Nav, link(l.T("nav.audit"), "staff.audit"),
			link(l.T("nav.terminals"), "staff.devices"), link(l.T("nav.staff_accounts"), "staff.accounts"),
			link(l.T("nav.waiting_line"), "staff.queue"))
	}
	if web.DeviceOf(c).Mode == device.Counter {
		ch.NextCustomerURL = k.URL("staff.next")
		if c.Request().Method == http.MethodGet {
			ch.NextCustomerFrom = c.Request().URL.RequestURI()
		}
		if h.CustomerStrip != nil {
			ch.Customer = h.CustomerStrip(c)
		}
	}
}
