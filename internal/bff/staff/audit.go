package staff

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/pages"
)

// showAudit lists the trail for supervisors, or downloads it as CSV.
func (h *Handler) showAudit(c echo.Context) error {
	l := web.Loc(c)
	ctx := c.Request().Context()
	zone := h.Visits.DefaultLocation(ctx)
	v := pages.AuditView{ActionURL: h.Site.URL("staff.audit"), Actor: strings.TrimSpace(c.QueryParam("actor")),
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
	v.CSVURL = h.Site.URL("staff.audit") + "?" + q.Encode()
	if v.Error != "" {
		return h.Site.Render(c, http.StatusUnprocessableEntity, l.T("staff.audit.title"), pages.Audit(v))
	}
	if c.QueryParam("format") == "csv" {
		f.Limit = 100000
		rows, err := h.Trail.List(ctx, f)
		if err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		h.Set(echo.HeaderContentDisposition, `attachment; filename="audit-trail.csv"`)
		c.Response().WriteHeader(http.StatusOK)
		return audit.WriteCSV(c.Response(), rows, zone)
	}
	rows, err := h.Trail.List(ctx, f)
	if err != nil {
		return err
	}
	if len(rows) > 500 {
		rows, v.Limited, v.Shown = rows[:500], true, 500
	}
	for _, r := range rows {
		// Reason and detail are stored as they were written: data, not translated.
		row := pages.AuditRow{When: words.WhenWithSeconds(l, r.At, zone), WhenISO: r.At.UTC().Format(time.RFC3339), Actor: r.Actor,
			Device: r.Device, ActionCode: r.Action, Action: auditActionWords(l, r.Action), Reason: r.Reason, Detail: r.Detail}
		if r.BookingNumber != 0 {
			row.Booking = strconv.FormatInt(r.BookingNumber, 10)
		}
		if r.Currency != "" || r.AmountCents != 0 {
			row.Amount = l.Money(cinema.Money{Cents: r.AmountCents, Currency: r.Currency})
		}
		v.Rows = append(v.Rows, row)
	}
	return h.Site.Render(c, http.StatusOK, l.T("staff.audit.title"), pages.Audit(v))
}

// auditActionWords is an audit action in l's words (the stored code for one it does not know).
func auditActionWords(l *i18n.Localizer, action string) string {
	if id, ok := auditActionMessages[action]; ok {
		return l.T(id)
	}
	return action
}

// auditActionMessages are the message ids of the audit actions' words.
var auditActionMessages = map[string]string{
	audit.ActionSignIn:          "staff.audit.action.sign_in",
	audit.ActionSignInFailed:    "staff.audit.action.sign_in_failed",
	audit.ActionSignOut:         "staff.audit.action.sign_out",
	audit.ActionSessionsEnded:   "staff.audit.action.sessions_ended",
	audit.ActionLookup:          "staff.audit.action.look_up",
	audit.ActionEdit:            "staff.audit.action.edit",
	audit.ActionEditCancel:      "staff.audit.action.edit_cancel",
	audit.ActionPayment:         "staff.audit.action.payment",
	audit.ActionRefund:          "staff.audit.action.refund",
	audit.ActionApproval:        "staff.audit.action.approval",
	audit.ActionApprovalRefused: "staff.audit.action.approval_refused",
	audit.ActionSwap:            "staff.audit.action.swap",
	audit.ActionSale:            "staff.audit.action.sale",
	audit.ActionCollect:         "staff.audit.action.collect",
	audit.ActionDeviceEnrol:     "staff.audit.action.device_enrol",
	audit.ActionDeviceRevoke:    "staff.audit.action.device_revoke",
	audit.ActionAttentionRetry:  "staff.audit.action.attention_retry",
	audit.ActionAttentionSolved: "staff.audit.action.attention_resolve",
	audit.ActionNextCustomer:    "staff.audit.action.next_customer",
	audit.ActionAccountUnlock:   "staff.audit.action.account_unlock",
	audit.ActionAdmissionLimits: "staff.audit.action.admission_limits",
}
