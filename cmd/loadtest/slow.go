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
)

// slowResult is one page's answer while the upstream took cfg.Slow per call, and after it
// recovered.
type slowResult struct {
	page      string
	took      time.Duration
	status    int
	slowPage  bool // the answer says the cinema's system is slow and nothing was changed
	recovered int  // status once the upstream was fast again
	err       string
}

// measureSlow slows every upstream call to cfg.Slow and views each page once (one of the
// visitors the attack used), then restores the latency and views each again.
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
	// Calls still under way end (a breaker may need the time to close).
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(cfg.Slow):
	}
	for i, p := range pages {
		results[i].recovered, _, _ = fetch(ctx, client, p.sample)
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
	fmt.Fprintln(tw, "page\tanswered in\tstatus\tsays slow\tafter recovery\t")
	for _, r := range results {
		status := fmt.Sprint(r.status)
		if r.err != "" {
			status = r.err
		}
		fmt.Fprintf(tw, "%s\t%v\t%s\t%v\t%d\t\n", r.page, ms(r.took), status, r.slowPage, r.recovered)
	}
	_ = tw.Flush()
}
