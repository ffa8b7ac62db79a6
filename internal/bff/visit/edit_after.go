package visit

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/ledger"
)

// Said when a page of an edit is opened again (Back, an old tab, the provider's way back)
// after the change was saved with a payment or refund: booking.saved_change. Said when the
// edit's pages are opened after it ended in this visit (it may have been saved, cancelled or
// have run out, so nothing is claimed about what happened): booking.no_edit_any_more.

// EditSaved reports whether the edit was completed with money that moved: one of its ledger
// entries was applied to the booking. Back on the edit's pages after that, nothing may say
// that nothing was charged or changed.
func (v *Visits) EditSaved(ctx context.Context, editSessionID string) bool {
	if editSessionID == "" || v.ledger == nil {
		return false
	}
	entries, err := v.ledger.ForEdit(ctx, editSessionID)
	if err != nil {
		return false
	}
	for _, en := range entries {
		if en.State == ledger.StateApplied {
			return true
		}
	}
	return false
}
