package bff

import (
	"context"
	"log/slog"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// Stuck orders are resolved, not forgotten: checkout.Watcher keeps checking an unconfirmed
// redirect payment for up to Config.OrderWatchFor (24 h) and then gives it up. What stays here
// is what the web layer says about it: the operator's policy on the money and the words of a
// staff member's "Retry".

// DefaultFailedOrderPolicy is the English of the policy shown on a given-up order's page when
// the operator configured none (-failed-order-policy); pages show it in their language (the
// catalog's checkout.failed_policy_default). It promises nothing.
const DefaultFailedOrderPolicy = "If money was taken for this order, please contact the cinema's box office and quote your reference."

// orderWatchFor is how long an unconfirmed order is checked before it is given up.
func (s *Server) orderWatchFor() time.Duration {
	if s.Cfg.OrderWatchFor > 0 {
		return s.Cfg.OrderWatchFor
	}
	return checkout.DefaultWatchFor
}

// failedOrderPolicyIn is the policy for a page in l's language: the operator's words as they
// are, or the default in that language.
func (s *Server) failedOrderPolicyIn(l *i18n.Localizer) string {
	if s.Cfg.FailedOrderPolicy != "" {
		return s.Cfg.FailedOrderPolicy
	}
	return l.T("checkout.failed_policy_default")
}

// newOrderWatcher builds the purchase flow's watcher over its store and poller. A completed
// order's hold ends here, not in internal/checkout, which knows nothing of holds.
func (s *Server) newOrderWatcher(st *checkout.Store, p *checkout.Poller) *checkout.Watcher {
	return &checkout.Watcher{
		Store: st, Poller: p, Ticketing: s.Ticketing, Background: s.Background, Now: s.Now,
		Logger:   func(ctx context.Context) *slog.Logger { return web.LoggerFrom(ctx, s.Logger) },
		WatchFor: s.orderWatchFor(),
		Every:    checkoutWatchEvery,
		Describe: func(d time.Duration) string { return s.English().Duration(d) }, // the records are in English
		OnCompleted: func(ctx context.Context, rec checkout.Record) {
			s.endHold(ctx, rec.UserSessionID) // booked: the order no longer holds seats
		},
	}
}

// watchDeadline is when the record's order is given up.
func (s *Server) watchDeadline(rec checkout.Record) time.Time {
	return s.checkout().watcher.Deadline(rec)
}

// watchInBackground keeps checking the order's unconfirmed payment (checkout.Watcher.Watch).
func (s *Server) watchInBackground(rec checkout.Record) { s.checkout().watcher.Watch(rec) }

// applyDetails records what the upstream said about the payment (checkout.Watcher.Apply).
func (s *Server) applyDetails(ctx context.Context, rec checkout.Record, r checkout.Result) (checkout.Record, bool) {
	return s.checkout().watcher.Apply(ctx, rec, r)
}

// checkOrderNow is staff's "Retry" on a stuck or given-up order (checkout.Watcher.CheckNow).
// It returns the record afterwards and what was found: a message id and its arguments, which
// the caller writes in the records' English and in the staff member's language.
func (s *Server) checkOrderNow(ctx context.Context, rec checkout.Record) (checkout.Record, string, []any) {
	c := s.checkout().watcher.CheckNow(ctx, rec)
	switch c.Found {
	case checkout.FoundCompleted:
		return c.Record, "checkout.check_completed", []any{"Number", c.Record.BookingNumber}
	case checkout.FoundDeclined:
		return c.Record, "checkout.check_declined", nil
	case checkout.FoundCancelled:
		return c.Record, "checkout.check_cancelled", nil
	case checkout.FoundGone:
		return c.Record, "checkout.check_gone", []any{"Error", c.Err.Error()}
	case checkout.FoundStillOpen:
		return c.Record, "checkout.check_still_open", nil
	case checkout.FoundUnreachable:
		return c.Record, "checkout.check_unreachable", []any{"Error", c.Err.Error()}
	}
	return c.Record, "checkout.check_watching", []any{"Until", c.Until.In(s.CinemaByID(ctx, rec.CinemaID).Location())}
}

// ResumeCheckoutWatchers keeps checking, in the background, every redirect payment whose
// outcome is not known (checkout.Watcher.Resume); call at start-up, after the migrations. It
// returns how many it looked at. Without a database or a ticketing client it does nothing.
func (s *Server) ResumeCheckoutWatchers(ctx context.Context) (int, error) {
	if s.sql == nil || s.Ticketing == nil {
		return 0, nil
	}
	return s.checkout().watcher.Resume(ctx)
}

// StartCheckoutWatchers resumes the watchers now and then every interval until ctx ends
// (checkout.Watcher.Start).
func (s *Server) StartCheckoutWatchers(ctx context.Context, every time.Duration) {
	if s.sql == nil || s.Ticketing == nil {
		return
	}
	s.checkout().watcher.Start(ctx, every)
}
