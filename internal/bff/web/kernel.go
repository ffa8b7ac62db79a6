package web

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/static"
)

// Config is the part of the service configuration the kernel needs; the flows' settings are
// the root's (bff.Config), handed to each flow.
type Config struct {
	SiteName        string
	PublicURL       *url.URL // absolute; https turns on Secure cookies, __Host- names and HSTS
	TrustedProxies  []*net.IPNet
	SessionIdle     time.Duration // a visit ends after this long without activity
	SessionLifetime time.Duration // and at the latest after this long
	// FormActionOrigins are origins (besides 'self') forms may lead to, e.g. the payment provider
	// whose hosted page we redirect to after a POST.
	FormActionOrigins []string
	BodyLimit         string // e.g. "64K"
	// StaffIdle ends a staff sign-in after this long without a request (0 means 15 minutes).
	StaffIdle time.Duration
	// ReadBudget is how long the ticketing reads of one request may take in all, from its
	// arrival (0 means 1.5 s), so a page answers within about 2 s (budget.go); it is also how
	// long a page waits for a money step when its request has no read deadline.
	// MoneyStepTimeout is the own deadline of a step that changes state upstream or moves
	// money, detached from the request (0 means 45 s). The root's New resolves both once.
	ReadBudget       time.Duration
	MoneyStepTimeout time.Duration
	// MetricsToken, when set, opens /metrics on the site to "Authorization: Bearer <token>";
	// when empty /metrics on the site answers 404 (the metrics listener serves MetricsHandler).
	MetricsToken string
}

// Secure reports whether the site is served over https.
func (c Config) Secure() bool { return c.PublicURL != nil && c.PublicURL.Scheme == "https" }

// Kernel is what every flow is built on: the configuration, the visit's session, the site's
// languages and assets, the clock, who is signed in, the ticketing client and the read budget,
// rendering and the page chrome (with each audience's hook), the error page, the middleware
// chain, the route table and the audit trail. It knows no flow: a flow holds it as a named
// field, or takes the part it uses through an interface of its own.
type Kernel struct {
	Cfg      Config
	Logger   *slog.Logger
	Sessions *scs.SessionManager
	Langs    *i18n.Catalog
	Assets   *static.Assets
	Now      func() time.Time
	// Background bounds background work started by requests (money steps); it ends at shutdown.
	Background context.Context

	Devices       *device.Store      // the device cookie
	Enrolments    *device.Enrolments // counter and kiosk enrolments; nil without a database
	StaffAccounts StaffAccounts      // the staff accounts sign-ins are checked against; nil without a database
	Limits        ratelimit.Store    // rate limits shared by every replica
	// ChromeHooks add each audience's part to the page frame (chrome.go), in order.
	ChromeHooks []ChromeHook
	// SignInCheck checks a staff sign-in on every request, last in the middleware chain (the
	// staff flow's CheckSignIn); nil checks none. Set it before Use.
	SignInCheck echo.MiddlewareFunc

	Ticketing *upstream.Client

	// Registry takes the HTTP metrics; CSRFKeys make the CSRF secrets of visits without one in
	// their session (csrf.go), newest first: replicas must share them.
	Registry *prometheus.Registry
	CSRFKeys [][]byte

	metrics *httpMetrics
	// routes are the registered routes' paths by name, added every route registered (Router
	// fills both).
	routes Routes
	added  []Route
}

// Router is what the flows register their routes with on e; the paths it is given are the
// ones URL builds.
func (k *Kernel) Router(e *echo.Echo) Router {
	if k.routes == nil {
		k.routes = Routes{}
	}
	return Router{echo: e, routes: k.routes, log: k.Logger, added: &k.added}
}

// Registered lists the routes registered through Router, in order.
func (k *Kernel) Registered() []Route { return slices.Clone(k.added) }

// Path is the path pattern of the route called name ("" for none): for comparing with a
// request's matched route (echo.Context.Path).
func (k *Kernel) Path(name string) string { return k.routes[name] }

// URL builds the path of a named route, filling its :params in order and escaping them.
// An unknown name is a programming error caught by the route tests; it yields "/".
func (k *Kernel) URL(name string, params ...any) string {
	return k.routes.Path(k.Logger, name, params...)
}

// AbsURL is URL() made absolute with the configured public base URL (for ReturnUrl and links
// that leave the site).
func (k *Kernel) AbsURL(name string, params ...any) string {
	return strings.TrimSuffix(k.Cfg.PublicURL.String(), "/") + k.URL(name, params...)
}

// Use finishes the kernel and puts it in front of e: the error page, the HTTP metrics and the
// middleware chain. Call it once, before any route is added.
func (k *Kernel) Use(e *echo.Echo) error {
	if len(k.CSRFKeys) == 0 {
		key := make([]byte, 32)
		_, _ = rand.Read(key) // crypto/rand.Read never fails on supported platforms
		k.CSRFKeys = [][]byte{key}
	}
	if k.Registry == nil {
		k.Registry = prometheus.NewRegistry()
	}
	m, err := newHTTPMetrics(k.Registry)
	if err != nil {
		return err
	}
	k.metrics = m
	e.HTTPErrorHandler = k.HandleError
	k.useMiddleware(e)
	return nil
}

// HasSession reports whether this browser has a server session (a visit with something in it).
func (k *Kernel) HasSession(c echo.Context) bool {
	if loaded, _ := c.Get(CtxSessionLoaded).(bool); !loaded {
		return false
	}
	return k.Sessions.Token(c.Request().Context()) != ""
}
