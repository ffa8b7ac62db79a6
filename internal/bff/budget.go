package bff

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// The time budget of a page. Reads of the ticketing system get what is left of ReadBudget
// from the moment the request arrives, so that a page answers within about two seconds even
// when the upstream hangs: a slow page says so (slowUpstream) and nothing was changed. Steps
// that change state upstream or move money are never cut off by it: they run detached from
// the request with their own, longer deadline (moneyStep), and when the page cannot wait for
// them it says the change is being processed.
const (
	defaultReadBudget       = 1500 * time.Millisecond
	defaultMoneyStepTimeout = 45 * time.Second // above every call timeout of a step (complete-edit: 20 s)
	slowRetryAfter          = 5                // seconds, on a slow or unreachable upstream
	// minMoneyWait is how long a page waits for a money step even when its reads used up
	// the budget: a well upstream answers in far less, so the page usually shows the result.
	minMoneyWait = 300 * time.Millisecond
)

// readBudget puts the read deadline of the request into its context. It is a value the
// upstream client honours for reads, not a cancellation: the session store and the database
// still finish their work after the reads ran out of time.
func (s *Server) readBudget(next echo.HandlerFunc) echo.HandlerFunc {
	budget := s.cfg.ReadBudget
	if budget <= 0 {
		budget = defaultReadBudget
	}
	return func(c echo.Context) error {
		if isInfraPath(c.Request().URL.Path) {
			return next(c)
		}
		r := c.Request()
		c.SetRequest(r.WithContext(upstream.WithReadDeadline(r.Context(), time.Now().Add(budget))))
		return next(c)
	}
}

// moneyStep runs a step that changes state upstream or moves money (complete-edit, a
// payment, a refund, a seat swap, completing an order) detached from the request: a closed
// tab, a server that answers the page, or the page's read budget never cut it off halfway.
// It has its own deadline (MoneyStepTimeout). The page waits for it until its read budget
// ends; done is false when it is still running then, and the step goes on in the background
// (a ledger entry it leaves unfinished is the reconciler's: settle.go).
func (s *Server) moneyStep(ctx context.Context, step func(ctx context.Context) error) (done bool, err error) {
	wait := defaultReadBudget
	if dl, ok := upstream.ReadDeadline(ctx); ok {
		wait = time.Until(dl)
	}
	mctx, cancel := s.detached(ctx)
	result := make(chan error, 1)
	go func() {
		defer cancel()
		result <- step(mctx)
	}()
	t := time.NewTimer(max(wait, minMoneyWait))
	defer t.Stop()
	select {
	case err := <-result:
		return true, err
	case <-t.C:
		loggerFrom(ctx, s.logger).Warn("money step goes on after the page answered", "waited", wait)
		return false, nil
	}
}

// slowUpstream is the page of a ticketing system that did not answer in time. A read that
// timed out changed nothing, and the page says so; a change that timed out may have been made,
// and the page says that instead of claiming either.
func slowUpstream(err error, backURL, backLabel string) *Error {
	e := &Error{Code: EUnavailable, Heading: "The cinema's system is slow right now", RetryAfter: slowRetryAfter,
		BackURL: backURL, BackLabel: backLabel, Err: err}
	if upstream.SafeCall(err) {
		e.Message = "The cinema's ticketing system did not answer in time. Nothing was changed. Please try again in a moment."
	} else {
		e.Message = "The cinema's ticketing system did not answer in time, so we cannot tell yet whether your change was made. Please look at your booking before you try again."
	}
	return e
}

// retryURL is the address a person can GET to try the page again: the request's own for a
// GET, the page it came from for an htmx GET (its fragment is no page); "" for anything else.
func retryURL(c echo.Context) string {
	r := c.Request()
	if r.Method != "GET" {
		return ""
	}
	u := r.URL
	if isHTMX(c) {
		cur, err := url.Parse(r.Header.Get("HX-Current-URL"))
		if err != nil || (cur.Host != "" && cur.Host != r.Host) {
			return ""
		}
		u = cur
	}
	p := u.RequestURI()
	if len(p) == 0 || p[0] != '/' || (len(p) > 1 && (p[1] == '/' || p[1] == '\\')) {
		return "" // never an address elsewhere
	}
	return p
}

// retryAfter is the Retry-After header value of an error page, "" for none.
func retryAfter(e *Error) string {
	if e == nil || e.RetryAfter <= 0 {
		return ""
	}
	return fmt.Sprint(e.RetryAfter)
}

// advanceWithin moves a ledger entry on as a money step (settle.go) and returns where it
// stands when the page must answer: the settler's result, or, while the step goes on in the
// background, the entry as the ledger has it now (the status page then tells the truth, and
// the reconciler finishes what the step leaves).
func (s *Server) advanceWithin(ctx context.Context, id string) (ledger.Entry, error) {
	var after ledger.Entry
	done, err := s.moneyStep(ctx, func(ctx context.Context) error {
		var err error
		after, err = s.settler().advance(ctx, id)
		return err
	})
	if done {
		return after, err
	}
	return s.ledger.Get(ctx, id)
}

// advanceGroupWithin is advanceWithin for every part of a refund.
func (s *Server) advanceGroupWithin(ctx context.Context, lead ledger.Entry) error {
	_, err := s.moneyStep(ctx, func(ctx context.Context) error {
		_, err := s.settler().advanceGroup(ctx, lead)
		return err
	})
	return err
}

// detached is the context of a step that changes state upstream and that the page waits for
// to the end (a seat swap, completing an order, the unpaid complete-edit): not cut off by the
// read budget, a closed tab or a server that has answered, only by its own deadline.
func (s *Server) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := s.cfg.MoneyStepTimeout
	if timeout <= 0 {
		timeout = defaultMoneyStepTimeout
	}
	return context.WithTimeout(upstream.Detach(ctx), timeout)
}
