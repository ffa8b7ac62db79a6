package bff

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/pages"
)

// recordAudit adds a row to the staff audit trail for the signed-in staff member (e.Actor may
// name another, e.g. the supervisor who approved). Device comes from the request. A row that
// cannot be written is logged as an error; the action itself has happened.
func (s *Server) recordAudit(c echo.Context, e audit.Entry) {
	if s.sql == nil {
		return
	}
	ctx := c.Request().Context()
	if e.Actor == "" {
		e.Actor = s.staffUser(c)
	}
	if e.Actor == "" {
		return // a customer's own action: not a staff action
	}
	if e.Device == "" {
		e.Device = s.deviceLabel(c)
	}
	if e.At.IsZero() {
		e.At = s.now()
	}
	if err := audit.Record(ctx, s.sql, e); err != nil {
		loggerFrom(ctx, s.logger).Error("audit row not written", "action", e.Action, "actor", e.Actor, "err", err)
	}
}

// deviceLabel names the device for the audit trail: the enrolled name people know it by
// ("Counter 2"), with the device id that stays the same across renames and re-enrolments.
func (s *Server) deviceLabel(c echo.Context) string {
	d := deviceOf(c)
	if d.Name == "" {
		return d.ID
	}
	return d.Name + " (" + d.ID + ")"
}

// RouteStaffAudit is the supervisors' audit trail (?actor=&booking=&day=, &format=csv).
const RouteStaffAudit = "staff.audit"

// showAudit lists the trail for supervisors, or downloads it as CSV.
func (s *Server) showAudit(c echo.Context) error {
	l := loc(c)
	ctx := c.Request().Context()
	zone := s.defaultLocation(ctx)
	v := pages.AuditView{ActionURL: s.url(RouteStaffAudit), Actor: strings.TrimSpace(c.QueryParam("actor")),
		Booking: strings.TrimSpace(c.QueryParam("booking")), Day: strings.TrimSpace(c.QueryParam("day"))}
	f := audit.Filter{Actor: v.Actor, Limit: 501}
	if v.Booking != "" {
		n, err := strconv.ParseInt(v.Booking, 10, 64)
		if err != nil || n <= 0 {
			v.Error = l.T("staff.audit.booking_digits")
		}
		f.BookingNumber = n
	}
	if v.Day != "" {
		day, err := time.ParseInLocation("2006-01-02", v.Day, zone)
		if err != nil {
			v.Error = l.T("staff.audit.day_format")
		} else {
			f.From, f.To = day, day.AddDate(0, 0, 1)
		}
	}
	q := url.Values{"format": {"csv"}}
	for k, val := range map[string]string{"actor": v.Actor, "booking": v.Booking, "day": v.Day} {
		if val != "" {
			q.Set(k, val)
		}
	}
	v.CSVURL = s.url(RouteStaffAudit) + "?" + q.Encode()
	if v.Error != "" {
		return s.render(c, http.StatusUnprocessableEntity, l.T("staff.audit.title"), pages.Audit(v))
	}
	if c.QueryParam("format") == "csv" {
		f.Limit = 100000
		rows, err := audit.New(s.sql).List(ctx, f)
		if err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		h.Set(echo.HeaderContentDisposition, `attachment; filename="audit-trail.csv"`)
		c.Response().WriteHeader(http.StatusOK)
		return audit.WriteCSV(c.Response(), rows, zone)
	}
	rows, err := audit.New(s.sql).List(ctx, f)
	if err != nil {
		return err
	}
	if len(rows) > 500 {
		rows, v.Limited, v.Shown = rows[:500], true, 500
	}
	for _, r := range rows {
		// Reason and detail are stored as they were written: data, not translated.
		row := pages.AuditRow{When: whenWithSeconds(l, r.At, zone), WhenISO: r.At.UTC().Format(time.RFC3339), Actor: r.Actor,
			Device: r.Device, ActionCode: r.Action, Action: auditActionWords(l, r.Action), Reason: r.Reason, Detail: r.Detail}
		if r.BookingNumber != 0 {
			row.Booking = strconv.FormatInt(r.BookingNumber, 10)
		}
		if r.Currency != "" || r.AmountCents != 0 {
			row.Amount = l.Money(cinema.Money{Cents: r.AmountCents, Currency: r.Currency})
		}
		v.Rows = append(v.Rows, row)
	}
	return s.render(c, http.StatusOK, l.T("staff.audit.title"), pages.Audit(v))
}

// whenWithSeconds is a moment to the second in l's way, in zone: "Wed 25 Nov, 20:15:07".
func whenWithSeconds(l *i18n.Localizer, t time.Time, zone *time.Location) string {
	return l.T("staff.when_seconds", "Day", l.Time(t, zone, i18n.DayShort), "Clock", t.In(zone).Format("15:04:05"))
}

// auditActionWords is an audit action in l's words (the stored code for one it does not know).
func auditActionWords(l *i18n.Localizer, action string) string {
	switch action {
	case audit.ActionSignIn:
		return l.T("staff.audit.action.sign_in")
	case audit.ActionSignInFailed:
		return l.T("staff.audit.action.sign_in_failed")
	case audit.ActionSignOut:
		return l.T("staff.audit.action.sign_out")
	case audit.ActionSessionsEnded:
		return l.T("staff.audit.action.sessions_ended")
	case audit.ActionLookup:
		return l.T("staff.audit.action.look_up")
	case audit.ActionEdit:
		return l.T("staff.audit.action.edit")
	case audit.ActionEditCancel:
		return l.T("staff.audit.action.edit_cancel")
	case audit.ActionPayment:
		return l.T("staff.audit.action.payment")
	case audit.ActionRefund:
		return l.T("staff.audit.action.refund")
	case audit.ActionApproval:
		return l.T("staff.audit.action.approval")
	case actionApprovalRefused:
		return l.T("staff.audit.action.approval_refused")
	case audit.ActionSwap:
		return l.T("staff.audit.action.swap")
	case audit.ActionSale:
		return l.T("staff.audit.action.sale")
	case audit.ActionCollect:
		return l.T("staff.audit.action.collect")
	case audit.ActionDeviceEnrol:
		return l.T("staff.audit.action.device_enrol")
	case audit.ActionDeviceRevoke:
		return l.T("staff.audit.action.device_revoke")
	case audit.ActionAttentionRetry:
		return l.T("staff.audit.action.attention_retry")
	case audit.ActionAttentionSolved:
		return l.T("staff.audit.action.attention_resolve")
	case audit.ActionNextCustomer:
		return l.T("staff.audit.action.next_customer")
	case actionAccountUnlock:
		return l.T("staff.audit.action.account_unlock")
	}
	return action
}

// defaultLocation is the time zone the trail's days are read in: the first cinema's.
func (s *Server) defaultLocation(ctx context.Context) *time.Location {
	if list, err := s.cinemas(ctx); err == nil && len(list) > 0 {
		return list[0].Location()
	}
	return time.Local
}
