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
			v.Until = l.Time(h.endOfDay(c), h.staffLocation(ctx), i18n.DateTimeLong)
		}
	}
	return h.Site.Render(c, status, l.T("staff.queue.title"), pages.Queue(v))
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
	if err1 != nil || err2 != nil || perMinute < 0 || active < 0 {
		return h.renderQueue(c, http.StatusUnprocessableEntity, &components.Notice{Kind: components.NoticeError, Heading: l.T("staff.queue.bad_limits")})
	}
	limits := admission.Limits{PerMinute: perMinute, Active: active}
	if err := h.Admission.SetLimits(c.Request().Context(), limits, h.endOfDay(c)); err != nil {
		return err
	}
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionAdmissionLimits, Detail: fmt.Sprintf("per minute %d, open at once %d", perMinute, active)})
	h.Site.Flash(c, l.T("staff.queue.saved"))
	return web.Redirect(c, h.Site.URL("staff.queue"))
}
