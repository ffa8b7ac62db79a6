package bff

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Staff sign-in: box-office staff look bookings up by number alone; supervisors also manage
// the accounts (internal/bff/staff).
const (
	RouteStaffSignIn  = "staff.signin"
	RouteStaffSignOut = "staff.signout"
	// Needs attention (staff_attention.go).
	RouteStaffAttention        = "staff.attention"
	RouteStaffAttentionRetry   = "staff.attention.retry"
	RouteStaffAttentionResolve = "staff.attention.resolve"

	sessStaffUser  = "staff.user"
	sessStaffName  = "staff.name"
	sessStaffEpoch = "staff.epoch" // the account's session epoch at sign-in
	sessStaffSeen  = "staff.seen"  // unix milliseconds of the last staff request (idle timeout)
	// sessStaffPINWarning asks a supervisor with a short PIN for a new one (shortPINWarning).
	sessStaffPINWarning = "staff.pin_warning"

	// ctxStaffAccount holds the staff.Account checked for this request (checkStaffSignIn).
	ctxStaffAccount = "staff_account"
)

var staffPaths = map[string]string{
	RouteStaffSignIn:  "/staff/sign-in",
	RouteStaffSignOut: "/staff/sign-out",

	RouteStaffAttention:        "/staff/attention",
	RouteStaffAttentionRetry:   "/staff/attention/:kind/:ref/retry",
	RouteStaffAttentionResolve: "/staff/attention/:kind/:ref/resolve",
}

func (s *Server) registerStaffRoutes() {
	s.route("GET", RouteStaffSignIn, s.showSignIn)
	s.route("POST", RouteStaffSignIn, s.signIn)
	s.route("POST", RouteStaffSignOut, s.signOut)
	staffOnly := s.staffOnly()
	s.route("GET", RouteStaffAttention, s.showAttention, staffOnly)
	s.route("POST", RouteStaffAttentionRetry, s.retryAttention, staffOnly)
	s.route("POST", RouteStaffAttentionResolve, s.resolveAttention, staffOnly)
}

// DefaultStaffIdle ends a staff sign-in after this long without a request.
const DefaultStaffIdle = 15 * time.Minute

// signInPerClient: failed staff sign-ins from one client address, shared by every replica.
// A success gives its attempt back.
var signInPerClient = ratelimit.Rule{Burst: 10, Every: 30 * time.Second}

func (s *Server) staffIdle() time.Duration {
	if s.cfg.StaffIdle > 0 {
		return s.cfg.StaffIdle
	}
	return DefaultStaffIdle
}

// checkStaffSignIn checks a staff sign-in on every request of the visit: it ends after
// StaffIdle without a request (the visit's own idle timeout is longer), when a supervisor ended
// the account's sessions (session epoch), and when the account was disabled or deleted. The
// account is read from the database each time, so this holds on every replica and with every
// session store. An ended sign-in ends the whole visit, as signing out does: a booking found by
// number alone must not stay with the browser.
func (s *Server) checkStaffSignIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if loaded, _ := c.Get(ctxSessionLoaded).(bool); !loaded || s.staff == nil {
			return next(c)
		}
		ctx := c.Request().Context()
		user := s.sessions.GetString(ctx, sessStaffUser)
		if user == "" {
			return next(c)
		}
		now := time.Now() // wall clock, like the visit's own idle timeout
		idle := s.staffIdle()
		seen := time.UnixMilli(s.sessions.GetInt64(ctx, sessStaffSeen))
		l := loc(c)
		why, notice := "", "" // why: for the log and the audit trail; notice: for the person
		var a staff.Account
		if now.Sub(seen) > idle {
			why = fmt.Sprintf("after %s without activity", s.english().Duration(idle))
			notice = l.T("staff.signin.ended_idle", "Duration", l.Duration(idle))
		} else {
			var err error
			a, err = s.staff.Get(ctx, user)
			switch {
			case errors.Is(err, staff.ErrNotFound), err == nil && a.Disabled:
				why, notice = "because the account is no longer active", l.T("staff.signin.ended_inactive")
			case err != nil:
				return fmt.Errorf("check staff sign-in: %w", err)
			case a.SessionEpoch != s.sessions.GetInt64(ctx, sessStaffEpoch):
				why, notice = "because a supervisor ended it", l.T("staff.signin.ended_by_supervisor")
			}
		}
		if why == "" {
			c.Set(ctxStaffAccount, a)
			if now.Sub(seen) > idle/15 { // a write at most every minute (default idle)
				s.sessions.Put(ctx, sessStaffSeen, now.UnixMilli())
			}
			if s.sessions.GetString(ctx, sessStaffName) != a.Name {
				s.sessions.Put(ctx, sessStaffName, a.Name)
			}
			return next(c)
		}
		loggerFrom(ctx, s.logger).Info("staff sign-in ended", "user", user, "why", why)
		s.recordAudit(c, audit.Entry{Actor: user, Action: audit.ActionSignOut, Detail: "sign-in ended " + why})
		if err := s.sessions.Destroy(ctx); err != nil {
			return fmt.Errorf("end staff sign-in: %w", err)
		}
		p := c.Request().URL.Path
		if p == paths[RouteStaffSignIn] || p == paths[RouteStaffSignOut] {
			return next(c) // signing in again, or out anyway
		}
		s.flash(c, notice)
		back := ""
		if c.Request().Method == http.MethodGet {
			back = c.Request().URL.RequestURI()
		}
		return s.redirect(c, s.signInURL(back))
	}
}

func (s *Server) signInView(c echo.Context) pages.SignInView {
	v := pages.SignInView{ActionURL: s.url(RouteStaffSignIn), CSRFToken: csrfToken(c)}
	if n, ok := web.LocalLink(c.QueryParam("next")); ok {
		v.Next = n
	}
	if n, ok := web.LocalLink(c.FormValue("next")); ok && c.Request().Method == http.MethodPost {
		v.Next = n
	}
	return v
}

func (s *Server) showSignIn(c echo.Context) error {
	v := s.signInView(c)
	v.Notice = s.popFlash(c)
	return s.render(c, http.StatusOK, loc(c).T("staff.signin.title"), pages.SignIn(v))
}

// signIn checks the account. Failures count per account and client (5 lock the account for
// that client only, longer at each further failure: internal/staff) and per client (shared
// limits); a success clears both for this client. A sign-in is a privilege change, so the
// session token is renewed. A supervisor whose approval PIN is shorter than new PINs must be
// (or of unknown length) is asked for a new one.
func (s *Server) signIn(c echo.Context) error {
	ctx := c.Request().Context()
	l := loc(c)
	title := l.T("staff.signin.title")
	v := s.signInView(c)
	v.Username = strings.TrimSpace(c.FormValue("username"))
	if len(v.Username) > staff.MaxUsernameLength {
		v.Username = v.Username[:staff.MaxUsernameLength]
	}
	if s.staff == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("staff.signin.unavailable_heading"), Message: l.T("staff.signin.unavailable_text")}
	}
	client := ratelimit.Limit{Key: "signin:client:" + web.ClientKey(c), Rule: signInPerClient}
	ok, wait, err := ratelimit.TakeAll(ctx, s.limits, client)
	if err != nil {
		return err
	}
	if !ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(wholeSeconds(wait.Seconds())))
		v.Error = l.T("staff.signin.too_many", "Wait", l.N("common.seconds", wholeSeconds(wait.Seconds())))
		return s.render(c, http.StatusTooManyRequests, title, pages.SignIn(v))
	}
	a, err := s.staff.Authenticate(ctx, v.Username, c.FormValue("password"), web.ClientKey(c))
	var locked *staff.LockedError
	switch {
	case errors.As(err, &locked):
		s.recordAudit(c, audit.Entry{Actor: typedUsername(v.Username), Action: audit.ActionSignInFailed, Detail: "account locked"})
		wait := time.Until(locked.Until)
		c.Response().Header().Set("Retry-After", strconv.Itoa(wholeSeconds(wait.Seconds())))
		v.Error = l.T("staff.signin.locked", "Wait", l.N("common.minutes", wholeMinutes(wait)))
		return s.render(c, http.StatusTooManyRequests, title, pages.SignIn(v))
	case errors.Is(err, staff.ErrBadCredentials):
		s.recordAudit(c, audit.Entry{Actor: typedUsername(v.Username), Action: audit.ActionSignInFailed, Detail: "wrong username or password"})
		v.Error = l.T("staff.signin.wrong")
		return s.render(c, http.StatusUnauthorized, title, pages.SignIn(v))
	case err != nil:
		_ = ratelimit.GiveAll(ctx, s.limits, client)
		return err
	}
	if err := ratelimit.GiveAll(ctx, s.limits, client); err != nil {
		loggerFrom(ctx, s.logger).Warn("give back sign-in attempt", "err", err)
	}
	if err := s.renewSession(c); err != nil {
		return err
	}
	s.sessions.Put(ctx, sessStaffUser, a.Username)
	s.sessions.Put(ctx, sessStaffName, a.Name)
	s.sessions.Put(ctx, sessStaffEpoch, a.SessionEpoch)
	s.sessions.Put(ctx, sessStaffSeen, time.Now().UnixMilli())
	c.Set(ctxStaffAccount, a)
	s.recordAudit(c, audit.Entry{Actor: a.Username, Action: audit.ActionSignIn, Detail: a.Role.Label()})
	loggerFrom(ctx, s.logger).Info("staff signed in", "user", a.Username, "role", a.Role)
	if msg := shortPINWarning(l, a); msg != "" {
		loggerFrom(ctx, s.logger).Warn("supervisor's approval PIN is short or of unknown length", "user", a.Username, "digits", a.PINLength)
		s.sessions.Put(ctx, sessStaffPINWarning, msg) // shown as a warning on the look-up page, wherever next= leads first
	}
	if v.Next != "" {
		return s.redirect(c, v.Next)
	}
	return s.redirect(c, s.url(RouteFindBooking))
}

// shortPINWarning asks a supervisor with a PIN shorter than new PINs must be, or of unknown
// length (set before lengths were recorded, not used since), to set a new one ("" otherwise).
func shortPINWarning(l *i18n.Localizer, a staff.Account) string {
	switch {
	case !a.IsSupervisor() || !a.ShortPIN():
		return ""
	case a.PINLength == 0:
		return l.T("staff.signin.pin_unknown", "Min", staff.MinPINLength, "Max", staff.MaxPINLength)
	}
	return l.T("staff.signin.pin_short", "Digits", a.PINLength, "Min", staff.MinPINLength, "Max", staff.MaxPINLength)
}

// typedUsername is the actor of a failed sign-in: what was typed, or a placeholder.
func typedUsername(u string) string {
	if u = staff.Normalize(u); u != "" {
		return u
	}
	return "(no username)"
}

// wholeMinutes is a lock's remaining time in minutes, rounded up (at least one).
func wholeMinutes(d time.Duration) int {
	return max(int((d+time.Minute-1)/time.Minute), 1)
}

// signOut ends the visit: the staff sign-in and anything found or started through it.
func (s *Server) signOut(c echo.Context) error {
	if user := s.staffUser(c); user != "" {
		s.recordAudit(c, audit.Entry{Actor: user, Action: audit.ActionSignOut})
		loggerFrom(c.Request().Context(), s.logger).Info("staff signed out", "user", user)
	}
	if err := s.endVisit(c); err != nil { // releases the orders held for the customer served
		return err
	}
	return s.redirect(c, s.url(RouteHome))
}
