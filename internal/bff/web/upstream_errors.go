package web

import (
	"errors"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

// EditRestrictionText says, in plain words and in l's language, why a booking cannot be
// changed online.
func EditRestrictionText(l *i18n.Localizer, r upstream.EditRestriction) string {
	return l.T(EditRestrictionID(r))
}

// EditRestrictionID is the catalog message of editRestrictionText.
func EditRestrictionID(r upstream.EditRestriction) string {
	switch r {
	case upstream.EditConcessions:
		return Msg("ui.edit_refused.concessions")
	case upstream.EditNonExternalPayment:
		return Msg("ui.edit_refused.non_external_payment")
	case upstream.EditPackageTicket:
		return Msg("ui.edit_refused.package_ticket")
	case upstream.EditLoyaltyTicket:
		return Msg("ui.edit_refused.loyalty_ticket")
	case upstream.EditVoucherTicket:
		return Msg("ui.edit_refused.voucher_ticket")
	case upstream.EditThirdPartyMemberTicket:
		return Msg("ui.edit_refused.third_party_member_ticket")
	case upstream.EditSessionStarted:
		return Msg("ui.session_started")
	case upstream.EditAlreadyInEdit:
		return Msg("ui.edit_refused.already_in_edit")
	default:
		return Msg("ui.edit_refused.other")
	}
}

// FromUpstream turns an upstream error into an application error with words a person can
// act on. Unknown errors stay internal (logged, shown with a reference). backLabel is shown as
// it is: callers write it in the request's language. The heading and message are named by
// catalog id and written in the language of the page that shows the error (ErrorView).
func (k *Kernel) FromUpstream(err error, backURL, backLabel string) error {
	if err == nil {
		return nil
	}
	if upstream.TimedOut(err) {
		return SlowUpstream(err, backURL, backLabel) // slow, not refusing
	}
	e := &Error{Err: err, BackURL: backURL, BackLabel: backLabel}
	if r, ok := upstream.EditRefusal(err); ok {
		e.Code, e.HeadingID, e.MessageID = EConflict, Msg("ui.edit_refused.heading"), EditRestrictionID(r)
		return e
	}
	switch {
	case errors.Is(err, upstream.ErrUnavailable), errors.Is(err, upstream.ErrUnauthorized):
		// A refused token or a reply we cannot read is the cinema's problem, never the
		// person's: they see that the system cannot be reached; staff read why in the log.
		e.Code, e.HeadingID, e.MessageID = EUnavailable, Msg("ui.error.unavailable.heading"), Msg("ui.error.unavailable.message")
	case errors.Is(err, upstream.ErrOrderExpired):
		e.Code, e.HeadingID, e.MessageID = EGone, Msg("ui.error.gone.heading"), Msg("ui.error.order_expired.message")
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		e.Code, e.HeadingID, e.MessageID = EConflict, SeatsTakenNotice.Heading, SeatsTakenNotice.Body
	case errors.Is(err, upstream.ErrPaymentDeclined):
		e.Code, e.HeadingID, e.MessageID = EInvalid, Msg("ui.error.payment_declined.heading"), Msg("ui.error.payment_declined.message")
	case errors.Is(err, upstream.ErrNotFound):
		e.Code, e.HeadingID, e.MessageID = ENotFound, Msg("ui.error.not_found.heading"), Msg("ui.error.not_found.message")
	case errors.Is(err, upstream.ErrInvalidRequest):
		e.Code, e.HeadingID, e.MessageID = EInvalid, Msg("ui.error.invalid.heading"), Msg("ui.error.invalid_request.message")
	default:
		return err
	}
	return e
}

// SeatsTakenNotice is shown, over a freshly read seat map, when the ticketing system refuses
// seats someone else has just taken (the real system often says only "unexpected error"). Its
// words are catalog ids, written in the page's language by NoticeBox.
var SeatsTakenNotice = &components.Notice{Kind: components.NoticeError, IDs: true,
	Heading: Msg("ui.seats_taken.heading"), Body: Msg("ui.seats_taken.body")}
