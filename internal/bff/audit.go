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

// staffUser is the signed-in staff member's username ("" when none).
func (s *Server) staffUser(c echo.Context) string {
	if loaded, _ := c.Get(ctxSessionLoaded).(bool); !loaded {
		return ""
	}
	return s.sessions.GetString(c.Request().Context(), sessStaffUser)
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
	if _, err := s.requireStaff(c); err != nil {
		return err
	}
	if !s.supervisorSignedIn(c) {
		return &Error{Code: EForbidden, Heading: "For supervisors only", Message: "The audit trail is shown to supervisors. Ask a supervisor to sign in.",
			BackURL: s.url(RouteFindBooking), BackLabel: "Back to the box office"}
	}
	ctx := c.Request().Context()
	loc := s.defaultLocation(ctx)
	v := pages.AuditView{ActionURL: s.url(RouteStaffAudit), Actor: strings.TrimSpace(c.QueryParam("actor")),
		Booking: strings.TrimSpace(c.QueryParam("booking")), Day: strings.TrimSpace(c.QueryParam("day"))}
	f := audit.Filter{Actor: v.Actor, Limit: 501}
	if v.Booking != "" {
		n, err := strconv.ParseInt(v.Booking, 10, 64)
		if err != nil || n <= 0 {
			v.Error = "A booking number has only digits."
		}
		f.BookingNumber = n
	}
	if v.Day != "" {
		day, err := time.ParseInLocation("2006-01-02", v.Day, loc)
		if err != nil {
			v.Error = "Choose a day (YYYY-MM-DD)."
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
		return s.render(c, http.StatusUnprocessableEntity, "Audit trail", pages.Audit(v))
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
		return audit.WriteCSV(c.Response(), rows, loc)
	}
	rows, err := audit.New(s.sql).List(ctx, f)
	if err != nil {
		return err
	}
	if len(rows) > 500 {
		rows, v.Limited = rows[:500], true
	}
	for _, r := range rows {
		row := pages.AuditRow{When: r.At.In(loc).Format("Mon 2 Jan 15:04:05"), WhenISO: r.At.UTC().Format(time.RFC3339), Actor: r.Actor,
			Device: r.Device, Action: r.Action, Reason: r.Reason, Detail: r.Detail}
		if r.BookingNumber != 0 {
			row.Booking = strconv.FormatInt(r.BookingNumber, 10)
		}
		if r.Currency != "" || r.AmountCents != 0 {
			row.Amount = cinema.Money{Cents: r.AmountCents, Currency: r.Currency}.Format(s.cinemaByID(ctx, r.CinemaID).Locale)
		}
		v.Rows = append(v.Rows, row)
	}
	return s.render(c, http.StatusOK, "Audit trail", pages.Audit(v))
}

// defaultLocation is the time zone the trail's days are read in: the first cinema's.
func (s *Server) defaultLocation(ctx context.Context) *time.Location {
	if list, err := s.cinemas(ctx); err == nil && len(list) > 0 {
		return list[0].Location()
	}
	return time.Local
}
