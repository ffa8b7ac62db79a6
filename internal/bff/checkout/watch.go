package checkout

import (
	"context"
	"log/slog"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/purchases"
)

// Stuck orders are resolved, not forgotten: purchases.Watcher keeps checking an unconfirmed
// redirect payment for up to Config.OrderWatchFor (24 h) and then gives it up. What stays here
// is what the web layer says about it: the operator's policy on the money and the words of a
// staff member's "Retry".

// DefaultFailedOrderPolicy is the English of the policy shown on a given-up order's page when
// the operator configured none (-failed-order-policy); pages show it in their language (the
// catalog's checkout.failed_policy_default). It promises nothing.
const DefaultFailedOrderPolicy = "If money was taken for this order, please contact the cinema's box office and quote your reference."

// failedOrderPolicyIn is the policy for a page in l's language: the operator's words as they
// are, or the default in that language.
func (h *Handler) failedOrderPolicyIn(l *i18n.Localizer) string {
	if h.Settings.FailedOrderPolicy != "" {
		return h.Settings.FailedOrderPolicy
	}
	return l.T("checkout.failed_policy_default")
}

// newOrderWatcher builds the purchase flow's watcher over its store and poller. A completed
// order's hold ends here, not in internal/purchases, which knows nothing of holds.
func (h *Handler) newOrderWatcher(st *purchases.Store, p *purchases.Poller) *purchases.Watcher {
	return &purchases.Watcher{
		Store: st, Poller: p, Ticketing: h.Ticketing, Background: h.Background, Now: h.Now,
		Logger:   func(ctx context.Context) *slog.Logger { return web.LoggerFrom(ctx, h.Logger) },
		WatchFor: h.Settings.WatchOrdersFor(),
		Every:    WatchEvery,
		Describe: func(d time.Duration) string { return h.Site.English().Duration(d) }, // the records are in English
		OnCompleted: func(ctx context.Context, rec purchases.Record) {
			h.Visits.EndHold(ctx, rec.UserSessionID) // booked: the order no longer holds seats
		},
	}
}

// watchDeadline is when the record's order is given up.
func (h *Handler) watchDeadline(rec purchases.Record) time.Time {
	return h.checkout().watcher.Deadline(rec)
}

// watchInBackground keeps checking the order's unconfirmed payment (purchases.Watcher.Watch).
func (h *Handler) watchInBackground(rec purchases.Record) { h.checkout().watcher.Watch(rec) }

// applyDetails records what the upstream said about the payment (purchases.Watcher.Apply).
func (h *Handler) applyDetails(ctx context.Context, rec purchases.Record, r purchases.Result) (purchases.Record, bool) {
	return h.checkout().watcher.Apply(ctx, rec, r)
}
