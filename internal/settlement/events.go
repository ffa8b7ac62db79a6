package settlement

import (
	"context"
	"errors"
	"strings"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// ActOnPaymentEvent advances the ledger entries a verified provider event is about: a
// completed or expired checkout moves its entry on (so an edit is applied even when the
// customer never comes back from the provider's page), a refund update moves the refunds of
// that payment on, and a card reader's outcome (or its payment's) moves that payment on. An entry that is not ours (another system on the same account) is ignored;
// an error means the event should be delivered again.
func (st *Settler) ActOnPaymentEvent(ctx context.Context, ev upstream.PaymentEvent) error {
	var ids []string
	switch {
	case strings.HasPrefix(ev.Type, "checkout.session."):
		if ev.Reference != "" {
			ids = append(ids, ev.Reference)
		}
	case strings.HasPrefix(ev.Type, "charge.refund"), strings.HasPrefix(ev.Type, "refund."),
		strings.HasPrefix(ev.Type, "payment_intent."), strings.HasPrefix(ev.Type, "terminal.reader."):
		// A refund's update, or a card-present payment's: the entries of that payment move on.
		unfinished, err := st.ledger.Unfinished(ctx)
		if err != nil {
			return err
		}
		for _, e := range unfinished {
			if e.ProviderPaymentID == ev.PaymentID || e.ProviderReference == ev.PaymentID {
				ids = append(ids, e.ID)
			}
		}
	default:
		return nil // not an event the ledger needs
	}
	for _, id := range ids {
		e, err := st.Advance(ctx, id)
		switch {
		case errors.Is(err, ledger.ErrNotFound):
			// Not one of ours (another system on the same account): nothing to do.
		case err != nil:
			return err
		default:
			st.log(ctx).Info("ledger entry moved by a provider event", "entry", e.ID, "state", e.State)
		}
	}
	return nil
}
