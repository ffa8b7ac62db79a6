package web

import (
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// msg marks a catalog message id that is written later, in the language of the request that
// shows it. The catalog tests find the ids it marks.
func msg(id string) string { return id }

// SwapRestrictionText says, in l's language, why seats cannot be swapped. The swap flow says it
// on its page; the error translation (SwapRestrictionID) says it on an error page.
func SwapRestrictionText(l *i18n.Localizer, r upstream.SwapRestriction) string {
	return l.T(SwapRestrictionID(r))
}

// SwapRestrictionID is the catalog message of SwapRestrictionText.
func SwapRestrictionID(r upstream.SwapRestriction) string {
	switch r {
	case upstream.SwapUnpaidBooking:
		return msg("ui.swap_refused.unpaid_booking")
	case upstream.SwapInSeatDelivery:
		return msg("ui.swap_refused.in_seat_delivery")
	case upstream.SwapDifferentSession:
		return msg("ui.swap_refused.different_session")
	case upstream.SwapDifferentAreaCategory:
		return msg("ui.swap_refused.different_area_category")
	case upstream.SwapSeatUnavailable:
		return msg("ui.swap_refused.seat_unavailable")
	case upstream.SwapSeatInBooking:
		return msg("ui.swap_refused.seat_in_booking")
	case upstream.SwapPartialPackage:
		return msg("ui.swap_refused.partial_package")
	case upstream.SwapDuplicateSeat:
		return msg("ui.swap_refused.duplicate_seat")
	case upstream.SwapSessionStarted:
		return msg("ui.session_started")
	default:
		return msg("ui.swap_refused.other")
	}
}
