package kiosk

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/views/pages/kioskview"
)

// The attract screen and the accessibility controls.

// sessBegun marks a visit begun with "Touch to start": from then on the kiosk's home page is
// the start screen, until the visit ends.
const sessBegun = "kiosk.begun"

// attract is the kiosk's rest state, shown while no visit runs: the cinema's name and one
// full-screen "Touch to start" that begins a visit (begin). It needs no JavaScript.
func (h *Handler) attract(c echo.Context) error {
	v := kioskview.AttractView{
		SiteName:  h.SiteName,
		BeginURL:  h.url("kiosk.begin"),
		CSRFToken: web.CSRFToken(c),
		VoicesURL: h.url("kiosk.voices"),
		Languages: h.languages(c),
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("kiosk.attract_title"), kioskview.Attract(v))
}

// begin starts a visit from the attract screen and shows the start screen. The visit's
// session is what the idle reset ends, which brings the attract screen back.
func (h *Handler) begin(c echo.Context) error {
	if !web.IsKiosk(c) {
		return web.Redirect(c, h.url("home"))
	}
	h.Sessions.Put(c.Request().Context(), sessBegun, true)
	return web.Redirect(c, h.url("home"))
}

// setDisplay switches "Larger text" or "High contrast" for this visit and goes back to the
// page the guest was on. The choice is kept in the visit's session, so it lasts until the
// visit ends and the next guest starts with the kiosk's usual look.
func (h *Handler) setDisplay(c echo.Context) error {
	back := selflink.OrHome(c.FormValue("back"))
	if !web.IsKiosk(c) {
		return web.Redirect(c, back)
	}
	ctx := c.Request().Context()
	d, _ := displayInSession.Get(ctx, h.Sessions)
	switch c.FormValue("toggle") {
	case "large":
		d.LargeText = !d.LargeText
	case "contrast":
		d.HighContrast = !d.HighContrast
	default: // nothing to switch: the page as it was
		return web.Redirect(c, back)
	}
	displayInSession.Put(ctx, h.Sessions, d)
	h.Sessions.Put(ctx, sessBegun, true) // a guest who touched a control has begun a visit
	return web.Redirect(c, back)
}
