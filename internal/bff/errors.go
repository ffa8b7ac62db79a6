package bff

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages"
)

// handleError is the one place errors become pages. Application errors are shown as they are;
// anything else is logged with a reference (the request id) and shown as a friendly page
// quoting it. An htmx request gets a fragment retargeted to the page's error region.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		loggerFrom(c.Request().Context(), s.logger).Error("error after response started", "err", err)
		return
	}
	if i18n.FromContext(c.Request().Context()) == nil {
		// The error came before chooseLanguage ran (a middleware refused the request).
		r := c.Request()
		c.SetRequest(r.WithContext(i18n.NewContext(r.Context(), s.langs.For(s.langs.Match(r.Header.Get("Accept-Language"))))))
	}
	if upstream.TimedOut(err) {
		var ae *web.Error
		if !errors.As(err, &ae) {
			// A handler that passed the upstream's error on as it is: still the slow page.
			err = slowUpstream(err, s.url(RouteHome), loc(c).T("ui.back_to_start"))
		}
	}
	v := s.errorView(err, c)
	if v.Status == http.StatusTooManyRequests || v.Status == http.StatusServiceUnavailable {
		var ae *web.Error
		if errors.As(err, &ae) {
			ra := ae.RetryAfter
			if ra <= 0 && ae.Code == web.EUnavailable {
				ra = slowRetryAfter
			}
			if ra > 0 {
				c.Response().Header().Set("Retry-After", strconv.Itoa(ra))
			}
		}
	}
	if isHTMX(c) {
		c.Response().Header().Set("HX-Retarget", "#htmx-error")
		c.Response().Header().Set("HX-Reswap", "innerHTML")
		if rerr := s.render(c, v.Status, v.Heading, pages.ErrorBody(v)); rerr != nil {
			loggerFrom(c.Request().Context(), s.logger).Error("render error fragment", "err", rerr)
		}
		return
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(v.Status)
		return
	}
	if rerr := s.render(c, v.Status, v.Heading, pages.Error(v)); rerr != nil {
		loggerFrom(c.Request().Context(), s.logger).Error("render error page", "err", rerr)
	}
}

func (s *Server) errorView(err error, c echo.Context) pages.ErrorView {
	log := loggerFrom(c.Request().Context(), s.logger)
	l := loc(c)
	home, toStart := s.url(RouteHome), l.T("ui.back_to_start")
	var ae *web.Error
	if errors.As(err, &ae) && ae.Code != web.EInternal {
		switch {
		case ae.Err != nil && ae.Code == web.EUnavailable:
			// The cinema's system, not the person: staff read here why (a refused token,
			// a reply that could not be read and its field, an outage).
			log.Warn("ticketing system could not be used", "err", ae.Err)
		case ae.Err != nil:
			log.Info("request refused", "code", ae.Code, "err", ae.Err)
		}
		v := pages.ErrorView{Status: web.StatusOf(ae.Code), Heading: ae.Heading, Message: ae.Message, BackURL: ae.BackURL, BackLabel: ae.BackLabel}
		if ae.Code == web.EUnavailable {
			v.RetryURL = retryURL(c) // the same page, when trying again is a GET
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
		v := pages.ErrorView{Status: he.Code, BackURL: home, BackLabel: toStart}
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
	return pages.ErrorView{
		Status:    http.StatusInternalServerError,
		Heading:   l.T("ui.error.internal.heading"),
		Message:   l.T("ui.error.internal.message"),
		Reference: ref,
		BackURL:   home, BackLabel: toStart,
	}
}

// codeWords are the catalog ids of the general heading and message of an application error's
// code, for an *web.Error that brings no words of its own.
func codeWords(code web.Code) (heading, message string) {
	switch code {
	case web.EInvalid:
		return msg("ui.error.invalid.heading"), msg("ui.error.invalid.message")
	case web.ENotFound:
		return msg("ui.error.not_found.heading"), msg("ui.error.not_found.message")
	case web.EConflict:
		return msg("ui.error.conflict.heading"), msg("ui.error.conflict.message")
	case web.EForbidden:
		return msg("ui.error.forbidden.heading"), msg("ui.error.forbidden.message")
	case web.ETooMany:
		return msg("ui.error.too_many.heading"), msg("ui.error.too_many.message")
	case web.EUnavailable:
		return msg("ui.error.unavailable.heading"), msg("ui.error.unavailable.message")
	case web.EGone:
		return msg("ui.error.gone.heading"), msg("ui.error.gone.message")
	default:
		return msg("ui.error.request.heading"), msg("ui.error.request.message")
	}
}
