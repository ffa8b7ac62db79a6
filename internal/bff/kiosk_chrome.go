package bff

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/kiosk"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// The kiosk's part of the page frame (the kiosk flow itself is internal/bff/kiosk).

// ctxKioskIdlePaused marks a request whose page must not start over by itself (a payment is in
// progress, or the page is the idle warning itself).
const ctxKioskIdlePaused = "kiosk_idle_paused"

// pauseKioskIdle keeps the page from starting over while it shows: no idle timer (the body
// carries data-idle-paused, which app.js reads) and no meta refresh. For the pages of a payment
// in progress: the timer pauses while a payment runs.
func pauseKioskIdle(c echo.Context) { c.Set(ctxKioskIdlePaused, true) }

func kioskIdlePaused(c echo.Context) bool {
	p, _ := c.Get(ctxKioskIdlePaused).(bool)
	return p
}

// kioskChrome is the kiosk's part of the page frame: its own navigation (nothing that leaves the
// kiosk), the idle timer for app.js, and for browsers without JavaScript a meta refresh to the
// idle warning page. The start screen of a kiosk without a visit has nothing to reset.
func (s *Server) kioskChrome(c echo.Context, ch *layouts.Chrome) {
	current := c.Path()
	l := loc(c)
	nav := []layouts.Link{
		{Label: l.T("kiosk.buy_title"), URL: s.url(RouteWhatsOn), Current: current == paths[RouteWhatsOn]},
		{Label: l.T("kiosk.collect_title"), URL: s.url(kiosk.RouteCollect), Current: current == paths[kiosk.RouteCollect]},
		{Label: l.T("kiosk.change_title"), URL: s.url(RouteFindBooking), Current: current == paths[RouteFindBooking]},
	}
	for _, link := range ch.Nav { // staff links stay (a supervisor at the kiosk)
		if link.URL != s.url(RouteWhatsOn) && link.URL != s.url(RouteFindBooking) {
			nav = append(nav, link)
		}
	}
	ch.Nav = nav
	if current == paths[RouteHome] && !s.hasVisit(c) {
		return
	}
	ch.IdleResetSeconds = int(s.cfg.KioskIdle / time.Second)
	ch.IdleWarnSeconds = int(kiosk.IdleWarning / time.Second)
	ch.ResetURL = s.url(RouteVisitReset)
	if kioskIdlePaused(c) {
		ch.IdlePaused = true
		return
	}
	ch.IdleRefreshURL = s.url(kiosk.RouteIdle) + "?" + url.Values{"back": {kioskBackURL(c)}}.Encode()
}

// kioskBackURL is where "Continue" on the idle page returns to: this page when it was a GET,
// else the page the form was on (its Referer, when it is this site's), else the start screen.
func kioskBackURL(c echo.Context) string {
	r := c.Request()
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if p, ok := web.RequestLink(r.URL); ok {
			return p
		}
		return web.HomePath
	}
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host {
		if p, ok := web.RequestLink(ref); ok {
			return p
		}
	}
	return web.HomePath
}
