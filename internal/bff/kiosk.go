package bff

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/layouts"
	"github.com/cinemabff/cinemabff/views/pages/kiosk"
)

// The lobby kiosk: its start screen, collecting (printing) booked tickets, and the idle reset
// that ends an abandoned visit and releases its seats.

// Routes of the kiosk.
const (
	RouteKioskCollect      = "kiosk.collect"
	RouteKioskCollectAgain = "kiosk.collect.again"
	RouteKioskCollected    = "kiosk.collected"
	RouteKioskIdle         = "kiosk.idle"
	RouteKioskIdleExpired  = "kiosk.idle.expired"
)

var kioskPaths = map[string]string{
	RouteKioskCollect:      "/kiosk/collect",
	RouteKioskCollectAgain: "/kiosk/collect/again",
	RouteKioskCollected:    "/kiosk/collect/tickets",
	RouteKioskIdle:         "/kiosk/idle",
	RouteKioskIdleExpired:  "/kiosk/idle/expired",
}

func (s *Server) registerKioskRoutes() {
	s.route("GET", RouteKioskCollect, s.showCollect)
	s.route("POST", RouteKioskCollect, s.collectTickets)
	s.route("GET", RouteKioskCollectAgain, s.showCollectAgain)
	s.route("POST", RouteKioskCollectAgain, s.collectAgain)
	s.route("GET", RouteKioskCollected, s.showCollected)
	s.route("GET", RouteKioskIdle, s.showKioskIdle)
	s.route("GET", RouteKioskIdleExpired, s.kioskIdleExpired)
}

// kioskIdleWarning is how long the idle warning counts down before the visit ends: at least
// 20 seconds to respond (WCAG 2.2.1, EN 301 549 for self-service machines).
const kioskIdleWarning = 20 * time.Second

// Server-session keys of the kiosk.
const (
	sessKioskIdle      = "kiosk.idle"      // JSON of idleToken: the warning page's one-time token
	sessKioskCollect   = "kiosk.collect"   // JSON of collectVisit: a booking found, not yet printed
	sessKioskCollected = "kiosk.collected" // JSON of collectedVisit: the tickets being printed
)

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
		{Label: l.T("kiosk.collect_title"), URL: s.url(RouteKioskCollect), Current: current == paths[RouteKioskCollect]},
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
	ch.IdleWarnSeconds = int(kioskIdleWarning / time.Second)
	ch.ResetURL = s.url(RouteVisitReset)
	if kioskIdlePaused(c) {
		ch.IdlePaused = true
		return
	}
	ch.IdleRefreshURL = s.url(RouteKioskIdle) + "?" + url.Values{"back": {kioskBackURL(c)}}.Encode()
}

// hasVisit reports whether this browser has a server session (a visit with something in it).
func (s *Server) hasVisit(c echo.Context) bool {
	if loaded, _ := c.Get(ctxSessionLoaded).(bool); !loaded {
		return false
	}
	return s.sessions.Token(c.Request().Context()) != ""
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

// kioskStart is the kiosk's start screen (the home page of a kiosk), with a large button per
// language: the guest's choice lasts for the visit (language.go keeps it in the visit's
// session), so the next guest, after Start over or the idle reset, is greeted in the kiosk's
// own default language again.
func (s *Server) kioskStart(c echo.Context) error {
	v := kiosk.StartView{BuyURL: s.url(RouteWhatsOn), CollectURL: s.url(RouteKioskCollect), ChangeURL: s.url(RouteFindBooking)}
	if msg := s.popFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeInfo, Heading: msg}
	}
	for _, ll := range s.languageLinks(c) {
		v.Languages = append(v.Languages, kiosk.LangChoice{Lang: ll.Lang, Name: ll.Name, URL: ll.URL, Current: ll.Current})
	}
	return s.render(c, http.StatusOK, loc(c).T("kiosk.page_title"), kiosk.Start(v))
}

// ---- Idle reset ----------------------------------------------------------------------------

// resetVisit ends the visit: the kiosk's idle reset (app.js posts here when the warning's
// countdown runs out), "Start over" and "Done". The visit's open order is cancelled upstream,
// which releases its seats, the server session is destroyed, and the start screen comes back.
// The device cookie stays.
func (s *Server) resetVisit(c echo.Context) error {
	if err := s.endVisit(c); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteHome))
}

// endVisit releases what the visit holds upstream and destroys it. An order whose payment is
// under way is left alone: the payment's watcher finishes it whether anybody waits or not.
// Cancelling is best effort: an order the upstream cannot cancel now releases its seats when its
// hold expires, and the next guest must not inherit this visit either way.
func (s *Server) endVisit(c echo.Context) error {
	s.releaseOpenOrders(c)
	if err := s.sessions.Destroy(c.Request().Context()); err != nil {
		return fmt.Errorf("end visit: %w", err)
	}
	return nil
}

// releaseOpenOrders cancels upstream the orders this visit holds and nobody will finish: the
// purchase order and the edit order, unless a payment of theirs is under way (its watcher or
// the reconciler finishes it whether anybody waits or not). Used wherever a visit lets go of
// what it holds: the kiosk's reset, forgetting a booking, signing out, the next customer.
func (s *Server) releaseOpenOrders(c echo.Context) {
	s.releaseBuy(c)
	s.releaseEdit(c)
}

// releaseBuy cancels the visit's purchase order unless its payment is under way.
func (s *Server) releaseBuy(c echo.Context) {
	if s.ticketing == nil {
		return
	}
	v, ok := s.currentBuy(c)
	if !ok {
		return
	}
	if rec, busy := s.buyPaymentUnderWay(c, v); busy {
		loggerFrom(c.Request().Context(), s.logger).Info("visit let go of a purchase with a payment under way: order kept", "ref", rec.ID)
		return
	}
	s.cancelAbandoned(c.Request().Context(), "purchase", v.UserSessionID)
}

// releaseEdit cancels the visit's edit order (the original booking stays as it was) unless a
// payment or refund of the change is under way; that entry is returned (nil when none), so a
// caller that must not let go of it (the next customer at the counter) can say so.
func (s *Server) releaseEdit(c echo.Context) *ledger.Entry {
	if s.ticketing == nil {
		return nil
	}
	e, ok := s.currentEdit(c)
	if !ok {
		return nil
	}
	ctx := c.Request().Context()
	log := loggerFrom(ctx, s.logger)
	entry, err := s.blockingEntry(ctx, e)
	switch {
	case err != nil:
		log.Warn("visit let go of an edit whose payment state is unknown: edit order kept", "booking", e.BookingNumber, "err", err)
	case entry != nil:
		log.Info("visit let go of an edit with a payment under way: edit order kept", "booking", e.BookingNumber, "entry", entry.ID)
	default:
		s.cancelAbandoned(ctx, "edit", e.UserSessionID)
	}
	return entry
}

// cancelAbandoned cancels an order nobody will finish; an order already gone is fine.
func (s *Server) cancelAbandoned(ctx context.Context, what, userSessionID string) {
	err := s.ticketing.CancelOrder(ctx, userSessionID)
	switch {
	case err == nil:
		loggerFrom(ctx, s.logger).Info("abandoned order cancelled", "what", what)
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrOrderExpired):
	default:
		loggerFrom(ctx, s.logger).Warn("abandoned order not cancelled: its seats are released when its hold expires", "what", what, "err", err)
	}
}

// idleToken is the one-time token of the idle warning page.
type idleToken struct {
	Token  string    `json:"token"`
	Issued time.Time `json:"issued"`
}

// idleInSession is the visit's idle token, while the warning page is up.
var idleInSession = web.SessionValue[idleToken]{Key: sessKioskIdle}

// showKioskIdle is the idle warning for a kiosk without JavaScript (its pages meta-refresh here
// after the idle time): "Are you still there?" with Continue, and after the countdown its own
// refresh goes to the expired URL, which ends the visit. The token it issues is kept in the
// visit's server session, like a CSRF token: issuing it changes nothing the visitor has.
func (s *Server) showKioskIdle(c echo.Context) error {
	back := web.SelfLink(c.QueryParam("back"))
	switch {
	case !isKiosk(c):
		return s.redirect(c, back)
	case !s.hasVisit(c):
		return s.redirect(c, s.url(RouteHome)) // no visit to end: the start screen is the rest state
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("idle token: %w", err)
	}
	now := s.now()
	t := idleToken{Token: hex.EncodeToString(b), Issued: now}
	idleInSession.Put(c.Request().Context(), s.sessions, t)
	pauseKioskIdle(c) // the page is its own countdown
	v := kiosk.IdleView{
		ContinueURL: back,
		ExpiredURL:  s.url(RouteKioskIdleExpired) + "?" + url.Values{"token": {t.Token}}.Encode(),
		Seconds:     int(kioskIdleWarning / time.Second),
		ExpiresISO:  now.Add(kioskIdleWarning).UTC().Format(time.RFC3339),
		NowISO:      now.UTC().Format(time.RFC3339),
		ResetURL:    s.url(RouteVisitReset),
		CSRFToken:   csrfToken(c),
	}
	return s.render(c, http.StatusOK, loc(c).T("kiosk.idle_title"), kiosk.Idle(v))
}

// kioskIdleExpired ends the visit when the idle warning page's countdown ran out. It is a GET
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
func (s *Server) kioskIdleExpired(c echo.Context) error {
	home := s.url(RouteHome)
	ctx := c.Request().Context()
	t, _ := idleInSession.Get(ctx, s.sessions)
	got := c.QueryParam("token")
	now := s.now()
	switch {
	case !isKiosk(c), t.Token == "", len(got) != len(t.Token), subtle.ConstantTimeCompare([]byte(got), []byte(t.Token)) != 1:
		return s.redirect(c, home) // the visit already ended, or this is not its warning
	case now.Before(t.Issued.Add(kioskIdleWarning - 2*time.Second)), now.After(t.Issued.Add(kioskIdleWarning + 10*time.Minute)):
		return s.redirect(c, home)
	}
	if err := s.endVisit(c); err != nil {
		return err
	}
	return s.redirect(c, home)
}
