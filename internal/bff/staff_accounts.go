package bff

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// actionAccountUnlock is the audit action of a supervisor lifting a lock-out (internal/audit
// has no constant for it).
const actionAccountUnlock = "account-unlock"

// showStaffAccounts lists the accounts with role and lock state.
func (s *Server) showStaffAccounts(c echo.Context) error {
	me, _ := s.signedInStaff(c) // a supervisor: the route's guard
	ctx := c.Request().Context()
	list, err := s.staff.List(ctx)
	if err != nil {
		return err
	}
	v := pages.StaffAccountsView{CSRFToken: csrfToken(c)}
	if msg := s.popFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	l, zone := loc(c), s.staffLocation(ctx)
	for _, a := range list {
		r := pages.StaffAccountRow{Username: a.Username, Name: a.Name, Role: roleWords(l, a.Role), Supervisor: a.Role == staff.Supervisor,
			HasPIN: a.HasPIN, State: l.T("staff.accounts.state_active"), StateClass: "badge-kept", Failures: a.Failures, You: a.Username == me.Username,
			EndSessionsURL: s.url(RouteStaffAccountEndSessions, a.Username)}
		switch {
		case a.Disabled:
			r.State, r.StateClass = l.T("staff.accounts.state_disabled"), "badge-removed"
		case !a.LockedUntil.IsZero():
			r.State, r.StateClass = l.T("staff.accounts.state_locked"), "badge-removed"
			r.LockedUntil, r.LockedUntilISO = l.Time(a.LockedUntil, zone, i18n.Clock), a.LockedUntil.UTC().Format(time.RFC3339)
		}
		if !a.LockedUntil.IsZero() || a.Failures > 0 {
			r.UnlockURL = s.url(RouteStaffAccountUnlock, a.Username)
		}
		v.Rows = append(v.Rows, r)
	}
	return s.render(c, http.StatusOK, l.T("staff.accounts.title"), pages.StaffAccounts(v))
}

// roleWords is a staff role's name in l's words (staff.Role.Label is the English one the
// command line and the audit trail use).
func roleWords(l *i18n.Localizer, r staff.Role) string {
	if r == staff.Supervisor {
		return l.T("staff.role.supervisor")
	}
	return l.T("staff.role.clerk")
}

// endStaffSessions ends every sign-in of an account, on every terminal and replica, at its
// next request (the account's session epoch goes up).
func (s *Server) endStaffSessions(c echo.Context) error {
	ctx := c.Request().Context()
	a, err := s.accountFromPath(c)
	if err != nil {
		return err
	}
	if _, err := s.staff.EndSessions(ctx, a.Username); err != nil {
		return err
	}
	s.recordAudit(c, audit.Entry{Action: audit.ActionSessionsEnded, Detail: "account " + a.Username})
	loggerFrom(ctx, s.logger).Info("staff sessions ended", "account", a.Username, "by", s.staffUser(c))
	s.flash(c, loc(c).T("staff.accounts.sessions_ended", "Name", a.Name))
	return s.redirect(c, s.url(RouteStaffAccounts))
}

// unlockStaffAccount lifts every lock of the account (its sign-in from every client, and its
// PIN) and forgets the failed attempts.
func (s *Server) unlockStaffAccount(c echo.Context) error {
	ctx := c.Request().Context()
	a, err := s.accountFromPath(c)
	if err != nil {
		return err
	}
	if err := s.staff.Unlock(ctx, a.Username); err != nil {
		return err
	}
	s.recordAudit(c, audit.Entry{Action: actionAccountUnlock, Detail: "account " + a.Username})
	s.flash(c, loc(c).T("staff.accounts.unlocked", "Name", a.Name))
	return s.redirect(c, s.url(RouteStaffAccounts))
}

func (s *Server) accountFromPath(c echo.Context) (staff.Account, error) {
	a, err := s.staff.Get(c.Request().Context(), c.Param("username"))
	if errors.Is(err, staff.ErrNotFound) {
		l := loc(c)
		return staff.Account{}, &web.Error{Code: web.ENotFound, Heading: l.T("staff.accounts.no_such_heading"), Message: l.T("staff.accounts.no_such_text"),
			BackURL: s.url(RouteStaffAccounts), BackLabel: l.T("staff.accounts.back")}
	}
	return a, err
}
