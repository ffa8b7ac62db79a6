package staff

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Staff sign-in: box-office staff look bookings up by number alone; supervisors also manage
// the accounts (internal/bff/staff).
const (
// Needs attention (attention.go).

)

// SignInPerClient limits failed staff sign-ins from one client address, shared by every replica.
// A success gives its attempt back.
var SignInPerClient = ratelimit.Rule{Burst: 10, Every: 30 * time.Second}

func (h *Handler) signInView(c echo.Context) pages.SignInView {
	v := pages.SignInView{ActionURL: h.Site.URL("staff.signin"), CSRFToken: web.CSRFToken(c)}
	if n, ok := selflink.Local(c.QueryParam("next")); ok {
		v.Next = n
	}
	if n, ok := selflink.Local(c.FormValue("next")); ok && c.Request().Method == http.MethodPost {
		v.Next = n
	}
	return v
}

func (h *Handler) showSignIn(c echo.Context) error {
	v := h.signInView(c)
	v.Notice = h.Site.PopFlash(c)
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("staff.signin.title"), pages.SignIn(v))
}

// signIn checks the account. Failures count per account and client (5 lock the account for
// that client only, longer at each further failure: internal/staffaccounts) and per client (shared
// limits); a success clears both for this client. A sign-in is a privilege change, so the
// session token is renewed. A supervisor whose approval PIN is shorter than new PINs must be
// (or of unknown length) is asked for a new one.
func (h *Handler) signIn(c echo.Context) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	title := l.T("staff.signin.title")
	v := h.signInView(c)
	v.Username = strings.TrimSpace(c.FormValue("username"))
	if len(v.Username) > staffaccounts.MaxUsernameLength {
		v.Username = v.Username[:staffaccounts.MaxUsernameLength]
	}
	if h.Staff == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("staff.signin.unavailable_heading"), Message: l.T("staff.signin.unavailable_text")}
	}
	client := ratelimit.Limit{Key: "signin:client:" + web.ClientKey(c), Rule: SignInPerClient}
	ok, wait, err := ratelimit.TakeAll(ctx, h.Limits, client)
	if err != nil {
		return err
	}
	if !ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(words.WholeSeconds(wait.Seconds())))
		v.Error = l.T("staff.signin.too_many", "Wait", l.N("common.seconds", words.WholeSeconds(wait.Seconds())))
		return h.Site.Render(c, http.StatusTooManyRequests, title, pages.SignIn(v))
	}
	a, err := h.Staff.Authenticate(ctx, v.Username, c.FormValue("password"), web.ClientKey(c))
	var locked *staffaccounts.LockedError
	switch {
	case errors.As(err, &locked):
		h.Visits.RecordAudit(c, audit.Entry{Actor: typedUsername(v.Username), Action: audit.ActionSignInFailed, Detail: "account locked"})
		wait := time.Until(locked.Until)
		c.Response().Header().Set("Retry-After", strconv.Itoa(words.WholeSeconds(wait.Seconds())))
		v.Error = l.T("staff.signin.locked", "Wait", l.N("common.minutes", wholeMinutes(wait)))
		return h.Site.Render(c, http.StatusTooManyRequests, title, pages.SignIn(v))
	case errors.Is(err, staffaccounts.ErrBadCredentials):
		h.Visits.RecordAudit(c, audit.Entry{Actor: typedUsername(v.Username), Action: audit.ActionSignInFailed, Detail: "wrong username or password"})
		v.Error = l.T("staff.signin.wrong")
		return h.Site.Render(c, http.StatusUnauthorized, title, pages.SignIn(v))
	case err != nil:
		_ = ratelimit.GiveAll(ctx, h.Limits, client)
		return err
	}
	if err := ratelimit.GiveAll(ctx, h.Limits, client); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("give back sign-in attempt", "err", err)
	}
	if err := h.Site.RenewSession(c); err != nil {
		return err
	}
	h.Sessions.Put(ctx, web.SessStaffUser, a.Username)
	h.Sessions.Put(ctx, web.SessStaffName, a.Name)
	h.Sessions.Put(ctx, web.SessStaffEpoch, a.SessionEpoch)
	h.Sessions.Put(ctx, web.SessStaffSeen, time.Now().UnixMilli())
	c.Set(web.CtxStaffAccount, signedIn(a))
	h.Visits.RecordAudit(c, audit.Entry{Actor: a.Username, Action: audit.ActionSignIn, Detail: a.Role.Label()})
	web.LoggerFrom(ctx, h.Logger).Info("staff signed in", "user", a.Username, "role", a.Role)
	if msg := shortPINWarning(l, a); msg != "" {
		web.LoggerFrom(ctx, h.Logger).Warn("supervisor's approval PIN is short or of unknown length", "user", a.Username, "digits", a.PINLength)
		h.Sessions.Put(ctx, web.SessStaffPINWarning, msg) // shown as a warning on the look-up page, wherever next= leads first
	}
	if v.Next != "" {
		return web.Redirect(c, v.Next)
	}
	return web.Redirect(c, h.Site.URL("booking.find"))
}

// shortPINWarning asks a supervisor with a PIN shorter than new PINs must be, or of unknown
// length (set before lengths were recorded, not used since), to set a new one ("" otherwise).
func shortPINWarning(l *i18n.Localizer, a staffaccounts.Account) string {
	switch {
	case !a.IsSupervisor() || !a.ShortPIN():
		return ""
	case a.PINLength == 0:
		return l.T("staff.signin.pin_unknown", "Min", staffaccounts.MinPINLength, "Max", staffaccounts.MaxPINLength)
	}
	return l.T("staff.signin.pin_short", "Digits", a.PINLength, "Min", staffaccounts.MinPINLength, "Max", staffaccounts.MaxPINLength)
}

// typedUsername is the actor of a failed sign-in: what was typed, or a placeholder.
func typedUsername(u string) string {
	if u = staffaccounts.Normalize(u); u != "" {
		return u
	}
	return "(no username)"
}

// wholeMinutes is a lock's remaining time in minutes, rounded up (at least one).
func wholeMinutes(d time.Duration) int {
	return max(int((d+time.Minute-1)/time.Minute), 1)
}

// signOut ends the visit: the staff sign-in and anything found or started through it.
func (h *Handler) signOut(c echo.Context) error {
	if err := h.endSignIn(c, h.Site.StaffUser(c), ""); err != nil {
		return err
	}
	return web.Redirect(c, h.Site.URL("home"))
}

// endSignIn ends the visit of user ("" when nobody is signed in), audited as a sign-out with
// why ("" when the person chose it). Ending the visit releases the orders held for the customer
// served, and its notice of them is the visit's next flash.
func (h *Handler) endSignIn(c echo.Context, user, why string) error {
	if user != "" {
		h.Visits.RecordAudit(c, audit.Entry{Actor: user, Action: audit.ActionSignOut, Detail: why})
		web.LoggerFrom(c.Request().Context(), h.Logger).Info("staff signed out", "user", user, "why", why)
	}
	return h.Visits.EndVisit(c)
}

// nextCustomer ends the customer's part of the visit: a card-reader payment still asking is
// stopped (a card paid at that moment goes back to it, and the clerk is told), the edit order
// is released (cancelled upstream, the original booking stays), a purchase order in progress
// too, and everything the visit kept for the customer is forgotten (ForgetCustomer); the staff
// member stays signed in. A payment or refund of the change still under way keeps the customer.
// An open sale or change is not let go on one key: without confirm=1 the clerk is asked first
// (askNextCustomer), and the notice afterwards says what was released.
func (h *Handler) nextCustomer(c echo.Context) error {
	open := h.openSale(c)
	if open != "" && c.FormValue("confirm") != "1" {
		q := url.Values{}
		if from, ok := selflink.Local(c.FormValue("from")); ok {
			q.Set("from", from)
		}
		return web.Redirect(c, h.Site.URL("staff.next")+queryOf(q))
	}
	bb, _ := h.Visits.BoundBooking(c)
	l := web.Loc(c)
	edit := h.Visits.ReleaseEdit(c)
	if edit.Busy != nil {
		h.Site.Flash(c, strings.TrimSpace(visit.LetGoNotice(l, edit)+" "+l.T("staff.counter.next_busy")))
		return web.Redirect(c, h.Site.URL("edit.status", edit.Busy.ID))
	}
	buy := h.Visits.ReleaseBuy(c)
	notice := visit.LetGoNotice(l, edit, buy)
	h.Visits.ForgetCustomer(c) // the last purchase's pages, its .ics, a collection: nothing stays
	if err := h.Site.RenewSession(c); err != nil {
		return err
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionNextCustomer, CinemaID: bb.CinemaID, BookingNumber: bb.Number})
	ready := l.T("staff.counter.next_ready")
	if open != "" {
		ready = l.T("staff.counter.next_released", "What", open) + " " + ready
	}
	h.Site.FlashSuccess(c, ready)
	if notice != "" {
		h.Site.Flash(c, notice)
	}
	return web.Redirect(c, h.Site.URL("booking.find"))
}

// askNextCustomer asks before Next customer releases what the counter still holds open for the
// customer served; with nothing open there is nothing to ask, and the look-up is next.
func (h *Handler) askNextCustomer(c echo.Context) error {
	open := h.openSale(c)
	if open == "" {
		return web.Redirect(c, h.Site.URL("booking.find"))
	}
	keep, ok := selflink.Local(c.QueryParam("from"))
	if !ok {
		keep = h.Site.URL("home")
	}
	l := web.Loc(c)
	v := pages.NextCustomerView{Open: open, ActionURL: h.Site.URL("staff.next"), KeepURL: keep, CSRFToken: web.CSRFToken(c)}
	return h.Site.Render(c, http.StatusOK, l.T("staff.counter.next_question_title"), pages.NextCustomer(v))
}

// openSale says what the counter holds open for the customer served (a sale's tickets, or a
// change of a booking), "" when nothing.
func (h *Handler) openSale(c echo.Context) string {
	l := web.Loc(c)
	if buy, ok := h.Visits.CurrentBuy(c); ok {
		return l.N("staff.counter.sale_what", buy.Places, "Film", buy.FilmTitle)
	}
	if e, ok := h.Visits.CurrentEdit(c); ok {
		return l.T("staff.counter.next_open_edit", "Number", e.BookingNumber)
	}
	return ""
}

// queryOf is q as a URL's query part ("" when empty).
func queryOf(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}
