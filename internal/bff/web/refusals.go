package web

import (
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// SwapRestrictionText says, in l's language, why seats cannot be swapped. The swap flow says it
// on its page; the error translation (SwapRestrictionID) says it on an error page.
func SwapRestrictionText(l *i18n.Localizer, r upstream.SwapRestriction) string {
	return l.T(SwapRestrictionID(r))
}

// SwapRestrictionID is the catalog message of SwapRestrictionText.
func SwapRestrictionID(r upstream.SwapRestriction) string {
	switch r {
	case upstream.SwapUnpaidBooking:
		return Msg("ui.swap_refused.unpaid_booking")
	case upstream.SwapInSeatDelivery:
		return Msg("ui.swap_refused.in_seat_delivery")
	case upstream.SwapDifferentSession:
		return Msg("ui.swap_refused.different_session")
	case upstream.SwapDifferentAreaCategory:
		return Msg("ui.swap_refused.different_area_category")
	case upstream.SwapSeatUnavailable:
		return Msg("ui.swap_refused.seat_unavailable")
	case upstream.SwapSeatInBooking:
		return Msg("ui.swap_refused.seat_in_booking")
	case upstream.SwapPartialPackage:
		return Msg("ui.swap_refused.partial_package")
	case upstream.SwapDuplicateSeat:
		return Msg("ui.swap_refused.duplicate_seat")
	case upstream.SwapSessionStarted:
		return Msg("ui.session_started")
	default:
		return Msg("ui.swap_refused.other")
	}
}
