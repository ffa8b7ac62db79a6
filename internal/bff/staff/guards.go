package staff

import (
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// Who may reach a route is decided once, where the route is registered (StaffOnly,
// SupervisorsOnly, CountersOnly), not inside each handler. A refused request gets the page
// that says who may do this and how to sign in; its handler never runs.
//
// The checks read the staff sign-in that the kernel confirmed for this request, so a handler
// behind a guard finds the signed-in member with Kernel.StaffUser or Kernel.SignedInStaff.

// StaffOnly lets any signed-in staff member through.
func StaffOnly(k *web.Kernel) echo.MiddlewareFunc {
	return web.Guard(func(c echo.Context) error { return RequireStaff(k, c) })
}

// SupervisorsOnly lets an enabled supervisor through; anybody else is asked to sign in as one
// and comes back afterwards to the route named back.
func SupervisorsOnly(k *web.Kernel, back string) echo.MiddlewareFunc {
	return web.Guard(func(c echo.Context) error { return RequireSupervisor(k, c, k.URL(back)) })
}

// CountersOnly lets staff signed in on an enrolled counter through.
func CountersOnly(k *web.Kernel) echo.MiddlewareFunc {
	return web.Guard(func(c echo.Context) error { return RequireCounter(k, c) })
}

// RequireStaff lets signed-in staff through (nil); anyone else gets a 403 page that leads to
// the sign-in.
func RequireStaff(k *web.Kernel, c echo.Context) error {
	if k.StaffUser(c) != "" {
		return nil
	}
	l := web.Loc(c)
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.staff_only_heading"),
		Message: l.T("staff.staff_only_text"),
		BackURL: k.URL("staff.signin"), BackLabel: l.T("staff.signin.title")}
}

// RequireSupervisor lets a signed-in supervisor through (nil); anyone else gets the page that
// says only a supervisor may do this and leads to sign-in (coming back to next afterwards).
func RequireSupervisor(k *web.Kernel, c echo.Context, next string) error {
	user, sup := k.StaffRole(c)
	if sup {
		return nil
	}
	l := web.Loc(c)
	msg := l.T("kiosk.supervisor_only")
	if user != "" {
		msg = l.T("kiosk.supervisor_only_staff", "Name", k.StaffMember(c))
	}
	return &web.Error{Code: web.EForbidden, Heading: l.T("kiosk.supervisor_only_heading"), Message: msg,
		BackURL: k.SignInURL(next), BackLabel: l.T("kiosk.supervisor_sign_in")}
}

// AccountsSupervisor lets a signed-in supervisor through (nil); anyone else gets the page that
// says only supervisors manage accounts and leads to sign-in.
func AccountsSupervisor(k *web.Kernel, c echo.Context) error {
	a, ok := k.SignedInStaff(c)
	if ok && a.IsSupervisor() {
		return nil
	}
	l := web.Loc(c)
	msg := l.T("staff.accounts.supervisors_only")
	if ok {
		msg = l.T("staff.accounts.not_supervisor", "Name", a.Name)
	}
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.supervisors_only"), Message: msg,
		BackURL: k.SignInURL(k.URL("staff.accounts")), BackLabel: l.T("staff.accounts.sign_in_supervisor")}
}

// RequireCounter lets staff at an enrolled counter through (nil); anyone else gets a 403 page.
func RequireCounter(k *web.Kernel, c echo.Context) error {
	if k.AtCounter(c) {
		return nil
	}
	l := web.Loc(c)
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.counter.only_heading"),
		Message: l.T("staff.counter.only_text"),
		BackURL: k.URL("home"), BackLabel: l.T("staff.back_to_start")}
}

// AuditSupervisor refuses the audit trail to staff who are not supervisors (the route's
// guard, after StaffOnly).
func AuditSupervisor(k *web.Kernel, c echo.Context) error {
	if k.IsSupervisor(c) {
		return nil
	}
	l := web.Loc(c)
	return &web.Error{Code: web.EForbidden, Heading: l.T("staff.supervisors_only"), Message: l.T("staff.audit.supervisors_only"),
		BackURL: k.URL("booking.find"), BackLabel: l.T("staff.audit.back_to_box_office")}
}
