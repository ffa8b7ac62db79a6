package bff

import (
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/staff"
)

// approveBy checks a supervisor's username and PIN (a refund approval at the counter); wrong
// PINs count towards the supervisor's lock-out like wrong passwords.
func (s *Server) approveBy(ctx context.Context, username, pin string) (staff.Account, error) {
	return s.staff.Approve(ctx, username, pin)
}

// approvalRefusal says why an approval was refused, in words ("" for an unexpected error).
func approvalRefusal(err error) string {
	switch {
	case errors.Is(err, staff.ErrLocked):
		return "This supervisor account is locked after too many wrong PINs. Another supervisor can approve."
	case errors.Is(err, staff.ErrNotSupervisor):
		return "Only a supervisor can approve a refund of this size."
	case errors.Is(err, staff.ErrBadCredentials):
		return "Wrong username or PIN."
	}
	return ""
}

// supervisorSignedIn reports a signed-in, enabled supervisor.
func (s *Server) supervisorSignedIn(c echo.Context) bool { return s.isSupervisor(c) }
