// Package web is the kernel the site's flows are built on: the error type every handler
// returns, the one builder of links back into the site, typed values in the visit's session,
// and how clients are told apart for limits. It imports no flow and nothing else under
// internal/bff (docs/architecture.md).
package web

import (
	"fmt"
	"net/http"
)

// Code classifies an application error (after benbjohnson/wtf): it decides the HTTP status and
// whether the message may be shown to the person as it is.
type Code string

const (
	EInvalid     Code = "invalid"     // the person sent something we cannot accept; say what
	ENotFound    Code = "not_found"   // the thing asked for does not exist (or is not theirs)
	EConflict    Code = "conflict"    // the state changed under them (seat taken, edit ended)
	EForbidden   Code = "forbidden"   // not allowed here (CSRF, wrong device mode)
	ETooMany     Code = "too_many"    // rate limited
	EUnavailable Code = "unavailable" // the ticketing service or payment provider is not answering
	EGone        Code = "gone"        // expired (an order hold, an edit)
	EInternal    Code = "internal"    // a bug or an unexpected failure: never shown as it is
)

// Error is an error meant for the person using the site. Heading, Message and BackLabel are
// shown as they are, so they are written in the request's language; an empty Heading or
// Message is the code's general one. Err (optional) is the cause,
// logged but never shown.
type Error struct {
	Code       Code
	Heading    string
	Message    string
	RetryAfter int    // seconds, for ETooMany
	BackURL    string // where the person can go next
	BackLabel  string
	Err        error

	// HeadingID and MessageID are catalog messages shown when Heading or Message is empty:
	// helpers without the request at hand name the words, and the error page writes them in
	// the request's language.
	HeadingID, MessageID string
}

func (e *Error) Error() string {
	m := e.Message
	if m == "" {
		m = e.MessageID
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, m, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, m)
}

func (e *Error) Unwrap() error { return e.Err }

// StatusOf maps a code to its HTTP status, in one place.
func StatusOf(code Code) int {
	switch code {
	case EInvalid:
		return http.StatusUnprocessableEntity
	case ENotFound:
		return http.StatusNotFound
	case EConflict:
		return http.StatusConflict
	case EForbidden:
		return http.StatusForbidden
	case ETooMany:
		return http.StatusTooManyRequests
	case EUnavailable:
		return http.StatusServiceUnavailable
	case EGone:
		return http.StatusGone
	default:
		return http.StatusInternalServerError
	}
}
