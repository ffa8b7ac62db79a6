package web

import (
	"context"
	"log/slog"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// Keys of what the middleware puts on the echo context for the handlers of every flow.
const (
	// CSRFKey holds a func() string that makes the request's CSRF token (only where forms are
	// checked).
	CSRFKey = "csrf"
	// DeviceKey holds the request's device.Info (customer, kiosk or counter).
	DeviceKey = "device"
)

// Loc is the localizer of the request's language, put in its context by the language
// middleware. A flow writes every word through it.
func Loc(c echo.Context) *i18n.Localizer { return i18n.FromContext(c.Request().Context()) }

// CSRFToken is the token to put into forms for this request ("" where no form is checked).
func CSRFToken(c echo.Context) string {
	if f, ok := c.Get(CSRFKey).(func() string); ok {
		return f()
	}
	return ""
}

// DeviceOf returns the device info of the request: a customer's browser unless the device
// middleware found an enrolled kiosk or counter.
func DeviceOf(c echo.Context) device.Info {
	if info, ok := c.Get(DeviceKey).(device.Info); ok {
		return info
	}
	return device.Info{Mode: device.Customer}
}

// IsKiosk reports whether the request comes from a lobby kiosk.
func IsKiosk(c echo.Context) bool { return DeviceOf(c).Mode == device.Kiosk }

type loggerKey struct{}

// WithLogger gives ctx the request-scoped logger (carrying the request id).
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the request-scoped logger, or fallback outside a request.
func LoggerFrom(ctx context.Context, fallback *slog.Logger) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return fallback
}

// SafeExternalURL accepts only absolute http(s) addresses for the provider's page.
func SafeExternalURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != ""
}
