package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"golang.org/x/sync/errgroup"
)

// pageResult is what one page's attack measured.
type pageResult struct {
	name      string
	metrics   vegeta.Metrics
	probe     time.Duration    // median of unloaded sequential views
	rounds    int              // upstream round trips an unloaded view waits for now (probe ÷ latency)
	needs     int              // round trips it cannot do without (page.needs)
	calls     map[string]int64 // upstream calls during the attack, per operation
	callTime  time.Duration    // the mean upstream call during the attack, as the service timed it (0: not known)
	slow      float64          // the share of those calls over slowOver
	slowOver  time.Duration    // 1.25 × the latency, at the service's histogram's next bound (0: not known)
	counted   bool             // calls were counted (the sandbox is known)
	cinemas   int              // cinemas whose listings the views read (page.cinemas)
	pollOrder int              // return page: orders watched
	sample    target           // one visitor's view, for the slow-upstream check
}

// target is one visitor's GET of its page.
type target struct {
	url    string
	header http.Header
}

// setupVisitors walks n visitors to a page, several at a time.
func setupVisitors(ctx context.Context, site string, p page, n int) ([]target, error) {
	if p.maxPool > 0 {
		n = min(n, p.maxPool)
	}
	targets := make([]target, n)
	err := forEach(ctx, n, func(ctx context.Context, i int) error {
		v := newVisitor(site, i)
		t, err := p.setup(ctx, v, i)
		if err != nil {
			return fmt.Errorf("visitor %d: %w", i, err)
		}
		targets[i] = t
		return nil
	})
	return targets, err
}

// forEach calls fn for 0..n-1, 32 at a time (browsers arrive together; the service, not this
// tool, should be the limit), and returns the first error.
func forEach(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i := range n {
		g.Go(func() error { return fn(ctx, i) })
	}
	return g.Wait()
}

// measurePage sets up the page's visitors, times unloaded views, then attacks the page at the
// set rate and counts the upstream calls made meanwhile.
func measurePage(ctx context.Context, st *stack, cfg config, name string, p page, log *slog.Logger) (pageResult, error) {
	r := pageResult{name: name, needs: p.needs, counted: st.counted(), cinemas: p.cinemas}
	log.Info("setting up visitors", "page", name, "pool", cfg.Pool)
	targets, err := setupVisitors(ctx, st.site, p, cfg.Pool)
	if err != nil {
		return r, err
	}
	r.sample = targets[0]
	if p.pollsOrders {
		r.pollOrder = len(targets)
	}
	targets = compressed(targets)
	if r.probe, err = probe(ctx, targets, 11); err != nil {
		return r, err
	}
	if cfg.Latency > 0 {
		r.rounds = int(r.probe / cfg.Latency)
	}
	before, err := st.upstreamCalls(ctx)
	if err != nil {
		return r, err
	}
	timedBefore, err := st.upstreamTimed(ctx)
	if err != nil {
		return r, err
	}
	log.Info("attacking", "page", name, "rate", cfg.Rate, "duration", cfg.Duration, "visitors", len(targets))
	r.metrics = attack(targets, cfg.Rate, cfg.Duration, name)
	after, err := st.upstreamCalls(ctx)
	if err != nil {
		return r, err
	}
	timedAfter, err := st.upstreamTimed(ctx)
	if err != nil {
		return r, err
	}
	r.callTime = timedAfter.since(timedBefore)
	r.slow, r.slowOver = timedAfter.slowShare(timedBefore, cfg.Latency*5/4)
	r.calls = map[string]int64{}
	for op, n := range after {
		if d := n - before[op]; d > 0 {
			r.calls[op] = d
		}
	}
	return r, nil
}

// probe views the page n times one after another, unloaded, and returns the median time. A
// redirect is not followed: it is not the page's answer.
func probe(ctx context.Context, targets []target, n int) (time.Duration, error) {
	client := noRedirectClient(0)
	var took []time.Duration
	for i := range n {
		t := targets[i%len(targets)]
		start := time.Now()
		status, _, err := fetch(ctx, client, t)
		if err != nil {
			return 0, err
		}
		if status != http.StatusOK {
			return 0, fmt.Errorf("probe GET %s: status %d", t.url, status)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	return took[len(took)/2], nil
}

// compressed returns the targets asking for gzip, as a browser does. Asked for explicitly, the
// answer is read to its last byte as it came over the wire and not unpacked: unpacking 76 KB of
// seat map is the browser's work, not the service's, and on two shared cores this tool's CPU
// is taken from the service it measures.
func compressed(targets []target) []target {
	out := make([]target, len(targets))
	for i, t := range targets {
		h := t.header.Clone()
		h.Set("Accept-Encoding", "gzip")
		out[i] = target{url: t.url, header: h}
	}
	return out
}

// attack GETs the targets in turn at rate per second for d. Each answer is read to its end
// but not kept (MaxBody(0)): only its status and timing count.
func attack(targets []target, rate int, d time.Duration, name string) vegeta.Metrics {
	var next atomic.Uint64
	tr := func(t *vegeta.Target) error {
		tg := targets[(next.Add(1)-1)%uint64(len(targets))]
		t.Method, t.URL, t.Header = http.MethodGet, tg.url, tg.header
		return nil
	}
	a := vegeta.NewAttacker(vegeta.Redirects(vegeta.NoFollow), vegeta.Timeout(30*time.Second), vegeta.KeepAlive(true),
		vegeta.MaxBody(0))
	var m vegeta.Metrics
	for res := range a.Attack(tr, vegeta.Rate{Freq: rate, Per: time.Second}, d, name) {
		if res.Code != http.StatusOK && res.Error == "" {
			res.Error = fmt.Sprintf("status %d", res.Code)
		}
		m.Add(res)
	}
	m.Close()
	return m
}
