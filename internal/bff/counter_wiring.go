package bff

import (
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/staff"
)

// approveBy checks a supervisor's username and PIN (a refund approval at the counter); wrong
// PINs count towards the supervisor's lock-out like wrong passwords.
func (s *Server) approveBy(ctx context.Context, username, pin string) (staff.Account, error) {
	return s.staff.Approve(ctx, username, pin)
}

// approvalRefusal says why an approval was refused, in l's words ("" for an unexpected error).
func approvalRefusal(l *i18n.Localizer, err error) string {
	switch {
	case errors.Is(err, staff.ErrLocked):
		return l.T("staff.approval.locked")
	case errors.Is(err, staff.ErrNotSupervisor):
		return l.T("staff.approval.not_supervisor")
	case errors.Is(err, staff.ErrBadCredentials):
		return l.T("staff.approval.wrong_pin")
	}
	return ""
}

// supervisorSignedIn reports a signed-in, enabled supervisor.
func (s *Server) supervisorSignedIn(c echo.Context) bool { return s.isSupervisor(c) }
