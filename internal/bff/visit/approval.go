package visit

import (
	"context"
	"errors"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
)

// A supervisor's approval of what a clerk may not do alone (a large refund, resolving an item
// about money): the supervisor's username and approval PIN, typed at the clerk's terminal.

// ApproveBy checks a supervisor's username and PIN; wrong PINs count against the PIN, never
// against the supervisor's sign-in (internal/staffaccounts).
func (v *Visits) ApproveBy(ctx context.Context, username, pin string) (staffaccounts.Account, error) {
	if v.staff == nil {
		return staffaccounts.Account{}, staffaccounts.ErrBadCredentials
	}
	return v.staff.Approve(ctx, username, pin)
}

// ApprovalRefusal says that an approval was refused, in l's words: the same for an unknown
// name, a clerk's name and a wrong PIN, so the form tells nobody which names exist or belong
// to supervisors. A locked PIN says to try later (any name typed often enough locks alike).
func ApprovalRefusal(l *i18n.Localizer, err error) string {
	if errors.Is(err, staffaccounts.ErrLocked) {
		return l.T("staff.approval.locked")
	}
	return l.T("staff.approval.refused")
}

// ApprovalRefusalWhy is the audit trail's (supervisors') English word for why an approval was
// refused; "" for an unexpected error.
func ApprovalRefusalWhy(err error) string {
	switch {
	case errors.Is(err, staffaccounts.ErrLocked):
		return "locked after too many wrong PINs"
	case errors.Is(err, staffaccounts.ErrNotSupervisor):
		return "not a supervisor"
	case errors.Is(err, staffaccounts.ErrBadCredentials):
		return "wrong username or PIN"
	}
	return ""
}
