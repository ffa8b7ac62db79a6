package bff

import (
	"github.com/labstack/echo/v4"

	staffpages "github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// newStaffFlow builds the staff pages on s's stores and guards.
func (s *Server) newStaffFlow() *staffpages.Handler {
	h := &staffpages.Handler{
		Visits:    s.Visits,
		Attention: s.attentionStore,
		Watcher:   s.Watcher,
		Links:     staffpages.Links{Device: s.URL(web.RouteDevice)},
		Guards: staffpages.Guards{
			Accounts: []echo.MiddlewareFunc{web.Guard(s.AccountsSupervisor)},
			Devices:  []echo.MiddlewareFunc{s.SupervisorsOnly(s.URL(web.RouteStaffDevices))},
			Audit:    []echo.MiddlewareFunc{s.StaffOnly(), web.Guard(s.AuditSupervisor)},
		},
	}
	// Optional stores stay nil interfaces when absent (no typed nil pointers).
	if s.Staff != nil {
		h.Accounts = s.Staff
	}
	if s.Enrolments != nil {
		h.Terminals = s.Enrolments
	}
	if s.Audit != nil {
		h.Trail = s.Audit
	}
	return h
}
