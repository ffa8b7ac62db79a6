package visit

import (
	"errors"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

// FromUpstream turns an upstream error into an application error with words a person can
// act on. Unknown errors stay internal (logged, shown with a reference). backLabel is shown as
// it is: callers write it in the request's language. The heading and message are named by
// catalog id and written in the language of the page that shows the error (ErrorView).
func (v *Visits) FromUpstream(err error, backURL, backLabel string) error {
	return v.FromUpstreamFor(false, err, backURL, backLabel)
}

// FromUpstreamFor is FromUpstream for staff (staff true) or a customer: an edit refusal is
// said in words for the one or the other (staff are never sent to the box office).
func (v *Visits) FromUpstreamFor(staff bool, err error, backURL, backLabel string) error {
	if err == nil {
		return nil
	}
	if upstream.TimedOut(err) {
		return web.SlowUpstream(err, backURL, backLabel) // slow, not refusing
	}
	e := &web.Error{Err: err, BackURL: backURL, BackLabel: backLabel}
	if r, ok := upstream.EditRefusal(err); ok {
		e.Code, e.HeadingID, e.MessageID = web.EConflict, web.Msg("ui.edit_refused.heading"), words.EditRestrictionIDFor(r, staff)
		return e
	}
	switch {
	case errors.Is(err, upstream.ErrUnavailable), errors.Is(err, upstream.ErrUnauthorized):
		// A refused token or a reply we cannot read is the cinema's problem, never the
		// person's: they see that the system cannot be reached; staff read why in the log.
		e.Code, e.HeadingID, e.MessageID = web.EUnavailable, web.Msg("ui.error.unavailable.heading"), web.Msg("ui.error.unavailable.message")
		if upstream.MayHaveChanged(err) {
			// The request may have been made before the answer was lost: never say that
			// nothing was changed.
			e.MessageID = web.Msg("ui.error.unavailable.change_unknown")
		}
	case errors.Is(err, upstream.ErrOrderExpired):
		e.Code, e.HeadingID, e.MessageID = web.EGone, web.Msg("ui.error.gone.heading"), web.Msg("ui.error.order_expired.message")
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		e.Code, e.HeadingID, e.MessageID = web.EConflict, SeatsTakenNotice.Heading, SeatsTakenNotice.Body
	case errors.Is(err, upstream.ErrPaymentDeclined):
		e.Code, e.HeadingID, e.MessageID = web.EInvalid, web.Msg("ui.error.payment_declined.heading"), web.Msg("ui.error.payment_declined.message")
	case errors.Is(err, upstream.ErrNotFound):
		e.Code, e.HeadingID, e.MessageID = web.ENotFound, web.Msg("ui.error.not_found.heading"), web.Msg("ui.error.not_found.message")
	case errors.Is(err, upstream.ErrInvalidRequest):
		e.Code, e.HeadingID, e.MessageID = web.EInvalid, web.Msg("ui.error.invalid.heading"), web.Msg("ui.error.invalid_request.message")
	default:
		return err
	}
	return e
}

// SeatsTakenNotice is shown, over a freshly read seat map, when the ticketing system refuses
// seats someone else has just taken (the real system often says only "unexpected error"). Its
// words are catalog ids, written in the page's language by NoticeBox.
var SeatsTakenNotice = &components.Notice{Kind: components.NoticeError, IDs: true,
	Heading: web.Msg("ui.seats_taken.heading"), Body: web.Msg("ui.seats_taken.body")}
