package visit

import (
	"context"
	"time"

	"github.com/cinemabff/cinemabff/internal/ledger"
)

// AdvanceWithin moves a ledger entry on as a money step (web.Kernel.MoneyStep) and returns
// where it stands when the page must answer: the settler's result (done), or, while the step
// goes on in the background (not done), the entry as the ledger has it now. That entry may
// still change under the step: a page must not conclude from it (a payment still "created"
// may yet be made); the status page tells the truth, and the reconciler finishes what the
// step leaves.
func (v *Visits) AdvanceWithin(ctx context.Context, id string) (entry ledger.Entry, done bool, err error) {
	val, done, err := v.MoneyStep(ctx, "entry:"+id, func(ctx context.Context) (any, error) {
		return v.settler.Advance(ctx, id)
	})
	if done {
		entry, _ = val.(ledger.Entry)
		return entry, true, err
	}
	entry, err = v.ledger.Get(ctx, id)
	return entry, false, err
}

// AdvanceGroupWithin is AdvanceWithin for every part of a refund; the group's step is keyed
// by its lead entry.
func (v *Visits) AdvanceGroupWithin(ctx context.Context, lead ledger.Entry) error {
	_, _, err := v.MoneyStep(ctx, "group:"+lead.ID, func(ctx context.Context) (any, error) {
		return v.settler.AdvanceGroup(ctx, lead)
	})
	return err
}

// StartReconciler finishes, in the background, every payment or refund that a request could
// not finish (a crash, a failed upstream call): at once, then every interval, until ctx ends.
func (v *Visits) StartReconciler(ctx context.Context, every time.Duration) {
	if v.ledger == nil || v.payments == nil || v.kernel.Ticketing == nil {
		return
	}
	go func() {
		for {
			v.settler.Reconcile(ctx)
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
}

// Reconcile runs one reconciliation pass now (tests, admin).
func (v *Visits) Reconcile(ctx context.Context) int { return v.settler.Reconcile(ctx) }
