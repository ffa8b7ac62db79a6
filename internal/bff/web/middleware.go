package web

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Context keys set by the middleware chain.
const (
	ctxNonce     = "csp_nonce"
	ctxRequestID = "request_id"
	// CtxSessionLoaded is set once the server session is in the request context.
	CtxSessionLoaded = "session_loaded"
)

func (k *Kernel) useMiddleware(e *echo.Echo) {
	e.Pre(dropTrailingSlash)
	e.Use(k.requestID) // also starts the read budget, counted from the request's arrival
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisablePrintStack: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			LoggerFrom(c.Request().Context(), k.Logger).Error("panic recovered", "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(k.observe)
	e.Use(k.securityHeaders)
	e.Use(k.loadSession)
	e.Use(k.loadDevice)
	e.Use(k.chooseLanguage) // language.go: after the device, as a kiosk has its own
	// The body limit comes before anything reads the body (CSRF reads the form).
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
		Limit: k.Cfg.BodyLimit,
		// The provider's events may be larger: the webhook reads its body within its own limit
		// (maxWebhookBytes). c.Path is the route matched, not an address the client wrote.
		Skipper: func(c echo.Context) bool { return k.isRoute(c.Path(), "payments.webhook") },
	}))
	// csrf.go: the token is checked against the visit as the request found it, before an
	// ended staff sign-in destroys the session (the sign-in form posted then must pass).
	e.Use(k.csrf())
	if k.SignInCheck != nil {
		e.Use(k.SignInCheck) // idle timeout, ended sessions, disabled accounts
	}
}

// dropTrailingSlash redirects /path/ to /path for good. The address is built from the escaped
// path (package selflink): /films/a%20b/ keeps its escapes, and /%2Fevil.example/ goes to the home
// page, never to //evil.example.
func dropTrailingSlash(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := c.Request().URL
		p := u.EscapedPath()
		if p == "/" || !strings.HasSuffix(p, "/") {
			return next(c)
		}
		ref := strings.TrimRight(p, "/")
		if u.RawQuery != "" {
			ref += "?" + u.RawQuery
		}
		return c.Redirect(http.StatusMovedPermanently, selflink.OrHome(ref))
	}
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{8,64}$`)

// requestID takes a well-formed X-Request-ID from the caller (a proxy) or makes one, echoes it,
// and puts a logger carrying it into the request context. In the same context it puts the
// read deadline of the request (budget.go), except on the infrastructure paths: a value the
// upstream client honours for reads, not a cancellation, so the session store and the
// database still finish their work after the reads ran out of time.
func (k *Kernel) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	budget := k.Cfg.ReadBudget // resolved in New
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !requestIDPattern.MatchString(id) {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		c.Set(ctxRequestID, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		l := k.Logger.With("request_id", id)
		ctx := WithLogger(c.Request().Context(), l)
		ctx = upstream.WithRequestID(ctx, id) // the ticketing client sends it on as X-Request-ID
		if !k.isInfraPath(c.Request().URL.Path) {
			ctx = upstream.WithReadDeadline(ctx, time.Now().Add(budget))
		}
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// observe records metrics and writes one access log line per request.
func (k *Kernel) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		k.metrics.inFlight.Inc()
		defer k.metrics.inFlight.Dec()
		err := next(c)
		if err != nil {
			c.Error(err) // render now, so the status below is the one the person got
		}
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		status := c.Response().Status
		d := time.Since(start)
		// Labels are bounded: the route's pattern (never the raw path) and a known method.
		method := methodLabel(c.Request().Method)
		k.metrics.requests.WithLabelValues(method, route, fmt.Sprint(status)).Inc()
		k.metrics.duration.WithLabelValues(method, route).Observe(d.Seconds())
		if !k.isRoute(route, "metrics", "livez", "readyz") {
			LoggerFrom(c.Request().Context(), k.Logger).Info("request",
				"method", c.Request().Method, "route", route, "status", status,
				"duration_ms", float64(d.Microseconds())/1000, "ip", c.RealIP())
		}
		return nil
	}
}

// securityHeaders sets a strict CSP with a per-request nonce and the other baseline headers.
func (k *Kernel) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	formAction := "'self'"
	for _, o := range k.Cfg.FormActionOrigins {
		formAction += " " + o
	}
	return func(c echo.Context) error {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		nonce := base64.RawStdEncoding.EncodeToString(b)
		c.Set(ctxNonce, nonce)
		c.SetRequest(c.Request().WithContext(templ.WithNonce(c.Request().Context(), nonce)))
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'nonce-"+nonce+"'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action "+formAction)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		if k.Cfg.Secure() {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		if !strings.HasPrefix(c.Request().URL.Path, "/static/") {
			// Every dynamic page may show a booking or a payment: never cache it anywhere.
			h.Set("Cache-Control", "no-store")
		}
		return next(c)
	}
}

// loadDevice reads the device cookie; a new device gets one (customer mode) on its first page.
func (k *Kernel) loadDevice(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if k.isInfraPath(c.Request().URL.Path) {
			return next(c)
		}
		info, ok := k.Devices.Read(c.Request())
		info, stale := k.ResolveDevice(c, info) // the mode comes from the enrolment row (device.go)
		c.Set(DeviceKey, info)
		if !ok || stale {
			if err := k.Devices.Write(c.Response(), c.Request(), info); err != nil {
				return fmt.Errorf("issue device cookie: %w", err)
			}
		}
		return next(c)
	}
}

// isInfraPath marks paths that need neither sessions, device cookies nor CSRF.
func (k *Kernel) isInfraPath(p string) bool {
	wallet := strings.TrimSuffix(k.Path("wallet.service"), "*")
	return strings.HasPrefix(p, "/static/") || k.isRoute(p, "metrics", "livez", "readyz") ||
		k.isRoute(p, "payments.webhook") || // signed by the provider, not sent by a browser
		wallet != "" && strings.HasPrefix(p, wallet) // phones' Wallet, with the pass's own token
}

// isRoute reports whether p is the path of one of the named routes.
func (k *Kernel) isRoute(p string, names ...string) bool {
	for _, n := range names {
		if q, ok := k.routes[n]; ok && q == p {
			return true
		}
	}
	return false
}

// IsHTMX reports whether the request comes from htmx (and wants a fragment).
func IsHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true" && c.Request().Header.Get("HX-Boosted") != "true"
}

// ResolveDevice fills the mode, name and default language of info from its live enrolment (the
// language is what a kiosk greets each new guest in: language.go). A cookie naming an
// enrolment that is revoked, unknown or another device's is a customer device, and stale says
// the cookie should be rewritten without it. When the row cannot be read the device is a
// customer for this request (the cookie is kept: the next request may read it).
func (k *Kernel) ResolveDevice(c echo.Context, info device.Info) (device.Info, bool) {
	info.Mode, info.Name, info.Language, info.ReaderID, info.CinemaID = device.Customer, "", "", "", ""
	info.ReaderMove = device.ReaderMove{}
	if info.Enrolment == 0 {
		return info, false
	}
	if k.Enrolments == nil {
		return info, false
	}
	ctx := c.Request().Context()
	e, ok, err := k.Enrolments.Live(ctx, info.Enrolment, info.ID)
	if err != nil {
		LoggerFrom(ctx, k.Logger).Error("device enrolment not readable: customer mode for this request", "enrolment", info.Enrolment, "err", err)
		return info, false
	}
	if !ok {
		LoggerFrom(ctx, k.Logger).Info("device enrolment not live: customer mode", "enrolment", info.Enrolment, "device", info.ID)
		info.Enrolment = 0
		return info, true
	}
	info.Mode, info.Name, info.Language, info.ReaderID, info.CinemaID = e.Mode, e.Name, e.Language, e.ReaderID, e.CinemaID
	info.ReaderMove = e.ReaderMove
	return info, false
}
