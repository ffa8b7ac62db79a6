package words

import (
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// SwapRestriction says, in l's language, why seats cannot be swapped. The swap flow says it
// on its page and the booking page under its swap link; SwapRestrictionID names it on an
// error page.
func SwapRestriction(l *i18n.Localizer, r upstream.SwapRestriction) string {
	return l.T(SwapRestrictionID(r))
}

// SwapRestrictionID is the catalog message of SwapRestriction.
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

// msg marks a catalog message id written later, in the language of the page that shows it.
func msg(id string) string { return id }
