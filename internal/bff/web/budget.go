package web

import (
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/selflink"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// The time budget of a page. Reads of the ticketing system get what is left of ReadBudget
// from the moment the request arrives (requestID puts the read deadline into its context),
// so that a page answers within about two seconds even when the upstream hangs: a slow page
// says so (slowUpstream) and nothing was changed. Steps
// that change state upstream or move money are never cut off by it: they run detached from
// the request with their own, longer deadline (visit.Visits.MoneyStep), and when the page cannot wait for
// them it says the change is being processed.
const (
	DefaultReadBudget = 1500 * time.Millisecond
	slowRetryAfter    = 5 // seconds, on a slow or unreachable upstream
)

// SlowUpstream is the page of a ticketing system that did not answer in time. A read that
// timed out changed nothing, and the page says so; a change that timed out may have been made,
// and the page says that instead of claiming either. backLabel is shown as it is (callers write
// it in the request's language); the heading and message are written by the error page.
func SlowUpstream(err error, backURL, backLabel string) *Error {
	e := &Error{Code: EUnavailable, HeadingID: Msg("ui.error.slow.heading"), RetryAfter: slowRetryAfter,
		BackURL: backURL, BackLabel: backLabel, Err: err}
	if upstream.SafeCall(err) {
		e.MessageID = Msg("ui.error.slow.nothing_changed")
	} else {
		e.MessageID = Msg("ui.error.slow.change_unknown")
	}
	return e
}

// RetryURL is the address a person can GET to try the page again: the request's own for a
// GET, the page it came from for an htmx GET (its fragment is no page); "" for anything else.
func RetryURL(c echo.Context) string {
	r := c.Request()
	if r.Method != "GET" {
		return ""
	}
	u := r.URL
	if IsHTMX(c) {
		cur, err := url.Parse(r.Header.Get("HX-Current-URL"))
		if err != nil || (cur.Host != "" && cur.Host != r.Host) {
			return ""
		}
		u = cur
	}
	p, ok := selflink.FromRequest(u)
	if !ok {
		return "" // never an address elsewhere
	}
	return p
}
