package staff

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// DefaultStaffIdle ends a staff sign-in after this long without a request.
const DefaultStaffIdle = 15 * time.Minute

// staffIdle is how long a sign-in lasts without a request; read on each request, so a change
// of the kernel's configuration counts at once.
func staffIdle(k *web.Kernel) time.Duration {
	if k.Cfg.StaffIdle > 0 {
		return k.Cfg.StaffIdle
	}
	return DefaultStaffIdle
}

// CheckSignIn checks a staff sign-in on every request of the visit (the kernel runs it last in
// its chain, as Kernel.SignInCheck): it ends after StaffIdle without a request (the visit's own
// idle timeout is longer), when a supervisor ended the account's sessions (session epoch), and
// when the account was disabled or deleted. The
// account is read from the database each time, so this holds on every replica and with every
// session store. An ended sign-in ends the whole visit, as signing out does: a booking found by
// number alone must not stay with the browser.
func CheckSignIn(k *web.Kernel, v *visit.Visits) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if loaded, _ := c.Get(web.CtxSessionLoaded).(bool); !loaded || k.StaffAccounts == nil {
				return next(c)
			}
			ctx := c.Request().Context()
			user := k.Sessions.GetString(ctx, web.SessStaffUser)
			if user == "" {
				return next(c)
			}
			now := time.Now() // wall clock, like the visit's own idle timeout
			idle := staffIdle(k)
			seen := time.UnixMilli(k.Sessions.GetInt64(ctx, web.SessStaffSeen))
			l := web.Loc(c)
			why, notice := "", "" // why: for the log and the audit trail; notice: for the person
			var a web.StaffAccount
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
				case a.SessionEpoch != k.Sessions.GetInt64(ctx, web.SessStaffEpoch):
					why, notice = "because a supervisor ended it", l.T("staff.signin.ended_by_supervisor")
				}
			}
			if why == "" {
				c.Set(web.CtxStaffAccount, a)
				if now.Sub(seen) > idle/15 { // a write at most every minute (default idle)
					k.Sessions.Put(ctx, web.SessStaffSeen, now.UnixMilli())
				}
				if k.Sessions.GetString(ctx, web.SessStaffName) != a.Name {
					k.Sessions.Put(ctx, web.SessStaffName, a.Name)
				}
				return next(c)
			}
			web.LoggerFrom(ctx, k.Logger).Info("staff sign-in ended", "user", user, "why", why)
			v.RecordAudit(c, audit.Entry{Actor: user, Action: audit.ActionSignOut, Detail: "sign-in ended " + why})
			if err := k.Sessions.Destroy(ctx); err != nil {
				return fmt.Errorf("end staff sign-in: %w", err)
			}
			p := c.Request().URL.Path
			if p == k.Path("staff.signin") || p == k.Path("staff.signout") {
				return next(c) // signing in again, or out anyway
			}
			k.Flash(c, notice)
			back := ""
			if c.Request().Method == http.MethodGet {
				back = c.Request().URL.RequestURI()
			}
			return web.Redirect(c, k.SignInURL(back))
		}
	}
}
