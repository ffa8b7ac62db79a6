package bff

import (
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// newStaffFlow builds the staff pages on s's stores and guards.
func (s *Server) newStaffFlow() *staff.Handler {
	h := &staff.Handler{
		Kernel:    s.Kernel,
		Visits:    s.Visits,
		Attention: s.attentionStore,
		Watcher:   s.Watcher,
		Guards: staff.Guards{
			Accounts: []echo.MiddlewareFunc{web.Guard(func(c echo.Context) error { return staff.AccountsSupervisor(s.Kernel, c) })},
			Devices:  []echo.MiddlewareFunc{staff.SupervisorsOnly(s.Kernel, "staff.devices")},
			Audit:    []echo.MiddlewareFunc{staff.StaffOnly(s.Kernel), web.Guard(func(c echo.Context) error { return staff.AuditSupervisor(s.Kernel, c) })},
		},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.Visits.Staff != nil {
		h.Accounts = s.Visits.Staff
	}
	if s.Kernel.Enrolments != nil {
		h.Terminals = s.Kernel.Enrolments
	}
	if s.Visits.Purchases != nil {
		h.CustomerStrip = s.Visits.CustomerStrip // whom a counter serves: read from the visit's records
	}
	if s.Visits.Audit != nil {
		h.Trail = s.Visits.Audit
	}
	return h
}
