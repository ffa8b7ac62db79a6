package staff

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// The admission line (/staff/queue): staff see every showtime's line and the limits that
// apply; a supervisor changes the limits until the end of the day.

// showQueue lists the lines.
func (h *Handler) showQueue(c echo.Context) error {
	return h.renderQueue(c, http.StatusOK, nil)
}

func (h *Handler) renderQueue(c echo.Context, status int, notice *components.Notice) error {
	l := web.Loc(c)
	ctx := c.Request().Context()
	v := pages.QueueView{Configured: h.Admission != nil, Notice: notice}
	if msg := h.Site.PopFlash(c); msg != "" && notice == nil {
		v.Notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	if h.Admission != nil {
		if err := h.readLines(c, &v); err != nil {
			// Redis down: the purchase lets everyone in meanwhile (checkout's waitInLine), and
			// the staff are told so rather than shown an error page.
			web.LoggerFrom(ctx, h.Logger).Warn("admission line unreadable", "err", err)
			heading := l.T("staff.queue.unavailable")
			if notice != nil {
				heading = notice.Heading // what the request came to (the limits not saved), and why
			}
			v.Rows, v.Unavailable = nil, true
			v.Notice = &components.Notice{Kind: components.NoticeError, Heading: heading, Body: l.T("staff.queue.unavailable_text")}
			status = max(status, http.StatusServiceUnavailable)
		}
	}
	return h.Site.Render(c, status, l.T("staff.queue.title"), pages.Queue(v))
}

// readLines fills v with every showtime's line and the limits that apply, and the form to
// change them for a supervisor.
func (h *Handler) readLines(c echo.Context, v *pages.QueueView) error {
	ctx := c.Request().Context()
	lines, err := h.Admission.Lines(ctx)
	if err != nil {
		return err
	}
	for _, line := range lines {
		v.Rows = append(v.Rows, pages.QueueRow{Show: line.Show, Waiting: line.Waiting, Early: line.Early, Admitted: line.Admitted})
	}
	limits, err := h.Admission.Limits(ctx)
	if err != nil {
		return err
	}
	v.PerMinute, v.Active = limits.PerMinute, limits.Active
	if h.Site.IsSupervisor(c) {
		v.Supervisor, v.ActionURL, v.CSRFToken = true, h.Site.URL("staff.queue"), web.CSRFToken(c)
		v.Until = web.Loc(c).Time(h.endOfDay(c), h.staffLocation(ctx), i18n.DateTimeLong)
		v.MaxPerMinute = admission.MaxPerMinute
	}
	return nil
}

// endOfDay is the next midnight where the cinemas are: when a supervisor's limits end.
func (h *Handler) endOfDay(c echo.Context) time.Time {
	now := h.Now().In(h.staffLocation(c.Request().Context()))
	y, m, d := now.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
}

// setQueueLimits changes the line's limits until the end of the day (supervisors only).
func (h *Handler) setQueueLimits(c echo.Context) error {
	l := web.Loc(c)
	if h.Admission == nil {
		return h.renderQueue(c, http.StatusConflict, nil)
	}
	perMinute, err1 := strconv.Atoi(strings.TrimSpace(c.FormValue("per_minute")))
	active, err2 := strconv.Atoi(strings.TrimSpace(c.FormValue("active")))
	if err1 != nil || err2 != nil || perMinute < 0 || active < 0 || perMinute > admission.MaxPerMinute {
		return h.renderQueue(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError,
			Heading: l.T("staff.queue.bad_limits", "Max", admission.MaxPerMinute)})
	}
	limits := admission.Limits{PerMinute: perMinute, Active: active}
	if err := h.Admission.SetLimits(c.Request().Context(), limits, h.endOfDay(c)); err != nil {
		web.LoggerFrom(c.Request().Context(), h.Logger).Warn("admission limits not saved", "err", err)
		return h.renderQueue(c, http.StatusServiceUnavailable, &components.Notice{Kind: components.NoticeError, Heading: l.T("staff.queue.not_saved")})
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionAdmissionLimits, Detail: fmt.Sprintf("per minute %d, open at once %d", perMinute, active)})
	h.Site.Flash(c, l.T("staff.queue.saved"))
	return web.Redirect(c, h.Site.URL("staff.queue"))
}
