package ledger

import "context"

// NeedingReview returns the entries people must look at, oldest first:
//   - failed entries whose money went out (a refund paid out that the booking never took) or
//     whose failure was marked for staff review in its transition note ("… staff review");
//   - unfinished entries that failed minAttempts times or more and whose last error is set (a
//     refund that keeps failing, a payment that cannot be applied).
//
// Staff's "Needs attention" list (internal/attention) shows them.
func (s *Store) NeedingReview(ctx context.Context, minAttempts int) ([]Entry, error) {
	return s.query(ctx, `SELECT `+columns+` FROM ledger_entries
		WHERE (state = 'failed' AND (refund_id <> '' OR EXISTS (SELECT 1 FROM ledger_events ev
				WHERE ev.entry_id = ledger_entries.id AND ev.to_state = 'failed' AND ev.note LIKE '%staff review%')))
			OR ((state IN ('created','redirected','paid','applying','refund_requested') OR (kind = 'refund' AND state = 'refunded'))
				AND last_error <> '' AND attempts >= $1)
		ORDER BY created_at, id`, minAttempts)
}

// RefundsSentNotApplied are a booking's refunds that went out while the change they belonged
// to was not completed (failed, with the provider's refund or the box office's hand-back
// recorded): until people have settled them, the booking's money does not match the booking,
// and another change could give the same money back a second time.
func (s *Store) RefundsSentNotApplied(ctx context.Context, cinemaID string, number int64) ([]Entry, error) {
	return s.query(ctx, `SELECT `+columns+` FROM ledger_entries
		WHERE cinema_id = $1 AND booking_number = $2 AND kind = 'refund' AND state = 'failed' AND refund_id <> ''
		ORDER BY created_at, id`, cinemaID, number)
}
