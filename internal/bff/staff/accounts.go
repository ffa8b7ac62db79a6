package staff

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// showAccounts lists the accounts with role and lock state.
func (h *Handler) showAccounts(c echo.Context) error {
	me, _ := h.Site.SignedInStaff(c) // a supervisor: the route's guard
	ctx := c.Request().Context()
	list, err := h.Accounts.List(ctx)
	if err != nil {
		return err
	}
	v := pages.StaffAccountsView{CSRFToken: web.CSRFToken(c)}
	if msg := h.Site.PopFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	l, zone := web.Loc(c), h.staffLocation(ctx)
	for _, a := range list {
		r := pages.StaffAccountRow{Username: a.Username, Name: a.Name, Role: roleWords(l, a.Role), Supervisor: a.Role == staffaccounts.Supervisor,
			HasPIN: a.HasPIN, State: l.T("staff.accounts.state_active"), StateClass: "badge-kept", Failures: a.Failures, You: a.Username == me.Username,
			EndSessionsURL: h.Site.URL("staff.accounts.endsessions", a.Username)}
		switch {
		case a.Disabled:
			r.State, r.StateClass = l.T("staff.accounts.state_disabled"), "badge-removed"
		case !a.LockedUntil.IsZero():
			r.State, r.StateClass = l.T("staff.accounts.state_locked"), "badge-removed"
			r.LockedUntil, r.LockedUntilISO = l.Time(a.LockedUntil, zone, i18n.Clock), a.LockedUntil.UTC().Format(time.RFC3339)
		}
		if !a.LockedUntil.IsZero() || a.Failures > 0 {
			r.UnlockURL = h.Site.URL("staff.accounts.unlock", a.Username)
		}
		v.Rows = append(v.Rows, r)
	}
	return h.Site.Render(c, http.StatusOK, l.T("staff.accounts.title"), pages.StaffAccounts(v))
}

// roleWords is a staff role's name in l's words (staffaccounts.Role.Label is the English one the
// command line and the audit trail use).
func roleWords(l *i18n.Localizer, r staffaccounts.Role) string {
	if r == staffaccounts.Supervisor {
		return l.T("staff.role.supervisor")
	}
	return l.T("staff.role.clerk")
}

// endSessions ends every sign-in of an account, on every terminal and replica, at its next
// request (the account's session epoch goes up).
func (h *Handler) endSessions(c echo.Context) error {
	ctx := c.Request().Context()
	a, err := h.accountFromPath(c)
	if err != nil {
		return err
	}
	if _, err := h.Accounts.EndSessions(ctx, a.Username); err != nil {
		return err
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionSessionsEnded, Detail: "account " + a.Username})
	web.LoggerFrom(ctx, h.Logger).Info("staff sessions ended", "account", a.Username, "by", h.Site.StaffUser(c))
	h.Site.Flash(c, web.Loc(c).T("staff.accounts.sessions_ended", "Name", a.Name))
	return web.Redirect(c, h.Site.URL("staff.accounts"))
}

// unlockAccount lifts every lock of the account (its sign-in from every client, and its PIN)
// and forgets the failed attempts.
func (h *Handler) unlockAccount(c echo.Context) error {
	ctx := c.Request().Context()
	a, err := h.accountFromPath(c)
	if err != nil {
		return err
	}
	if err := h.Accounts.Unlock(ctx, a.Username); err != nil {
		return err
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionAccountUnlock, Detail: "account " + a.Username})
	h.Site.Flash(c, web.Loc(c).T("staff.accounts.unlocked", "Name", a.Name))
	return web.Redirect(c, h.Site.URL("staff.accounts"))
}

func (h *Handler) accountFromPath(c echo.Context) (staffaccounts.Account, error) {
	a, err := h.Accounts.Get(c.Request().Context(), c.Param("username"))
	if errors.Is(err, staffaccounts.ErrNotFound) {
		l := web.Loc(c)
		return staffaccounts.Account{}, &web.Error{Code: web.ENotFound, Heading: l.T("staff.accounts.no_such_heading"), Message: l.T("staff.accounts.no_such_text"),
			BackURL: h.Site.URL("staff.accounts"), BackLabel: l.T("staff.accounts.back")}
	}
	return a, err
}
