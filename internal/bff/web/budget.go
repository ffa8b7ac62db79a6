package web

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/upstream"
)

// The time budget of a page. Reads of the ticketing system get what is left of ReadBudget
// from the moment the request arrives (requestID puts the read deadline into its context),
// so that a page answers within about two seconds even when the upstream hangs: a slow page
// says so (slowUpstream) and nothing was changed. Steps
// that change state upstream or move money are never cut off by it: they run detached from
// the request with their own, longer deadline (moneyStep), and when the page cannot wait for
// them it says the change is being processed.
const (
	DefaultReadBudget       = 1500 * time.Millisecond
	DefaultMoneyStepTimeout = 45 * time.Second // above every call timeout of a step (complete-edit: 20 s)
	slowRetryAfter          = 5                // seconds, on a slow or unreachable upstream
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
// counted in s.steps so that shutdown waits for it (Wait).
func (k *Kernel) MoneyStep(ctx context.Context, key string, step func(ctx context.Context) (any, error)) (v any, done bool, err error) {
	wait := k.Cfg.ReadBudget
	if dl, ok := upstream.ReadDeadline(ctx); ok {
		wait = time.Until(dl)
	}
	result := k.moneySteps.DoChan(key, func() (any, error) {
		if k.steps.add() {
			defer k.steps.done()
		}
		mctx, cancel := k.Detached(ctx)
		defer cancel()
		return step(mctx)
	})
	t := time.NewTimer(max(wait, MinMoneyWait))
	defer t.Stop()
	select {
	case r := <-result:
		return r.Val, true, r.Err
	case <-t.C:
		LoggerFrom(ctx, k.Logger).Warn("money step goes on after the page answered", "step", key, "waited", wait)
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
func (k *Kernel) Wait(ctx context.Context) error {
	if err := k.steps.wait(ctx); err != nil {
		return fmt.Errorf("money steps still running: %w", err)
	}
	return nil
}

// SlowUpstream is the page of a ticketing system that did not answer in time. A read that
// timed out changed nothing, and the page says so; a change that timed out may have been made,
// and the page says that instead of claiming either. backLabel is shown as it is (callers write
// it in the request's language); the heading and message are written by the error page.
func SlowUpstream(err error, backURL, backLabel string) *Error {
	e := &Error{Code: EUnavailable, HeadingID: Msg("ui.error.slow.heading"), RetryAfter: slowRetryAfter,
		BackURL: backURL, BackLabel: backLabel, Err: err}
	if upstream.SafeCall(err) {
		e.MessageID = Msg("ui.error.slow.nothing_changed")
	} else {
		e.MessageID = Msg("ui.error.slow.change_unknown")
	}
	return e
}

// RetryURL is the address a person can GET to try the page again: the request's own for a
// GET, the page it came from for an htmx GET (its fragment is no page); "" for anything else.
func RetryURL(c echo.Context) string {
	r := c.Request()
	if r.Method != "GET" {
		return ""
	}
	u := r.URL
	if IsHTMX(c) {
		cur, err := url.Parse(r.Header.Get("HX-Current-URL"))
		if err != nil || (cur.Host != "" && cur.Host != r.Host) {
			return ""
		}
		u = cur
	}
	p, ok := RequestLink(u)
	if !ok {
		return "" // never an address elsewhere
	}
	return p
}

// Detached is the context of a step that changes state upstream and that the page waits for
// to the end (a seat swap, completing an order, the unpaid complete-edit): not cut off by the
// read budget, a closed tab or a server that has answered, only by its own deadline.
func (k *Kernel) Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := k.Cfg.MoneyStepTimeout
	if timeout <= 0 {
		timeout = DefaultMoneyStepTimeout
	}
	return context.WithTimeout(upstream.Detach(ctx), timeout)
}
