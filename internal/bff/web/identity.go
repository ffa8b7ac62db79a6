package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/device"
)

// Who is signed in on this request, in one place: the staff member's username and name, the
// account checkStaffSignIn confirmed, the role read from the account, and whether the browser
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

// StaffAccounts reads the accounts sign-ins are checked against (internal/staff, adapted by
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
// enabled supervisor now. The role is read from the account (internal/staff), not from the
// session, so a supervisor demoted or disabled since signing in is refused at once: the
// account checkStaffSignIn read for this request, or else the account read here.
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
	u := k.URL(RouteStaffSignIn)
	if n, ok := LocalLink(next); ok {
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

	// CtxStaffAccount holds the StaffAccount checked for this request (checkStaffSignIn).
	CtxStaffAccount = "staff_account"
)

// DefaultStaffIdle ends a staff sign-in after this long without a request.
const DefaultStaffIdle = 15 * time.Minute

func (k *Kernel) staffIdle() time.Duration {
	if k.Cfg.StaffIdle > 0 {
		return k.Cfg.StaffIdle
	}
	return DefaultStaffIdle
}

// checkStaffSignIn checks a staff sign-in on every request of the visit: it ends after
// StaffIdle without a request (the visit's own idle timeout is longer), when a supervisor ended
// the account's sessions (session epoch), and when the account was disabled or deleted. The
// account is read from the database each time, so this holds on every replica and with every
// session store. An ended sign-in ends the whole visit, as signing out does: a booking found by
// number alone must not stay with the browser.
func (k *Kernel) checkStaffSignIn(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if loaded, _ := c.Get(CtxSessionLoaded).(bool); !loaded || k.StaffAccounts == nil {
			return next(c)
		}
		ctx := c.Request().Context()
		user := k.Sessions.GetString(ctx, SessStaffUser)
		if user == "" {
			return next(c)
		}
		now := time.Now() // wall clock, like the visit's own idle timeout
		idle := k.staffIdle()
		seen := time.UnixMilli(k.Sessions.GetInt64(ctx, SessStaffSeen))
		l := Loc(c)
		why, notice := "", "" // why: for the log and the audit trail; notice: for the person
		var a StaffAccount
		if now.Sub(seen) > idle {
			why = fmt.Sprintf("after %s without activity", k.English().Duration(idle))
			notice = l.T("staff.signin.ended_idle", "Duration", l.Duration(idle))
		} else {
			var found bool
			var err error
			a, found, err = k.StaffAccounts.StaffAccount(ctx, user)
			switch {
			case err == nil && (!found || a.Disabled):
				why, notice = "because the account is no longer active", l.T("staff.signin.ended_inactive")
			case err != nil:
				return fmt.Errorf("check staff sign-in: %w", err)
			case a.SessionEpoch != k.Sessions.GetInt64(ctx, SessStaffEpoch):
				why, notice = "because a supervisor ended it", l.T("staff.signin.ended_by_supervisor")
			}
		}
		if why == "" {
			c.Set(CtxStaffAccount, a)
			if now.Sub(seen) > idle/15 { // a write at most every minute (default idle)
				k.Sessions.Put(ctx, SessStaffSeen, now.UnixMilli())
			}
			if k.Sessions.GetString(ctx, SessStaffName) != a.Name {
				k.Sessions.Put(ctx, SessStaffName, a.Name)
			}
			return next(c)
		}
		LoggerFrom(ctx, k.Logger).Info("staff sign-in ended", "user", user, "why", why)
		k.RecordAudit(c, audit.Entry{Actor: user, Action: audit.ActionSignOut, Detail: "sign-in ended " + why})
		if err := k.Sessions.Destroy(ctx); err != nil {
			return fmt.Errorf("end staff sign-in: %w", err)
		}
		p := c.Request().URL.Path
		if p == Paths[RouteStaffSignIn] || p == Paths[RouteStaffSignOut] {
			return next(c) // signing in again, or out anyway
		}
		k.Flash(c, notice)
		back := ""
		if c.Request().Method == http.MethodGet {
			back = c.Request().URL.RequestURI()
		}
		return k.Redirect(c, k.SignInURL(back))
	}
}
