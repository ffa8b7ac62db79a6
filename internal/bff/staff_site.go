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
		Ledger:     v.Ledger,
		Mail:       v.Mail,
		Payments:   v.Payments,
		Purchases:  v.Purchases,
		Readers:    v.Readers,
		Settings:   &v.Settings,
		Settler:    v.Settler,
		Staff:      v.Staff,
		Attention:  s.attentionStore,
		Watcher:    s.Watcher,
		Guards: staff.Guards{
			Accounts: []echo.MiddlewareFunc{web.Guard(func(c echo.Context) error { return staff.AccountsSupervisor(s.Kernel, c) })},
			Devices:  []echo.MiddlewareFunc{staff.SupervisorsOnly(s.Kernel, "staff.devices")},
			Audit:    []echo.MiddlewareFunc{staff.StaffOnly(s.Kernel), web.Guard(func(c echo.Context) error { return staff.AuditSupervisor(s.Kernel, c) })},
			Staff:    []echo.MiddlewareFunc{staff.StaffOnly(s.Kernel)},
			Device:   []echo.MiddlewareFunc{staff.SupervisorsOnly(s.Kernel, "device")},
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
