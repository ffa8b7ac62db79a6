package bff

import (
	"errors"
	"net/url"

	"github.com/labstack/echo/v4"

	staffpages "github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/staff"
)

// Who is signed in on this request, in one place: the staff member's username and name, the
// account checkStaffSignIn confirmed, the role read from the account, and whether the browser
// is an enrolled counter. The refusals below are the pages the route guards (guards.go) answer
// with; no handler checks staff by hand.

// staffUser is the signed-in staff member's username ("" when none).
func (s *Server) staffUser(c echo.Context) string { return s.signInValue(c, sessStaffUser) }

// staffMember returns the signed-in staff member's name ("" when none).
func (s *Server) staffMember(c echo.Context) string { return s.signInValue(c, sessStaffName) }

// signInValue reads one value of the staff sign-in from the visit's session: "" for a request
// that never reached the session middleware (an error page for it).
func (s *Server) signInValue(c echo.Context, key string) string {
	if loaded, _ := c.Get(ctxSessionLoaded).(bool); !loaded {
		return ""
	}
	return s.sessions.GetString(c.Request().Context(), key)
}

// signedInStaff returns the signed-in staff member's account as checked at the start of this
// request (enabled, session epoch current, not idle).
func (s *Server) signedInStaff(c echo.Context) (staff.Account, bool) {
	a, ok := c.Get(ctxStaffAccount).(staff.Account)
	return a, ok
}

// staffRole returns the signed-in staff member's username and whether the account is an
// enabled supervisor now. The role is read from the account (internal/staff), not from the
// session, so a supervisor demoted or disabled since signing in is refused at once: the
// account checkStaffSignIn read for this request, or else the account read here.
func (s *Server) staffRole(c echo.Context) (username string, supervisor bool) {
	username = s.staffUser(c)
	if username == "" || s.staff == nil {
		return username, false
	}
	if a, ok := s.signedInStaff(c); ok && a.Username == username {
		return username, a.IsSupervisor()
	}
	ctx := c.Request().Context()
	a, err := s.staff.Get(ctx, username)
	if err != nil {
		if !errors.Is(err, staff.ErrNotFound) {
			loggerFrom(ctx, s.logger).Error("staff account not readable: not treated as a supervisor", "user", username, "err", err)
		}
		return username, false
	}
	return username, a.IsSupervisor()
}

// isSupervisor reports whether an enabled supervisor is signed in.
func (s *Server) isSupervisor(c echo.Context) bool {
	_, sup := s.staffRole(c)
	return sup
}

// atCounter reports a signed-in staff member on a box-office device.
func (s *Server) atCounter(c echo.Context) bool {
	return s.staffUser(c) != "" && deviceOf(c).Mode == device.Counter
}

// requireStaff lets signed-in staff through (nil); anyone else gets a 403 page that leads to
// the sign-in.
func (s *Server) requireStaff(c echo.Context) error {
	if s.staffUser(c) != "" {
		return nil
	}
	l := loc(c)
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.staff_only_heading"),
		Message: l.T("staff.staff_only_text"),
		BackURL: s.url(RouteStaffSignIn), BackLabel: l.T("staff.signin.title")}
}

// requireSupervisor lets a signed-in supervisor through (nil); anyone else gets the page that
// says only a supervisor may do this and leads to sign-in (coming back to next afterwards).
func (s *Server) requireSupervisor(c echo.Context, next string) error {
	user, sup := s.staffRole(c)
	if sup {
		return nil
	}
	l := loc(c)
	msg := l.T("kiosk.supervisor_only")
	if user != "" {
		msg = l.T("kiosk.supervisor_only_staff", "Name", s.staffMember(c))
	}
	return &web.Error{Code: web.EForbidden, Heading: l.T("kiosk.supervisor_only_heading"), Message: msg,
		BackURL: s.signInURL(next), BackLabel: l.T("kiosk.supervisor_sign_in")}
}

// accountsSupervisor lets a signed-in supervisor through (nil); anyone else gets the page that
// says only supervisors manage accounts and leads to sign-in.
func (s *Server) accountsSupervisor(c echo.Context) error {
	a, ok := s.signedInStaff(c)
	if ok && a.IsSupervisor() {
		return nil
	}
	l := loc(c)
	msg := l.T("staff.accounts.supervisors_only")
	if ok {
		msg = l.T("staff.accounts.not_supervisor", "Name", a.Name)
	}
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.supervisors_only"), Message: msg,
		BackURL: s.signInURL(s.url(staffpages.RouteAccounts)), BackLabel: l.T("staff.accounts.sign_in_supervisor")}
}

// requireCounter lets staff at an enrolled counter through (nil); anyone else gets a 403 page.
func (s *Server) requireCounter(c echo.Context) error {
	if s.atCounter(c) {
		return nil
	}
	l := loc(c)
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.counter.only_heading"),
		Message: l.T("staff.counter.only_text"),
		BackURL: s.url(RouteHome), BackLabel: l.T("staff.back_to_start")}
}

// auditSupervisor refuses the audit trail to staff who are not supervisors (the route's
// guard, after staffOnly).
func (s *Server) auditSupervisor(c echo.Context) error {
	if s.isSupervisor(c) {
		return nil
	}
	l := loc(c)
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.supervisors_only"), Message: l.T("staff.audit.supervisors_only"),
		BackURL: s.url(RouteFindBooking), BackLabel: l.T("staff.audit.back_to_box_office")}
}

// signInURL is the staff sign-in page that comes back to next after signing in (next is
// dropped unless it is an address on this site: localLink).
func (s *Server) signInURL(next string) string {
	u := s.url(RouteStaffSignIn)
	if n, ok := web.LocalLink(next); ok {
		u += "?next=" + url.QueryEscape(n)
	}
	return u
}
