package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/views/layouts"
)

// The kiosk's part of the page frame (the kiosk flow itself is internal/bff/kiosk).

// ctxKioskIdlePaused marks a request whose page must not start over by itself (a payment is in
// progress, or the page is the idle warning itself).
const ctxKioskIdlePaused = "kiosk_idle_paused"

// ctxKioskIdlePausedUntil is when the pause of a payment's page ends (a time.Time).
const ctxKioskIdlePausedUntil = "kiosk_idle_paused_until"

// PauseKioskIdle keeps the page from starting over while it shows: no idle timer (the body
// carries data-idle-paused, which app.js reads) and no meta refresh. For the idle warning page,
// which is its own countdown.
func PauseKioskIdle(c echo.Context) { c.Set(ctxKioskIdlePaused, true) }

// PauseKioskIdleUntil pauses the idle reset of a payment's page while the payment runs, until
// its own deadline at the latest: then the kiosk starts over as after any idle time (the page
// tells app.js how many seconds are left), and from then on the page does not pause it. The
// payment itself is settled without the page (the provider's events, the reconciler), so an
// unattended kiosk never keeps a guest's booking on screen for the next one.
func PauseKioskIdleUntil(c echo.Context, until time.Time) {
	if !time.Now().Before(until) {
		return
	}
	c.Set(ctxKioskIdlePaused, true)
	c.Set(ctxKioskIdlePausedUntil, until)
}

// KioskIdlePaused reports whether this page pauses the kiosk's idle reset.
func KioskIdlePaused(c echo.Context) bool {
	p, _ := c.Get(ctxKioskIdlePaused).(bool)
	return p
}

// KioskChrome is the kiosk's part of the page frame: its own navigation (nothing that leaves the
// kiosk), the idle timer for app.js, and for browsers without JavaScript a meta refresh to the
// idle warning page. The start screen of a kiosk without a visit has nothing to reset.
func (k *Kernel) KioskChrome(c echo.Context, ch *layouts.Chrome) {
	current := c.Path()
	l := Loc(c)
	nav := []layouts.Link{
		{Label: l.T("kiosk.buy_title"), URL: k.URL(RouteWhatsOn), Current: current == Paths[RouteWhatsOn]},
		{Label: l.T("kiosk.collect_title"), URL: k.URL(RouteKioskCollect), Current: current == Paths[RouteKioskCollect]},
		{Label: l.T("kiosk.change_title"), URL: k.URL(RouteFindBooking), Current: current == Paths[RouteFindBooking]},
	}
	for _, link := range ch.Nav { // staff links stay (a supervisor at the kiosk)
		if link.URL != k.URL(RouteWhatsOn) && link.URL != k.URL(RouteFindBooking) {
			nav = append(nav, link)
		}
	}
	ch.Nav = nav
	d, _ := KioskDisplayInSession.Get(c.Request().Context(), k.Sessions)
	ch.KioskDisplay = &layouts.KioskDisplay{
		LargeText:    d.LargeText,
		HighContrast: d.HighContrast,
		URL:          k.URL(RouteKioskDisplay),
		Back:         KioskBackURL(c),
	}
	if current == Paths[RouteHome] && !k.HasSession(c) {
		return
	}
	ch.IdleResetSeconds = int(k.Cfg.KioskIdle / time.Second)
	ch.IdleWarnSeconds = int(KioskIdleWarning / time.Second)
	ch.ResetURL = k.URL(RouteVisitReset)
	if KioskIdlePaused(c) {
		ch.IdlePaused = true
		if until, ok := c.Get(ctxKioskIdlePausedUntil).(time.Time); ok {
			ch.IdlePausedFor = max(int((time.Until(until)+time.Second-1)/time.Second), 1)
		}
		return
	}
	ch.IdleRefreshURL = k.URL(RouteKioskIdle) + "?" + url.Values{"back": {KioskBackURL(c)}}.Encode()
}

// KioskDisplay is how a guest asked the kiosk to show its pages (the accessibility controls on
// every kiosk screen). It lives in the visit's server session, so it lasts until the visit
// ends: the idle reset, "Start over" and "Done" destroy the session and the next guest gets
// the kiosk's usual look.
type KioskDisplay struct {
	LargeText    bool `json:"large_text,omitempty"`
	HighContrast bool `json:"high_contrast,omitempty"`
}

// KioskDisplayInSession is the visit's display choice (set by the kiosk flow, read by the chrome).
var KioskDisplayInSession = SessionValue[KioskDisplay]{Key: "kiosk.display"}

// KioskBackURL is where "Continue" on the idle page returns to: this page when it was a GET,
// else the page the form was on (its Referer, when it is this site's), else the start screen.
func KioskBackURL(c echo.Context) string {
	r := c.Request()
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		if p, ok := RequestLink(r.URL); ok {
			return p
		}
		return HomePath
	}
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host {
		if p, ok := RequestLink(ref); ok {
			return p
		}
	}
	return HomePath
}

// KioskIdleWarning is how long the idle warning counts down before the visit ends: at least
// 20 seconds to respond (WCAG 2.2.1, EN 301 549 for self-service machines).
const KioskIdleWarning = 20 * time.Second
