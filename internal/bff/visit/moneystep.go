package visit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

const (
	// DefaultMoneyStepTimeout is above every call timeout of a step (complete-edit: 20 s).
	DefaultMoneyStepTimeout = 45 * time.Second
	// MinMoneyWait is how long a page waits for a money step even when its reads used up
	// the budget: a well upstream answers in far less, so the page usually shows the result.
	MinMoneyWait = 300 * time.Millisecond
)

// MoneyStep runs a step that changes state upstream or moves money (complete-edit, a
// payment, a refund, a seat swap, completing an order) detached from the request: a closed
// tab, a server that answers the page, or the page's read budget never cut it off halfway.
// It has its own deadline (MoneyStepTimeout). key names what the step moves on (the ledger
// entry): a call while a step of the same key is running joins it rather than start another
// (the status page polls every 2 s while a slow step goes on). The page waits for the step
// until its read budget ends; done is false when it is still running then, and the step goes
// on in the background (a ledger entry it leaves unfinished is the reconciler's: settle.go),
// counted in v.steps so that shutdown waits for it (Wait).
func (v *Visits) MoneyStep(ctx context.Context, key string, step func(ctx context.Context) (any, error)) (val any, done bool, err error) {
	wait := v.kernel.Cfg.ReadBudget
	if dl, ok := upstream.ReadDeadline(ctx); ok {
		wait = time.Until(dl)
	}
	result := v.moneySteps.DoChan(key, func() (any, error) {
		if v.steps.add() {
			defer v.steps.done()
		}
		mctx, cancel := v.Detached(ctx)
		defer cancel()
		return step(mctx)
	})
	t := time.NewTimer(max(wait, MinMoneyWait))
	defer t.Stop()
	select {
	case r := <-result:
		return r.Val, true, r.Err
	case <-t.C:
		web.LoggerFrom(ctx, v.kernel.Logger).Warn("money step goes on after the page answered", "step", key, "waited", wait)
		return nil, false, nil
	}
}

// stepTracker counts the money steps running in the background. Once wait has begun no step
// is counted any more: shutdown waits for the HTTP server first, so none starts then.
type stepTracker struct {
	mu      sync.Mutex
	waiting bool
	wg      sync.WaitGroup
}

func (t *stepTracker) add() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting {
		return false
	}
	t.wg.Add(1)
	return true
}

func (t *stepTracker) done() { t.wg.Done() }

func (t *stepTracker) wait(ctx context.Context) error {
	t.mu.Lock()
	t.waiting = true
	t.mu.Unlock()
	finished := make(chan struct{})
	go func() {
		t.wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait waits until the money steps still running in the background end, or ctx does. Call it
// after the HTTP server has shut down (no request starts another); a step it does not wait
// for leaves its ledger entry to the reconciler of the next start.
func (v *Visits) Wait(ctx context.Context) error {
	if err := v.steps.wait(ctx); err != nil {
		return fmt.Errorf("money steps still running: %w", err)
	}
	return nil
}

// Detached is the context of a step that changes state upstream and that the page waits for
// to the end (a seat swap, completing an order, the unpaid complete-edit): not cut off by the
// read budget, a closed tab or a server that has answered, only by its own deadline.
func (v *Visits) Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := v.kernel.Cfg.MoneyStepTimeout
	if timeout <= 0 {
		timeout = DefaultMoneyStepTimeout
	}
	return context.WithTimeout(upstream.Detach(ctx), timeout)
}
