package bff

import (
	"errors"

	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

// sessionStartedText is the upstream's refusal of an edit or swap of a showing that has started.
const sessionStartedText = "This showing has already started, so the booking can no longer be changed."

// editRestrictionText says, in plain words, why a booking cannot be changed online.
func editRestrictionText(r upstream.EditRestriction) string {
	switch r {
	case upstream.EditConcessions:
		return "This booking includes food or drinks, and bookings with food or drinks cannot be changed online. Please ask at the box office."
	case upstream.EditNonExternalPayment:
		return "A payment for this booking was made with a gift card, loyalty points or at the cinema, which cannot be changed online. Please ask at the box office."
	case upstream.EditPackageTicket:
		return "This booking includes a package ticket (several tickets sold together), which cannot be changed online."
	case upstream.EditLoyaltyTicket:
		return "This booking includes a loyalty reward ticket, which cannot be changed online."
	case upstream.EditVoucherTicket:
		return "This booking includes a ticket paid with a voucher, which cannot be changed online."
	case upstream.EditThirdPartyMemberTicket:
		return "This booking includes a partner membership ticket, which cannot be changed online."
	case upstream.EditSessionStarted:
		return sessionStartedText
	case upstream.EditAlreadyInEdit:
		return "This booking is already being changed, perhaps in another tab or at the box office. Finish or cancel that change first, or try again in ten minutes."
	default:
		return "This booking cannot be changed online. Please ask at the box office."
	}
}

// swapRestrictionText says why seats cannot be swapped.
func swapRestrictionText(r upstream.SwapRestriction) string {
	switch r {
	case upstream.SwapUnpaidBooking:
		return "Seats can be changed only on a paid booking. This booking is a reservation that has not been paid yet."
	case upstream.SwapInSeatDelivery:
		return "This booking has food and drinks delivered to the seat, so its seats cannot be changed online."
	case upstream.SwapDifferentSession:
		return "New seats must be in the same showing."
	case upstream.SwapDifferentAreaCategory:
		return "New seats must be in the same seating area (for example standard or premium) as the tickets you move."
	case upstream.SwapSeatUnavailable:
		return "One of the seats you chose has just been taken by someone else. The map below shows what is free now."
	case upstream.SwapSeatInBooking:
		return "One of the seats you chose is already in your booking."
	case upstream.SwapPartialPackage:
		return "Tickets of a package are sold together and must move together."
	case upstream.SwapDuplicateSeat:
		return "You chose the same seat twice."
	case upstream.SwapSessionStarted:
		return sessionStartedText
	default:
		return "These seats cannot be swapped. Please choose again."
	}
}

// fromUpstream turns an upstream error into an application error with words a person can
// act on. Unknown errors stay internal (logged, shown with a reference).
func (s *Server) fromUpstream(err error, backURL, backLabel string) error {
	if err == nil {
		return nil
	}
	if upstream.TimedOut(err) {
		return slowUpstream(err, backURL, backLabel) // slow, not refusing
	}
	e := &Error{Err: err, BackURL: backURL, BackLabel: backLabel}
	if r, ok := upstream.EditRefusal(err); ok {
		e.Code, e.Heading, e.Message = EConflict, "This booking cannot be changed online", editRestrictionText(r)
		return e
	}
	if r, ok := upstream.SwapRefusal(err); ok {
		e.Code, e.Heading, e.Message = EConflict, "These seats cannot be swapped", swapRestrictionText(r)
		return e
	}
	switch {
	case errors.Is(err, upstream.ErrUnavailable), errors.Is(err, upstream.ErrUnauthorized):
		// A refused token or a reply we cannot read is the cinema's problem, never the
		// person's: they see that the system cannot be reached; staff read why in the log.
		e.Code, e.Heading, e.Message = EUnavailable, "The cinema's system cannot be reached right now", "We could not reach the cinema's ticketing system just now. Nothing was changed. Please try again in a few minutes."
	case errors.Is(err, upstream.ErrOrderExpired):
		e.Code, e.Heading, e.Message = EGone, "Time ran out", "The time to finish this step has run out, and the seats held for you were released. Nothing was charged."
	case errors.Is(err, upstream.ErrSeatsUnavailable):
		e.Code, e.Heading, e.Message = EConflict, seatsTakenNotice.Heading, seatsTakenNotice.Body
	case errors.Is(err, upstream.ErrPaymentDeclined):
		e.Code, e.Heading, e.Message = EInvalid, "Payment not accepted", "The payment was not accepted. Nothing was charged. Please check the details or use another card."
	case errors.Is(err, upstream.ErrNotFound):
		e.Code, e.Heading, e.Message = ENotFound, "Not found", "We could not find that any more. It may have ended or expired."
	case errors.Is(err, upstream.ErrInvalidRequest):
		e.Code, e.Heading, e.Message = EInvalid, "That did not work", "The ticketing system did not accept that request. Please check your choice and try again."
	default:
		return err
	}
	return e
}

// seatsTakenNotice is shown, over a freshly read seat map, when the ticketing system refuses
// seats someone else has just taken (the real system often says only "unexpected error").
var seatsTakenNotice = &components.Notice{Kind: components.NoticeError, Heading: "Those seats were just taken",
	Body: "Please pick others. The map shows what is free now."}
