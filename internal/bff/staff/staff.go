// Package staff is the staff's side of the site: signing in and out, Needs attention, the next
// customer at the counter, this device's mode (/device), and the supervisors' back office (the
// staff accounts, the enrolled terminals and the audit trail). It is a flow package
// (docs/architecture.md): a Handler over the visits and the stores it uses, with its routes and
// their guards, and the staff's part of the page frame (Chrome). The route guards are here
// (guards.go); the root hands the counter's guard to the booking and checkout flows. Who is
// signed in and the audit trail are the kernel's (internal/bff/web): every flow uses them.
package staff

import (
	"context"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/layouts"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/attention"
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
)

// Accounts are the staff accounts (internal/staffaccounts).
type Accounts interface {
	Get(ctx context.Context, username string) (staffaccounts.Account, error)
	List(ctx context.Context) ([]staffaccounts.Account, error)
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

// Guards are who may reach the pages, decided by the root where the routes are registered
// (docs/architecture.md, "Who may reach a route").
type Guards struct {
	Accounts []echo.MiddlewareFunc // a signed-in supervisor (the accounts page's own refusal)
	Devices  []echo.MiddlewareFunc // an enabled supervisor, back to the terminals afterwards
	Audit    []echo.MiddlewareFunc // signed-in staff, and a supervisor
	Staff    []echo.MiddlewareFunc // any signed-in staff member
	Device   []echo.MiddlewareFunc // saving a device's setting: an enabled supervisor
	Queue    []echo.MiddlewareFunc // changing the admission line's limits: an enabled supervisor
}

// Site is what the flow needs from the kernel: addresses, rendering, the visit's flash and
// who is signed in (*web.Kernel).
type Site interface {
	AtCounter(c echo.Context) bool
	English() *i18n.Localizer
	Flash(c echo.Context, msg string)
	FlashSuccess(c echo.Context, msg string)
	IsSupervisor(c echo.Context) bool
	Path(name string) string
	PopFlash(c echo.Context) string
	Render(c echo.Context, status int, title string, body templ.Component) error
	RenewSession(c echo.Context) error
	SignInURL(next string) string
	SignedInStaff(c echo.Context) (web.StaffAccount, bool)
	StaffMember(c echo.Context) string
	StaffRole(c echo.Context) (username string, supervisor bool)
	StaffUser(c echo.Context) string
	URL(name string, params ...any) string
}

// Visits is what the flow needs of the visit: ending it or the customer's part of it, and what
// the flows share about it (*visit.Visits).
type Visits interface {
	ApproveBy(ctx context.Context, username string, pin string) (staffaccounts.Account, error)
	BoundBooking(c echo.Context) (visit.Bound, bool)
	CinemaByID(ctx context.Context, id string) cinema.Cinema
	Cinemas(ctx context.Context) ([]cinema.Cinema, error)
	DefaultLocation(ctx context.Context) *time.Location
	EndVisit(c echo.Context) error
	ForgetCustomer(c echo.Context)
	ReaderMoved(c echo.Context) string
	RecordAudit(c echo.Context, e audit.Entry)
	ReleaseBuy(c echo.Context) visit.LetGo
	CurrentBuy(c echo.Context) (visit.Buy, bool)
	CurrentEdit(c echo.Context) (visit.Edit, bool)
	ReleaseEdit(c echo.Context) visit.LetGo
}

// Handler serves the back office. Every field is required except Accounts (nil without SQL:
// the guard refuses everybody then) and Terminals (nil without SQL: the terminals page says
// so).
type Handler struct {
	Site       Site
	Visits     Visits
	SiteName   string
	Devices    *device.Store
	Enrolments *device.Enrolments
	Langs      *i18n.Catalog
	Limits     ratelimit.Store
	Logger     *slog.Logger
	Now        func() time.Time
	Sessions   *scs.SessionManager
	Ticketing  *upstream.Client
	Ledger     *ledger.Store
	Mail       *notify.Mailer
	Payments   upstream.Payments
	Purchases  *purchases.Store
	Readers    upstream.CardReaders
	Settings   *visit.Settings
	Settler    *settlement.Settler
	Staff      *staffaccounts.Store
	Accounts   Accounts
	Terminals  Enrolments
	Trail      Trail
	Guards     Guards
	// Needs attention: the staff's actions on its items (nil without a database) and the
	// checkout flow's watcher of unconfirmed orders, which Retry asks (nil without one).
	Attention *attention.Store
	Watcher   *purchases.Watcher
	// Admission is the line in front of the purchase (nil: the site has none).
	Admission admission.Queue
	// CustomerStrip says whom a counter serves, for the frame of its pages (nil: none).
	CustomerStrip func(c echo.Context) *layouts.CustomerStrip
}

// Routes registers the back office's handlers, each behind its guards.
func (h *Handler) Routes(r web.Router) {
	r.GET("/staff/accounts", h.showAccounts, "staff.accounts", h.Guards.Accounts...)
	r.POST("/staff/accounts/:username/end-sessions", h.endSessions, "staff.accounts.endsessions", h.Guards.Accounts...)
	r.POST("/staff/accounts/:username/unlock", h.unlockAccount, "staff.accounts.unlock", h.Guards.Accounts...)

	r.GET("/staff/devices", h.showDevices, "staff.devices", h.Guards.Devices...)
	r.POST("/staff/devices/:id/revoke", h.revokeDevice, "staff.devices.revoke", h.Guards.Devices...)
	r.POST("/staff/devices/:id/language", h.setDeviceLanguage, "staff.devices.language", h.Guards.Devices...)

	r.GET("/staff/audit", h.showAudit, "staff.audit", h.Guards.Audit...)

	r.GET("/staff/sign-in", h.showSignIn, "staff.signin")
	r.POST("/staff/sign-in", h.signIn, "staff.signin")
	r.POST("/staff/sign-out", h.signOut, "staff.signout")
	staffOnly := h.Guards.Staff
	r.GET("/staff/attention", h.showAttention, "staff.attention", staffOnly...)
	r.POST("/staff/attention/:kind/:ref/retry", h.retryAttention, "staff.attention.retry", staffOnly...)
	r.POST("/staff/attention/:kind/:ref/resolve", h.resolveAttention, "staff.attention.resolve", staffOnly...)
	r.GET("/staff/next-customer", h.askNextCustomer, "staff.next", staffOnly...)
	r.POST("/staff/next-customer", h.nextCustomer, "staff.next", staffOnly...)
	r.GET("/staff/queue", h.showQueue, "staff.queue", staffOnly...)
	r.POST("/staff/queue", h.setQueueLimits, "staff.queue", h.Guards.Queue...)

	r.GET("/device", h.showDevice, "device")
	r.POST("/device", h.saveDevice, "device", h.Guards.Device...)
}
