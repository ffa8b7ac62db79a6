// Package staff is the supervisors' back office: the staff accounts, the enrolled terminals
// (counters and kiosks) and the audit trail. It is a flow package (docs/architecture.md, "A
// flow package"): a Handler with the interfaces it uses, its own route table, and a Site for
// what the root still holds (the page frame, flash messages, the signed-in staff member, the
// device languages). Signing in and out, the guards and recording to the audit trail stay in
// the root: every flow uses them.
package staff

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	staffacct "github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Routes of the back office. The page frame links web.RouteStaffAudit, web.RouteStaffDevices and web.RouteStaffAccounts
// in a supervisor's navigation.
const (
// Staff accounts (accounts.go).
// Enrolled terminals (devices.go).
// The audit trail (audit.go): ?actor=&booking=&day=, &format=csv.
)

// Accounts are the staff accounts (internal/staff).
type Accounts interface {
	Get(ctx context.Context, username string) (staffacct.Account, error)
	List(ctx context.Context) ([]staffacct.Account, error)
	Unlock(ctx context.Context, username string) error
	EndSessions(ctx context.Context, username string) (int64, error)
}

// Enrolments are the counter and kiosk enrolments (device.Enrolments).
type Enrolments interface {
	List(ctx context.Context, limit int) ([]device.Enrolment, error)
	Revoke(ctx context.Context, id int64, by string) (device.Enrolment, error)
	SetLanguage(ctx context.Context, id int64, language string) (device.Enrolment, error)
}

// Trail reads the audit trail (audit.Store).
type Trail interface {
	List(ctx context.Context, f audit.Filter) ([]audit.Entry, error)
}

// Site is what the back office needs from the web layer that is not in the kernel yet. The
// root implements it with thin adapters; each method moves to web as its helper does.
type Site interface {
	// Render writes a full page in the site's frame.
	Render(c echo.Context, status int, title string, body templ.Component) error
	// RecordAudit records what the staff member did.
	RecordAudit(c echo.Context, e audit.Entry)
	// PopFlash takes the visit's one-time message ("" when none).
	PopFlash(c echo.Context) string
	// Flash leaves a one-time message for the visit's next page.
	Flash(c echo.Context, msg string)
	// StaffUser is the signed-in staff member's username ("" when none).
	StaffUser(c echo.Context) string
	// SignedInStaff is the signed-in staff member's account as checked for this request.
	SignedInStaff(c echo.Context) (staffacct.Account, bool)
	// StaffLocation is the time zone staff read times in (the first cinema's; UTC without one).
	StaffLocation(ctx context.Context) *time.Location
	// DefaultLocation is the time zone the audit trail's days are read in.
	DefaultLocation(ctx context.Context) *time.Location
	// WhenWithSeconds is a moment to the second in l's way, in zone.
	WhenWithSeconds(l *i18n.Localizer, t time.Time, zone *time.Location) string
	// DeviceLanguages are the default languages a terminal can have, the site's default first.
	DeviceLanguages(l *i18n.Localizer) []pages.DeviceLanguage
	// DeviceLanguage names an enrolment's default language code.
	DeviceLanguage(l *i18n.Localizer, code string) pages.DeviceLanguage
	// ChosenDeviceLanguage reads the language field of a form; ok is false for a language the
	// site does not speak.
	ChosenDeviceLanguage(c echo.Context) (code string, ok bool)
	// InvalidDeviceLanguage is the refusal of a language the site does not speak.
	InvalidDeviceLanguage(l *i18n.Localizer, back string) error
	// ModeLabel is a terminal mode's name in l's language.
	ModeLabel(l *i18n.Localizer, m device.Mode) string
	// EnrolmentDetail is the audit row's Detail of an enrolment.
	EnrolmentDetail(e device.Enrolment) string
}

// Links are the pages of other flows the back office leads to.
type Links struct {
	Device string // this device's own setting (/device)
}

// Guards are who may reach the pages, decided by the root where the routes are registered
// (docs/architecture.md, "Who may reach a route").
type Guards struct {
	Accounts []echo.MiddlewareFunc // a signed-in supervisor (the accounts page's own refusal)
	Devices  []echo.MiddlewareFunc // an enabled supervisor, back to the terminals afterwards
	Audit    []echo.MiddlewareFunc // signed-in staff, and a supervisor
}

// Handler serves the back office. Every field is required except Accounts (nil without SQL:
// the guard refuses everybody then) and Enrolments (nil without SQL: the terminals page says
// so).
type Handler struct {
	Site       Site
	Logger     *slog.Logger
	Accounts   Accounts
	Enrolments Enrolments
	Trail      Trail
	Links      Links
	Guards     Guards
}

// Routes registers the back office's handlers, each behind its guards.
func (h *Handler) Routes(route web.Register) {
	route("GET", web.RouteStaffAccounts, h.showAccounts, h.Guards.Accounts...)
	route("POST", web.RouteStaffAccountEndSessions, h.endSessions, h.Guards.Accounts...)
	route("POST", web.RouteStaffAccountUnlock, h.unlockAccount, h.Guards.Accounts...)

	route("GET", web.RouteStaffDevices, h.showDevices, h.Guards.Devices...)
	route("POST", web.RouteStaffDeviceRevoke, h.revokeDevice, h.Guards.Devices...)
	route("POST", web.RouteStaffDeviceLanguage, h.setDeviceLanguage, h.Guards.Devices...)

	route("GET", web.RouteStaffAudit, h.showAudit, h.Guards.Audit...)
}

// url builds the path of one of the back office's routes.
func (h *Handler) url(name string, params ...any) string {
	return web.Paths.Path(h.Logger, name, params...)
}
