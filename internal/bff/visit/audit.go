package visit

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// RecordAudit adds a row to the staff audit trail for the signed-in staff member (e.Actor may
// name another, e.g. the supervisor who approved). Device comes from the request. A row that
// cannot be written is logged as an error; the action itself has happened.
func (v *Visits) RecordAudit(c echo.Context, e audit.Entry) {
	if e, ok := v.AuditEntry(c, e); ok {
		v.WriteAudit(c.Request().Context(), e)
	}
}

// AuditEntry is e with who did it, on which device and when, taken from the request; ok is
// false when there is nothing to record (no trail, or a customer's own action). A step that
// goes on without the request (MoneyStep) writes it with WriteAudit.
func (v *Visits) AuditEntry(c echo.Context, e audit.Entry) (audit.Entry, bool) {
	if v.audit == nil {
		return e, false
	}
	if e.Actor == "" {
		e.Actor = v.kernel.StaffUser(c)
	}
	if e.Actor == "" {
		return e, false // a customer's own action: not a staff action
	}
	if e.Device == "" {
		e.Device = v.DeviceLabel(c)
	}
	if e.At.IsZero() {
		e.At = v.kernel.Now()
	}
	return e, true
}

// WriteAudit writes an entry made by AuditEntry.
func (v *Visits) WriteAudit(ctx context.Context, e audit.Entry) {
	if err := v.audit.Record(ctx, e); err != nil {
		web.LoggerFrom(ctx, v.kernel.Logger).Error("audit row not written", "action", e.Action, "actor", e.Actor, "err", err)
	}
}

// DeviceLabel names the device for the audit trail: the enrolled name people know it by
// ("Counter 2"), with the device id that stays the same across renames and re-enrolments.
func (v *Visits) DeviceLabel(c echo.Context) string {
	d := web.DeviceOf(c)
	if d.Name == "" {
		return d.ID
	}
	return d.Name + " (" + d.ID + ")"
}
