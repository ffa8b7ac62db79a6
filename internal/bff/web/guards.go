package web

import (
	"github.com/labstack/echo/v4"
)

// Who may reach a route is decided once, where the route is registered (staffOnly,
// supervisorsOnly, countersOnly), not inside each handler. A refused request gets the page
// that says who may do this and how to sign in; its handler never runs.
//
// The checks read the staff sign-in that checkStaffSignIn confirmed for this request, so a
// handler behind a guard finds the signed-in member with staffUser or signedInStaff.

// StaffOnly lets any signed-in staff member through.
func (k *Kernel) StaffOnly() echo.MiddlewareFunc { return Guard(k.RequireStaff) }

// SupervisorsOnly lets an enabled supervisor through; anybody else is asked to sign in as one
// and comes back to back afterwards.
func (k *Kernel) SupervisorsOnly(back string) echo.MiddlewareFunc {
	return Guard(func(c echo.Context) error { return k.RequireSupervisor(c, back) })
}

// CountersOnly lets staff signed in on an enrolled counter through.
func (k *Kernel) CountersOnly() echo.MiddlewareFunc { return Guard(k.RequireCounter) }
