package visit

import (
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Server-session keys of the swap flow (internal/bff/swap), here so that ending a visit at the
// counter (the next customer) clears them too.
const (
	SessSwapPending = "swap.pending" // JSON of the swap flow's visit: checked moves awaiting the go-ahead
	SessSwapDone    = "swap.done"    // JSON of the swap flow's visit: the last swap made, for its result page
)

// SwapUnavailableReason says, in l's language, why the booking's seats cannot be swapped
// online, from what the booking record shows (unpaid, in-seat delivery, being edited, no
// allocated seats); "" when nothing visible stands in the way. The upstream has the last word.
// The booking page shows this instead of the "Change seats" link.
func SwapUnavailableReason(l *i18n.Localizer, b cinema.Booking) string {
	for _, r := range b.SwapRestrictions() {
		return words.SwapRestriction(l, upstream.SwapRestriction(r))
	}
	if b.BeingEdited {
		return l.T("swap.reason.being_edited")
	}
	seated := false
	for _, t := range b.Tickets {
		if t.Placed() {
			return ""
		}
		seated = seated || t.Seat != nil
	}
	if seated {
		// The booking names its seats by row and number; they could not be found on the
		// showing's seat map (not read, or labelled differently).
		return l.T("swap.reason.seats_not_found")
	}
	return l.T("swap.reason.no_numbered_seats")
}
