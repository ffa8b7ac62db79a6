package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cinemabff/cinemabff/internal/upstream"
)

// slowResult is one page's answer while the upstream took cfg.Slow per call, and after it
// recovered.
type slowResult struct {
	page     string
	took     time.Duration
	status   int
	slowPage bool // the answer says the cinema's system is slow and nothing was changed
	err      string
	// recoveredIn is how long after the latency was restored the page first answered 200
	// again (0: it never did within the wait).
	recoveredIn time.Duration
	// settled is the page's status once every call begun during the slow spell has ended
	// (cfg.Slow after the restore, and a little): those end as failures, and must not
	// open the circuit breaker against an upstream that answers well by then.
	settled int
}

// measureSlow slows every upstream call to cfg.Slow and views each page once (one of the
// visitors the attack used), then restores the latency and views each every second until it
// answers 200, as visitors would, and once more after the slow spell's calls have ended.
func measureSlow(ctx context.Context, st *stack, cfg config, pages []pageResult, log *slog.Logger) ([]slowResult, error) {
	log.Info("slowing the upstream", "latency", cfg.Slow)
	if err := st.setLatency(ctx, cfg.Slow); err != nil {
		return nil, err
	}
	client := noRedirectClient(cfg.Slow + 30*time.Second)
	results := make([]slowResult, len(pages))
	for i, p := range pages {
		r := slowResult{page: p.name}
		start := time.Now()
		status, body, err := fetch(ctx, client, p.sample)
		r.took, r.status = time.Since(start), status
		if err != nil {
			r.err = err.Error()
		}
		r.slowPage = strings.Contains(strings.ToLower(body), "slow")
		results[i] = r
	}
	if err := st.setLatency(ctx, cfg.Latency); err != nil {
		return nil, err
	}
	restored := time.Now()
	wait := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	// At most the spell's calls and a breaker's open timeout, and then some.
	giveUp := restored.Add(cfg.Slow + upstream.DefaultBreakerSettings.OpenTimeout + 15*time.Second)
	// Round by round, every page not yet well is viewed again, so no page's figure waits on
	// another's.
	pending := make([]int, len(pages))
	for i := range pending {
		pending[i] = i
	}
	for len(pending) > 0 {
		var still []int
		for _, i := range pending {
			if status, _, _ := fetch(ctx, client, pages[i].sample); status == http.StatusOK {
				results[i].recoveredIn = time.Since(restored)
			} else {
				still = append(still, i)
			}
		}
		pending = still
		if len(pending) == 0 || time.Now().After(giveUp) {
			break
		}
		if err := wait(time.Second); err != nil {
			return nil, err
		}
	}
	if err := wait(time.Until(restored.Add(cfg.Slow + 2*time.Second))); err != nil {
		return nil, err
	}
	for i, p := range pages {
		results[i].settled, _, _ = fetch(ctx, client, p.sample)
	}
	return results, nil
}

// setLatency replaces the sandbox's fault on every operation (POST /sandbox-admin/faults), or
// clears the faults for 0.
func (st *stack) setLatency(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return st.admin(ctx, http.MethodDelete, "/sandbox-admin/faults", nil, nil)
	}
	return st.admin(ctx, http.MethodPost, "/sandbox-admin/faults", map[string]string{"operation": "*", "latency": d.String()}, nil)
}

func printSlow(w io.Writer, cfg config, results []slowResult) {
	fmt.Fprintf(w, "\nupstream slowed to %v per call (one view per page), then back to %v:\n", cfg.Slow, cfg.Latency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "page\tanswered in\tstatus\tsays slow\t200 again after\tonce the slow calls ended\t")
	for _, r := range results {
		status := fmt.Sprint(r.status)
		if r.err != "" {
			status = r.err
		}
		again := "never"
		if r.recoveredIn > 0 {
			again = ms(r.recoveredIn)
		}
		fmt.Fprintf(tw, "%s\t%v\t%s\t%v\t%s\t%d\t\n", r.page, ms(r.took), status, r.slowPage, again, r.settled)
	}
	_ = tw.Flush()
}
