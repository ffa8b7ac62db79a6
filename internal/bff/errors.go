package bff

import (
	"errors"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

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
		var ae *Error
		if !errors.As(err, &ae) {
			// A handler that passed the upstream's error on as it is: still the slow page.
			err = slowUpstream(err, s.url(RouteHome), "Back to the start")
		}
	}
	v := s.errorView(err, c)
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
	home := s.url(RouteHome)
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
		v := pages.ErrorView{Status: statusOf(ae.Code), Heading: ae.Heading, Message: ae.Message, BackURL: ae.BackURL, BackLabel: ae.BackLabel}
		if ae.Code == EUnavailable {
			v.RetryURL = retryURL(c) // the same page, when trying again is a GET
		}
		if v.Heading == "" {
			v.Heading = "We could not do that"
		}
		if v.BackURL == "" {
			v.BackURL, v.BackLabel = home, "Back to the start"
		}
		return v
	}
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code < 500 {
		v := pages.ErrorView{Status: he.Code, BackURL: home, BackLabel: "Back to the start"}
		switch he.Code {
		case http.StatusNotFound:
			v.Heading, v.Message = "Page not found", "There is no page at this address. It may have moved, or the link may be incomplete."
		case http.StatusMethodNotAllowed:
			v.Heading, v.Message = "That did not work", "This page cannot be used that way. Please start again from the page before."
		case http.StatusRequestEntityTooLarge:
			v.Heading, v.Message = "Too much data", "What you sent was larger than we accept. Please shorten it and try again."
		case http.StatusForbidden:
			v.Heading, v.Message = "Not allowed", "You are not allowed to do that here."
		default:
			v.Heading, v.Message = "We could not do that", "The request could not be handled. Please go back and try again."
		}
		return v
	}
	ref, _ := c.Get(ctxRequestID).(string)
	log.Error("unexpected error", "err", err, "reference", ref, "method", c.Request().Method, "path", c.Request().URL.Path)
	return pages.ErrorView{
		Status:    http.StatusInternalServerError,
		Heading:   "Something went wrong on our side",
		Message:   "Nothing you did caused this, and nothing was charged by this step. Please try again in a moment.",
		Reference: ref,
		BackURL:   home, BackLabel: "Back to the start",
	}
}
