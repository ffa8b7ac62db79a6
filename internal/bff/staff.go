package bff

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Staff sign-in: box-office staff look bookings up by number alone.
const (
	RouteStaffSignIn  = "staff.signin"
	RouteStaffSignOut = "staff.signout"
	// Needs attention (staff_attention.go).
	RouteStaffAttention        = "staff.attention"
	RouteStaffAttentionRetry   = "staff.attention.retry"
	RouteStaffAttentionResolve = "staff.attention.resolve"

	sessStaffUser = "staff.user"
	sessStaffName = "staff.name"
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
	s.route("GET", RouteStaffAttention, s.showAttention)
	s.route("POST", RouteStaffAttentionRetry, s.retryAttention)
	s.route("POST", RouteStaffAttentionResolve, s.resolveAttention)
}

// staffMember returns the signed-in staff member's name ("" when none).
func (s *Server) staffMember(c echo.Context) string {
	if loaded, _ := c.Get(ctxSessionLoaded).(bool); !loaded {
		return "" // an error page for a request that never reached the session middleware
	}
	return s.sessions.GetString(c.Request().Context(), sessStaffName)
}

func (s *Server) showSignIn(c echo.Context) error {
	return s.render(c, http.StatusOK, "Staff sign-in", pages.SignIn(pages.SignInView{ActionURL: s.url(RouteStaffSignIn), CSRFToken: csrfToken(c)}))
}

// signIn checks the account; a sign-in is a privilege change, so the session token is renewed.
func (s *Server) signIn(c echo.Context) error {
	v := pages.SignInView{ActionURL: s.url(RouteStaffSignIn), CSRFToken: csrfToken(c), Username: strings.TrimSpace(c.FormValue("username"))}
	if ok, wait := s.findByIP.Allow("signin:" + c.RealIP()); !ok {
		v.Error = "Too many attempts. Please try again in " + secondsText(wait.Seconds()) + "."
		return s.render(c, http.StatusTooManyRequests, "Staff sign-in", pages.SignIn(v))
	}
	a, err := s.staff.Authenticate(c.Request().Context(), v.Username, c.FormValue("password"))
	if errors.Is(err, staff.ErrBadCredentials) {
		v.Error = "Wrong username or password."
		return s.render(c, http.StatusUnauthorized, "Staff sign-in", pages.SignIn(v))
	}
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	s.sessions.Put(ctx, sessStaffUser, a.Username)
	s.sessions.Put(ctx, sessStaffName, a.Name)
	if err := s.renewSession(c); err != nil {
		return err
	}
	loggerFrom(ctx, s.logger).Info("staff signed in", "user", a.Username)
	return s.redirect(c, s.url(RouteFindBooking))
}

// signOut ends the staff sign-in and forgets any booking bound through it.
func (s *Server) signOut(c echo.Context) error {
	ctx := c.Request().Context()
	for _, k := range []string{sessStaffUser, sessStaffName, sessBookingCinema, sessBookingNumber} {
		s.sessions.Remove(ctx, k)
	}
	s.clearEdit(c)
	if err := s.renewSession(c); err != nil {
		return err
	}
	return s.redirect(c, s.url(RouteHome))
}
