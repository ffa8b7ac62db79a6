package kiosk

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// Chrome is the kiosk's part of the page frame, registered with the kernel as a chrome hook:
// on a kiosk, its own navigation (nothing that leaves the kiosk), the guest's display choice,
// the idle timer for app.js, and for browsers without JavaScript a meta refresh to the idle
// warning page. The start screen of a kiosk without a visit has nothing to reset.
func (h *Handler) Chrome(c echo.Context, ch *layouts.Chrome) {
	if web.DeviceOf(c).Mode != device.Kiosk {
		return
	}
	current := c.Path()
	l := web.Loc(c)
	nav := []layouts.Link{
		{Label: l.T("kiosk.buy_title"), URL: h.url("whatson"), Current: current == h.Site.Path("whatson")},
		{Label: l.T("kiosk.collect_title"), URL: h.url("kiosk.collect"), Current: current == h.Site.Path("kiosk.collect")},
		{Label: l.T("kiosk.change_title"), URL: h.url("booking.find"), Current: current == h.Site.Path("booking.find")},
	}
	for _, link := range ch.Nav { // staff links stay (a supervisor at the kiosk)
		if link.URL != h.url("whatson") && link.URL != h.url("booking.find") {
			nav = append(nav, link)
		}
	}
	ch.Nav = nav
	d, _ := displayInSession.Get(c.Request().Context(), h.Sessions)
	ch.KioskDisplay = &layouts.KioskDisplay{
		LargeText:    d.LargeText,
		HighContrast: d.HighContrast,
		URL:          h.url("kiosk.display"),
		Back:         backURL(c),
	}
	ch.Speech = true
	if current == h.Site.Path("home") && !h.Site.HasSession(c) {
		ch.SpeechEnd = true
		return
	}
	ch.IdleResetSeconds = int(h.Idle / time.Second)
	ch.IdleWarnSeconds = int(idleWarning / time.Second)
	ch.ResetURL = h.url("visit.reset")
	if paused, until := web.IdlePaused(c); paused {
		ch.IdlePaused = true
		if !until.IsZero() {
			ch.IdlePausedFor = max(int((time.Until(until)+time.Second-1)/time.Second), 1)
		}
		return
	}
	ch.IdleRefreshURL = h.url("kiosk.idle") + "?" + url.Values{"back": {backURL(c)}}.Encode()
}

// display is how a guest asked the kiosk to show its pages (the accessibility controls on
// every kiosk screen). It lives in the visit's server session, so it lasts until the visit
// ends: the idle reset, "Start over" and "Done" destroy the session and the next guest gets
// the kiosk's usual look.
type display struct {
	LargeText    bool `json:"large_text,omitempty"`
	HighContrast bool `json:"high_contrast,omitempty"`
}

// displayInSession is the visit's display choice (set by setDisplay, read by Chrome).
var displayInSession = web.SessionValue[display]{Key: "kiosk.display"}

// backURL is where "Continue" on the idle page returns to: this page when it was a GET,
// else the page the form was on (its Referer, when it is this site's), else the start screen.
func backURL(c echo.Context) string {
	r := c.Request()
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if p, ok := selflink.FromRequest(r.URL); ok {
			return p
		}
		return selflink.Home
	}
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host {
		if p, ok := selflink.FromRequest(ref); ok {
			return p
		}
	}
	return selflink.Home
}

// idleWarning is how long the idle warning counts down before the visit ends: at least
// 20 seconds to respond (WCAG 2.2.1, EN 301 549 for self-service machines).
const idleWarning = 20 * time.Second
