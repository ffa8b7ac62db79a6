package kiosk

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/views/pages/kioskview"
)

// The idle reset: a kiosk's pages count down the idle time (app.js, or a meta refresh to the
// warning page without JavaScript), then warn, then end the abandoned visit and release its
// seats.

// idleToken is the one-time token of the idle warning page.
type idleToken struct {
	Token  string    `json:"token"`
	Issued time.Time `json:"issued"`
}

// idleInSession is the visit's idle token, while the warning page is up.
var idleInSession = web.SessionValue[idleToken]{Key: sessIdle}

// showIdle is the idle warning for a kiosk without JavaScript (its pages meta-refresh here
// after the idle time): "Are you still there?" with Continue, and after the countdown its own
// refresh goes to the expired URL, which ends the visit. The token it issues is kept in the
// visit's server session, like a CSRF token: issuing it changes nothing the visitor has.
func (h *Handler) showIdle(c echo.Context) error {
	back := selflink.OrHome(c.QueryParam("back"))
	switch {
	case !web.IsKiosk(c):
		return web.Redirect(c, back)
	case !h.Site.HasSession(c):
		return web.Redirect(c, h.url("home")) // no visit to end: the start screen is the rest state
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("idle token: %w", err)
	}
	now := h.Now()
	t := idleToken{Token: hex.EncodeToString(b), Issued: now}
	idleInSession.Put(c.Request().Context(), h.Sessions, t)
	web.PauseIdle(c) // the page is its own countdown
	v := kioskview.IdleView{
		ContinueURL: back,
		ExpiredURL:  h.url("kiosk.idle.expired") + "?" + url.Values{"token": {t.Token}}.Encode(),
		Seconds:     int(idleWarning / time.Second),
		ExpiresISO:  now.Add(idleWarning).UTC().Format(time.RFC3339),
		NowISO:      now.UTC().Format(time.RFC3339),
		ResetURL:    h.url("visit.reset"),
		CSRFToken:   web.CSRFToken(c),
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("kiosk.idle_title"), kioskview.Idle(v))
}

// idleExpired ends the visit when the idle warning page's countdown ran out. It is a GET
// that changes state, which the site otherwise never allows; here it is acceptable because a
// meta refresh can only GET, and:
//   - it is bound to this visit: the one-time token lives in the visit's server session and is
//     only ever shown on the warning page, so another site cannot make a browser call it with a
//     valid token, and a stale or copied link does nothing;
//   - it is idempotent: once the visit has ended there is no token, and the call only shows the
//     start screen;
//   - it only ends the visit, as "Start over" does: it takes no money and books nothing, and
//     releasing the seats of an abandoned order is what the visitor's absence calls for;
//   - it is honoured only once the countdown has run (not before, not long after).
func (h *Handler) idleExpired(c echo.Context) error {
	home := h.url("home")
	ctx := c.Request().Context()
	t, _ := idleInSession.Get(ctx, h.Sessions)
	got := c.QueryParam("token")
	now := h.Now()
	switch {
	case !web.IsKiosk(c), t.Token == "", len(got) != len(t.Token), subtle.ConstantTimeCompare([]byte(got), []byte(t.Token)) != 1:
		return web.Redirect(c, home) // the visit already ended, or this is not its warning
	case now.Before(t.Issued.Add(idleWarning - 2*time.Second)), now.After(t.Issued.Add(idleWarning + 10*time.Minute)):
		return web.Redirect(c, home)
	}
	if err := h.Visits.EndVisit(c); err != nil {
		return err
	}
	return web.Redirect(c, home)
}
