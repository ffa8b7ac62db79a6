package visit

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/ledger"
)

// Said when a page of an edit is opened again (Back, an old tab, the provider's way back)
// after the change was saved with a payment or refund: booking.saved_change. Said when the
// edit's pages are opened after it ended in this visit (it may have been saved, cancelled or
// have run out, so nothing is claimed about what happened): booking.no_edit_any_more.

// EditSaved reports whether the edit was completed: one of its ledger entries was applied to
// the booking (money moved), or the change's message was written (EditNoticeKey), which a
// completion without money does once the ticketing system has saved it. Back on the edit's
// pages after that (a second press, another tab), nothing may say that nothing was charged or
// changed.
func (v *Visits) EditSaved(ctx context.Context, editSessionID string) bool {
	if editSessionID == "" {
		return false
	}
	if v.mail != nil {
		if _, err := v.mail.Outbox.ByKey(ctx, EditNoticeKey(editSessionID)); err == nil {
			return true
		}
	}
	if v.ledger == nil {
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
