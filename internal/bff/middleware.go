package bff

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Context keys set by the middleware chain.
const (
	ctxNonce     = "csp_nonce"
	ctxRequestID = "request_id"
	ctxDevice    = web.DeviceKey
	ctxCSRF      = web.CSRFKey
	// ctxSessionLoaded is set once the server session is in the request context.
	ctxSessionLoaded = "session_loaded"
)

// loggerFrom returns the request-scoped logger (carrying the request id): web.LoggerFrom.
func loggerFrom(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	return web.LoggerFrom(ctx, fallback)
}

func (s *Server) useMiddleware() {
	e := s.echo
	e.Pre(dropTrailingSlash)
	e.Use(s.requestID) // also starts the read budget, counted from the request's arrival
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisablePrintStack: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			loggerFrom(c.Request().Context(), s.logger).Error("panic recovered", "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(s.observe)
	e.Use(s.securityHeaders)
	e.Use(s.loadSession)
	e.Use(s.loadDevice)
	e.Use(s.chooseLanguage) // language.go: after the device, as a kiosk has its own
	// The body limit comes before anything reads the body (CSRF reads the form).
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
		Limit: s.cfg.BodyLimit,
		// The provider's events may be larger: the webhook reads its body within its own limit
		// (maxWebhookBytes). c.Path is the route matched, not an address the client wrote.
		Skipper: func(c echo.Context) bool { return c.Path() == paths[RoutePaymentWebhook] },
	}))
	// csrf.go: the token is checked against the visit as the request found it, before an
	// ended staff sign-in destroys the session (the sign-in form posted then must pass).
	e.Use(s.csrf())
	e.Use(s.checkStaffSignIn) // idle timeout, ended sessions, disabled accounts (staff.go)
}

// dropTrailingSlash redirects /path/ to /path for good. The address is built from the escaped
// path (selflink.go): /films/a%20b/ keeps its escapes, and /%2Fevil.example/ goes to the home
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
		return c.Redirect(http.StatusMovedPermanently, web.SelfLink(ref))
	}
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{8,64}$`)

// requestID takes a well-formed X-Request-ID from the caller (a proxy) or makes one, echoes it,
// and puts a logger carrying it into the request context. In the same context it puts the
// read deadline of the request (budget.go), except on the infrastructure paths: a value the
// upstream client honours for reads, not a cancellation, so the session store and the
// database still finish their work after the reads ran out of time.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	budget := s.cfg.ReadBudget // resolved in New
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !requestIDPattern.MatchString(id) {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		c.Set(ctxRequestID, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		l := s.logger.With("request_id", id)
		ctx := web.WithLogger(c.Request().Context(), l)
		ctx = withRequestID(ctx, id)
		if !isInfraPath(c.Request().URL.Path) {
			ctx = upstream.WithReadDeadline(ctx, time.Now().Add(budget))
		}
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// observe records metrics and writes one access log line per request.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		s.metrics.inFlight.Inc()
		defer s.metrics.inFlight.Dec()
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
		s.metrics.requests.WithLabelValues(method, route, fmt.Sprint(status)).Inc()
		s.metrics.duration.WithLabelValues(method, route).Observe(d.Seconds())
		if route != paths[RouteMetrics] && route != paths[RouteLivez] && route != paths[RouteReadyz] {
			loggerFrom(c.Request().Context(), s.logger).Info("request",
				"method", c.Request().Method, "route", route, "status", status,
				"duration_ms", float64(d.Microseconds())/1000, "ip", c.RealIP())
		}
		return nil
	}
}

// securityHeaders sets a strict CSP with a per-request nonce and the other baseline headers.
func (s *Server) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	formAction := "'self'"
	for _, o := range s.cfg.FormActionOrigins {
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
		if s.cfg.Secure() {
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
func (s *Server) loadDevice(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if isInfraPath(c.Request().URL.Path) {
			return next(c)
		}
		info, ok := s.device.Read(c.Request())
		info, stale := s.resolveDevice(c, info) // the mode comes from the enrolment row (device.go)
		c.Set(ctxDevice, info)
		if !ok || stale {
			if err := s.device.Write(c.Response(), c.Request(), info); err != nil {
				return fmt.Errorf("issue device cookie: %w", err)
			}
		}
		return next(c)
	}
}

// deviceOf returns the device info of the request: web.DeviceOf.
func deviceOf(c echo.Context) device.Info { return web.DeviceOf(c) }

// isKiosk reports whether the request comes from a lobby kiosk: web.IsKiosk.
func isKiosk(c echo.Context) bool { return web.IsKiosk(c) }

// isInfraPath marks paths that need neither sessions, device cookies nor CSRF.
func isInfraPath(p string) bool {
	return strings.HasPrefix(p, "/static/") || p == paths[RouteMetrics] || p == paths[RouteLivez] || p == paths[RouteReadyz] ||
		p == paths[RoutePaymentWebhook] // signed by the provider, not sent by a browser
}

// isHTMX reports whether the request comes from htmx (and wants a fragment).
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get("HX-Request") == "true" && c.Request().Header.Get("HX-Boosted") != "true"
}
