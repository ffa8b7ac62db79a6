package web

import (
	"context"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/selflink"
)

// Who is signed in on this request, in one place: the staff member's username and name, the
// account the sign-in check (SignInCheck) confirmed, the role read from the account, and whether the browser
// is an enrolled counter. The route guards that refuse on it are the staff flow's
// (internal/bff/staff: guards.go); no handler checks staff by hand.

// StaffUser is the signed-in staff member's username ("" when none).
func (k *Kernel) StaffUser(c echo.Context) string { return k.SignInValue(c, SessStaffUser) }

// StaffMember returns the signed-in staff member's name ("" when none).
func (k *Kernel) StaffMember(c echo.Context) string { return k.SignInValue(c, SessStaffName) }

// SignInValue reads one value of the staff sign-in from the visit's session: "" for a request
// that never reached the session middleware (an error page for it).
func (k *Kernel) SignInValue(c echo.Context, key string) string {
	if loaded, _ := c.Get(CtxSessionLoaded).(bool); !loaded {
		return ""
	}
	return k.Sessions.GetString(c.Request().Context(), key)
}

// StaffAccount is what the kernel knows of a staff member's account to check a sign-in.
type StaffAccount struct {
	Username     string
	Name         string
	Supervisor   bool // the account's role, whether enabled or not
	Disabled     bool
	SessionEpoch int64 // written into a sign-in; a sign-in with another epoch has been ended
}

// IsSupervisor reports whether a is an enabled supervisor.
func (a StaffAccount) IsSupervisor() bool { return a.Supervisor && !a.Disabled }

// StaffAccounts reads the accounts sign-ins are checked against (internal/staffaccounts, adapted by
// the staff flow); found is false for an account that does not exist.
type StaffAccounts interface {
	StaffAccount(ctx context.Context, username string) (a StaffAccount, found bool, err error)
}

// SignedInStaff returns the signed-in staff member's account as checked at the start of this
// request (enabled, session epoch current, not idle).
func (k *Kernel) SignedInStaff(c echo.Context) (StaffAccount, bool) {
	a, ok := c.Get(CtxStaffAccount).(StaffAccount)
	return a, ok
}

// StaffRole returns the signed-in staff member's username and whether the account is an
// enabled supervisor now. The role is read from the account (internal/staffaccounts), not from the
// session, so a supervisor demoted or disabled since signing in is refused at once: the
// account the sign-in check read for this request, or else the account read here.
func (k *Kernel) StaffRole(c echo.Context) (username string, supervisor bool) {
	username = k.StaffUser(c)
	if username == "" || k.StaffAccounts == nil {
		return username, false
	}
	if a, ok := k.SignedInStaff(c); ok && a.Username == username {
		return username, a.IsSupervisor()
	}
	ctx := c.Request().Context()
	a, found, err := k.StaffAccounts.StaffAccount(ctx, username)
	if err != nil {
		LoggerFrom(ctx, k.Logger).Error("staff account not readable: not treated as a supervisor", "user", username, "err", err)
		return username, false
	}
	return username, found && a.IsSupervisor()
}

// IsSupervisor reports whether an enabled supervisor is signed in.
func (k *Kernel) IsSupervisor(c echo.Context) bool {
	_, sup := k.StaffRole(c)
	return sup
}

// AtCounter reports a signed-in staff member on a box-office device.
func (k *Kernel) AtCounter(c echo.Context) bool {
	return k.StaffUser(c) != "" && DeviceOf(c).Mode == device.Counter
}

// SignInURL is the staff sign-in page that comes back to next after signing in (next is
// dropped unless it is an address on this site: localLink).
func (k *Kernel) SignInURL(next string) string {
	u := k.URL("staff.signin")
	if n, ok := selflink.Local(next); ok {
		u += "?next=" + url.QueryEscape(n)
	}
	return u
}

// Session and context keys of the staff sign-in.
const (
	SessStaffUser  = "staff.user"
	SessStaffName  = "staff.name"
	SessStaffEpoch = "staff.epoch" // the account's session epoch at sign-in
	SessStaffSeen  = "staff.seen"  // unix milliseconds of the last staff request (idle timeout)
	// SessStaffPINWarning asks a supervisor with a short PIN for a new one (shortPINWarning).
	SessStaffPINWarning = "staff.pin_warning"

	// CtxStaffAccount holds the StaffAccount checked for this request (Kernel.SignInCheck).
	CtxStaffAccount = "staff_account"
)
