package bff

import (
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// newStaffFlow builds the staff pages on s's stores and guards.
func (s *Server) newStaffFlow() *staff.Handler {
	k, v := s.Kernel, s.Visits
	h := &staff.Handler{
		Site:       k,
		Visits:     v,
		SiteName:   k.Cfg.SiteName,
		Devices:    k.Devices,
		Enrolments: k.Enrolments,
		Langs:      k.Langs,
		Limits:     k.Limits,
		Logger:     k.Logger,
		Now:        k.Now,
		Sessions:   k.Sessions,
		Ticketing:  k.Ticketing,
		Ledger:     s.Ledger,
		Mail:       s.Mail,
		Payments:   s.Payments,
		Purchases:  s.Purchases,
		Readers:    s.Readers,
		Settings:   s.Settings,
		Settler:    s.Settler,
		Staff:      s.Staff,
		Attention:  s.attentionStore,
		Watcher:    s.Watcher,
		Admission:  s.admission,
		Guards: staff.Guards{
			Accounts: []echo.MiddlewareFunc{web.Guard(func(c echo.Context) error { return staff.AccountsSupervisor(s.Kernel, c) })},
			Devices:  []echo.MiddlewareFunc{staff.SupervisorsOnly(s.Kernel, "staff.devices")},
			Audit:    []echo.MiddlewareFunc{staff.StaffOnly(s.Kernel), web.Guard(func(c echo.Context) error { return staff.AuditSupervisor(s.Kernel, c) })},
			Staff:    []echo.MiddlewareFunc{staff.StaffOnly(s.Kernel)},
			Device:   []echo.MiddlewareFunc{staff.SupervisorsOnly(s.Kernel, "device")},
			Queue:    []echo.MiddlewareFunc{staff.SupervisorsOnly(s.Kernel, "staff.queue")},
		},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.Staff != nil {
		h.Accounts = s.Staff
	}
	if s.Kernel.Enrolments != nil {
		h.Terminals = s.Kernel.Enrolments
	}
	if s.Purchases != nil {
		h.CustomerStrip = s.Visits.CustomerStrip // whom a counter serves: read from the visit's records
	}
	if s.Audit != nil {
		h.Trail = s.Audit
	}
	return h
}
