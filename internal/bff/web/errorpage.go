package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/layouts"
)

// HandleError is the one place errors become pages. Application errors are shown as they are;
// anything else is logged with a reference (the request id) and shown as a friendly page
// quoting it. An htmx request gets a fragment retargeted to the page's error region.
func (k *Kernel) HandleError(err error, c echo.Context) {
	if c.Response().Committed {
		LoggerFrom(c.Request().Context(), k.Logger).Error("error after response started", "err", err)
		return
	}
	if i18n.FromContext(c.Request().Context()) == nil {
		// The error came before chooseLanguage ran (a middleware refused the request).
		r := c.Request()
		c.SetRequest(r.WithContext(i18n.NewContext(r.Context(), k.Langs.For(k.Langs.Match(r.Header.Get("Accept-Language"))))))
	}
	if upstream.TimedOut(err) {
		var ae *Error
		if !errors.As(err, &ae) {
			// A handler that passed the upstream's error on as it is: still the slow page.
			err = SlowUpstream(err, k.URL("home"), Loc(c).T("ui.back_to_start"))
		}
	}
	v := k.ErrorView(err, c)
	if v.Status == http.StatusTooManyRequests || v.Status == http.StatusServiceUnavailable {
		var ae *Error
		if errors.As(err, &ae) {
			ra := ae.RetryAfter
			if ra <= 0 && ae.Code == EUnavailable {
				ra = slowRetryAfter
			}
			if ra > 0 {
				c.Response().Header().Set("Retry-After", strconv.Itoa(ra))
			}
		}
	}
	if IsHTMX(c) {
		c.Response().Header().Set("HX-Retarget", "#htmx-error")
		c.Response().Header().Set("HX-Reswap", "innerHTML")
		if rerr := k.Render(c, v.Status, v.Heading, layouts.ErrorBody(v)); rerr != nil {
			LoggerFrom(c.Request().Context(), k.Logger).Error("render error fragment", "err", rerr)
		}
		return
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(v.Status)
		return
	}
	if rerr := k.Render(c, v.Status, v.Heading, layouts.Error(v)); rerr != nil {
		LoggerFrom(c.Request().Context(), k.Logger).Error("render error page", "err", rerr)
	}
}

func (k *Kernel) ErrorView(err error, c echo.Context) layouts.ErrorView {
	log := LoggerFrom(c.Request().Context(), k.Logger)
	l := Loc(c)
	home, toStart := k.URL("home"), l.T("ui.back_to_start")
	var ae *Error
	if errors.As(err, &ae) && ae.Code != EInternal {
		switch {
		case ae.Err != nil && ae.Code == EUnavailable:
			// The cinema's system, not the person: staff read here why (a refused token,
			// a reply that could not be read and its field, an outage).
			log.Warn("ticketing system could not be used", "err", ae.Err)
		case ae.Err != nil:
			log.Info("request refused", "code", ae.Code, "err", ae.Err)
		}
		v := layouts.ErrorView{Status: StatusOf(ae.Code), Heading: ae.Heading, Message: ae.Message, BackURL: ae.BackURL, BackLabel: ae.BackLabel}
		if ae.Code == EUnavailable {
			v.RetryURL = RetryURL(c) // the same page, when trying again is a GET
		}
		if v.Heading == "" && ae.HeadingID != "" {
			v.Heading = l.T(ae.HeadingID)
		}
		if v.Message == "" && ae.MessageID != "" {
			v.Message = l.T(ae.MessageID)
		}
		heading, message := codeWords(ae.Code)
		if v.Heading == "" {
			v.Heading = l.T(heading)
		}
		if v.Message == "" {
			v.Message = l.T(message)
		}
		if v.BackURL == "" {
			v.BackURL, v.BackLabel = home, toStart
		}
		return v
	}
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code < 500 {
		v := layouts.ErrorView{Status: he.Code, BackURL: home, BackLabel: toStart}
		switch he.Code {
		case http.StatusNotFound:
			v.Heading, v.Message = l.T("ui.error.page_not_found.heading"), l.T("ui.error.page_not_found.message")
		case http.StatusMethodNotAllowed:
			v.Heading, v.Message = l.T("ui.error.invalid.heading"), l.T("ui.error.method_not_allowed.message")
		case http.StatusRequestEntityTooLarge:
			v.Heading, v.Message = l.T("ui.error.too_large.heading"), l.T("ui.error.too_large.message")
		case http.StatusForbidden:
			v.Heading, v.Message = l.T("ui.error.forbidden.heading"), l.T("ui.error.forbidden.message")
		default:
			v.Heading, v.Message = l.T("ui.error.request.heading"), l.T("ui.error.request.message")
		}
		return v
	}
	ref, _ := c.Get(ctxRequestID).(string)
	log.Error("unexpected error", "err", err, "reference", ref, "method", c.Request().Method, "path", c.Request().URL.Path)
	return layouts.ErrorView{
		Status:    http.StatusInternalServerError,
		Heading:   l.T("ui.error.internal.heading"),
		Message:   l.T("ui.error.internal.message"),
		Reference: ref,
		BackURL:   home, BackLabel: toStart,
	}
}

// codeWords are the catalog ids of the general heading and message of an application error's
// code, for an *Error that brings no words of its own.
func codeWords(code Code) (heading, message string) {
	switch code {
	case EInvalid:
		return Msg("ui.error.invalid.heading"), Msg("ui.error.invalid.message")
	case ENotFound:
		return Msg("ui.error.not_found.heading"), Msg("ui.error.not_found.message")
	case EConflict:
		return Msg("ui.error.conflict.heading"), Msg("ui.error.conflict.message")
	case EForbidden:
		return Msg("ui.error.forbidden.heading"), Msg("ui.error.forbidden.message")
	case ETooMany:
		return Msg("ui.error.too_many.heading"), Msg("ui.error.too_many.message")
	case EUnavailable:
		return Msg("ui.error.unavailable.heading"), Msg("ui.error.unavailable.message")
	case EGone:
		return Msg("ui.error.gone.heading"), Msg("ui.error.gone.message")
	default:
		return Msg("ui.error.request.heading"), Msg("ui.error.request.message")
	}
}
