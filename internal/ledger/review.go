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
