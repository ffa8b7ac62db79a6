package bff

import (
	"context"
	"errors"
	"time"

	"github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Stuck orders are resolved, not forgotten: a redirect payment's order that never completes is
// checked in the background with a growing interval (checkout.WatchInterval: every 2 s at
// first, at the end every 10 minutes) for up to Config.OrderWatchFor (24 h), also across
// restarts (the records are in the database). Then it is given up: one last look, CancelOrder
// upstream (the seats are released), and the record says so (state given_up, when, why).
// What happens to money taken is said only in the operator's policy text.

// defaultOrderWatchFor is Config.OrderWatchFor's default.
const defaultOrderWatchFor = 24 * time.Hour

// DefaultFailedOrderPolicy is the English of the policy shown on a given-up order's page when
// the operator configured none (-failed-order-policy); pages show it in their language (the
// catalog's checkout.failed_policy_default). It promises nothing.
const DefaultFailedOrderPolicy = "If money was taken for this order, please contact the cinema's box office and quote your reference."

// orderWatchFor is how long an unconfirmed order is checked before it is given up.
func (s *Server) orderWatchFor() time.Duration {
	if s.cfg.OrderWatchFor > 0 {
		return s.cfg.OrderWatchFor
	}
	return defaultOrderWatchFor
}

// failedOrderPolicy is the operator's words on the money of a given-up order.
func (s *Server) failedOrderPolicy() string {
	if s.cfg.FailedOrderPolicy != "" {
		return s.cfg.FailedOrderPolicy
	}
	return DefaultFailedOrderPolicy
}

// failedOrderPolicyIn is the policy for a page in l's language: the operator's words as they
// are, or the default in that language.
func (s *Server) failedOrderPolicyIn(l *i18n.Localizer) string {
	if s.cfg.FailedOrderPolicy != "" {
		return s.cfg.FailedOrderPolicy
	}
	return l.T("checkout.failed_policy_default")
}

// watchDeadline is when the record's order is given up.
func (s *Server) watchDeadline(rec checkout.Record) time.Time {
	return rec.Created.Add(s.orderWatchFor())
}

// watchInBackground keeps checking the order's unconfirmed payment until it completes, ends or
// is given up, so a late completion is recorded even if nobody looks. One watcher runs per
// order (a second call does nothing); it follows whichever payment of the order is under way.
func (s *Server) watchInBackground(rec checkout.Record) {
	st := s.checkout()
	usid := rec.UserSessionID
	pause := func(int) time.Duration {
		cur, err := st.store.Active(s.background, usid)
		if err != nil {
			return time.Second // gone (the next check ends the watcher) or a database hiccup
		}
		now := s.now()
		d := st.watchEvery(now.Sub(cur.Created))
		if left := s.watchDeadline(cur).Sub(now); left < d {
			d = max(left, 0) // be there when the window ends
		}
		return d
	}
	// The real-time bound is only a safety net: the window is measured on the server's clock
	// from the record's start, and a give-up that could not reach the upstream is tried again.
	st.poller.Watch(s.background, usid, s.orderWatchFor()+24*time.Hour, pause, func(r checkout.Result) bool {
		return s.watchStep(s.background, usid, r)
	})
}

// watchStep handles one background check of an order; done ends the watcher.
func (s *Server) watchStep(ctx context.Context, usid string, r checkout.Result) (done bool) {
	st := s.checkout()
	cur, err := st.store.Active(ctx, usid)
	if errors.Is(err, checkout.ErrNotFound) {
		return true // completed, ended or given up meanwhile
	}
	if err != nil {
		loggerFrom(ctx, s.logger).Warn("stuck order: read record", "err", err)
		return false
	}
	if _, final := s.applyDetails(ctx, cur, r); final {
		return true
	}
	if s.now().Before(s.watchDeadline(cur)) {
		return false
	}
	return s.giveUpOrder(ctx, cur)
}

// giveUpOrder ends the wait for an order that never completed within the window: a last fresh
// look, then CancelOrder upstream, then the record. done=false when the upstream could not be
// asked (the next check tries again).
func (s *Server) giveUpOrder(ctx context.Context, rec checkout.Record) (done bool) {
	st := s.checkout()
	log := loggerFrom(ctx, s.logger)
	usid := rec.UserSessionID
	freshLook := func() bool {
		st.poller.Forget(usid)
		_, final := s.applyDetails(ctx, rec, st.poller.Get(ctx, usid))
		return final
	}
	if freshLook() {
		return true
	}
	window := s.english().Duration(s.orderWatchFor()) // for the record
	var reason string
	cancelled := false
	err := s.ticketing.CancelOrder(ctx, usid)
	switch {
	case err == nil:
		cancelled = true
		reason = "No confirmation from the ticketing system within " + window + ": the order was cancelled upstream and its seats released."
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrOrderExpired):
		cancelled = true // nothing holds the seats any more
		reason = "No confirmation from the ticketing system within " + window + ": the order was already gone upstream (expired or cancelled)."
	case errors.Is(err, upstream.ErrOrderClosed):
		// Completed meanwhile, or an upstream that will not cancel an order awaiting its payment.
		if freshLook() {
			return true
		}
		reason = "No confirmation from the ticketing system within " + window + ": the ticketing system refused to cancel the order (" +
			err.Error() + "), so its seats may still be held."
	default:
		log.Warn("stuck order: cancel failed, will try again", "ref", rec.ID, "err", err)
		return false
	}
	next, err := st.store.MarkGivenUp(ctx, rec.ID, reason, cancelled)
	if checkout.IsStateChanged(err) {
		return true // completed or ended at the last moment: the record says which
	}
	if err != nil {
		log.Error("stuck order: record give-up", "ref", rec.ID, "err", err)
		return false
	}
	st.poller.Forget(usid)
	log.Warn("stuck order given up", "ref", rec.ID, "reference", next.Reference(), "amount_cents", next.AmountCents,
		"order_cancelled", cancelled, "reason", reason)
	return true
}

// checkOrderNow is staff's "Retry" on a stuck or given-up order: read the order details now
// (not from the poller's cache) and record what they say; an unconfirmed order is watched
// again. It returns the record afterwards and what was found: a message id and its arguments,
// which the caller writes in the records' English and in the staff member's language.
func (s *Server) checkOrderNow(ctx context.Context, rec checkout.Record) (checkout.Record, string, []any) {
	st := s.checkout()
	st.poller.Forget(rec.UserSessionID)
	r := st.poller.Get(ctx, rec.UserSessionID)
	next, _ := s.applyDetails(ctx, rec, r)
	switch {
	case next.State == checkout.StateCompleted:
		return next, "checkout.check_completed", []any{"Number", next.BookingNumber}
	case next.State == checkout.StateDeclined:
		return next, "checkout.check_declined", nil
	case next.State == checkout.StateCancelled:
		return next, "checkout.check_cancelled", nil
	case rec.State == checkout.StateGivenUp && r.Err != nil:
		return next, "checkout.check_gone", []any{"Error", r.Err.Error()}
	case rec.State == checkout.StateGivenUp:
		return next, "checkout.check_still_open", nil
	case r.Err != nil:
		s.watchInBackground(rec)
		return next, "checkout.check_unreachable", []any{"Error", r.Err.Error()}
	}
	s.watchInBackground(rec)
	return next, "checkout.check_watching", []any{"Until", s.watchDeadline(rec).In(s.cinemaByID(ctx, rec.CinemaID).Location())}
}

// ResumeCheckoutWatchers keeps checking, in the background, every redirect payment whose
// outcome is not known: those awaiting it when the process stopped, and starts a crash
// interrupted (call at start-up, after the migrations, and from time to time). It returns how
// many it looked at.
func (s *Server) ResumeCheckoutWatchers(ctx context.Context) (int, error) {
	if s.sql == nil || s.ticketing == nil {
		return 0, nil
	}
	recs, err := s.checkout().store.Pending(ctx, 1000, s.now().Add(-time.Minute))
	if err != nil {
		return 0, err
	}
	for _, r := range recs {
		s.watchInBackground(r)
	}
	return len(recs), nil
}

// StartCheckoutWatchers resumes the watchers now and then every interval until ctx ends, so
// no unconfirmed payment goes unwatched (after a restart, or a watcher that stopped).
func (s *Server) StartCheckoutWatchers(ctx context.Context, every time.Duration) {
	if s.sql == nil || s.ticketing == nil {
		return
	}
	go func() {
		for {
			if n, err := s.ResumeCheckoutWatchers(ctx); err != nil {
				s.logger.Warn("resume checkout watchers", "err", err)
			} else if n > 0 {
				s.logger.Debug("checkout watchers resumed", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
}
