package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// orderDetailsOp is the upstream operation the payment poller calls.
const orderDetailsOp = "GetOrderDetails"

// printPages writes one row per page and the poller's figures.
func printPages(w io.Writer, cfg config, results []pageResult) {
	fmt.Fprintf(w, "\nrate %d/s per page for %v, upstream latency %v per call\n", cfg.Rate, cfg.Duration, cfg.Latency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "page\tviews\terrors\tp50\tp99\tunloaded (rounds)\tupstream needs\tp50/up\tp99/up\tcalls/view\t")
	for _, r := range results {
		m := r.metrics
		need := time.Duration(r.needs) * cfg.Latency
		calls := "n/a"
		if r.counted {
			calls = fmt.Sprintf("%.2f", perView(r.calls, m.Requests))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%v\t%v (%d)\t%d × %v = %v\t%s\t%s\t%s\t\n", r.name, m.Requests, errorCount(m.StatusCodes),
			ms(m.Latencies.P50), ms(m.Latencies.P99), ms(r.probe), r.rounds, r.needs, cfg.Latency, need,
			ratio(m.Latencies.P50, need), ratio(m.Latencies.P99, need), calls)
	}
	_ = tw.Flush()
	if len(results) > 0 && !results[0].counted {
		fmt.Fprintf(w, "\nupstream calls: not available: %s was measured without its sandbox (give -sandbox-url)\n", cfg.Target)
		if cfg.Latency > 0 {
			fmt.Fprintf(w, "the upstream latency of %v is not set there either: the ratios assume the site's upstream has it\n", cfg.Latency)
		}
	} else {
		fmt.Fprintln(w, "\nupstream calls per view, by operation (calls in the attack):")
		for _, r := range results {
			fmt.Fprintf(w, "  %-12s %s\n", r.name, byOperation(r.calls, r.metrics.Requests))
		}
		for _, r := range results {
			if r.cinemas > 0 {
				fmt.Fprintln(w, listingLine(r, cfg.Duration))
			}
		}
	}
	for _, r := range results {
		if r.pollOrder == 0 {
			continue
		}
		intervals := cfg.Duration.Seconds() / cfg.PollEvery.Seconds()
		fmt.Fprintf(w, "\npoller (%s: %d orders, %d views over %v): %d %s calls = %.2f per order per %v poll interval\n",
			r.name, r.pollOrder, r.metrics.Requests, cfg.Duration, r.calls[orderDetailsOp], orderDetailsOp,
			float64(r.calls[orderDetailsOp])/float64(r.pollOrder)/intervals, cfg.PollEvery)
	}
	printTimed(w, results)
	fmt.Fprintln(w, "\nupstream needs: the page's chain of dependent upstream calls × latency (independent reads count once; cmd/loadtest/pages.go)")
	fmt.Fprintln(w, "unloaded: median of 11 views one at a time before the attack; rounds: that ÷ latency, rounded down (what the code waits for now)")
}

// listingLine gives a listing page's reads of the cinemas' listings per cinema per 30 s (at
// most 2 with the shared listing: sessions and films once per -listing-ttl of 30 s).
func listingLine(r pageResult, d time.Duration) string {
	var n int64
	var parts []string
	for _, op := range listingOps {
		n += r.calls[op]
		parts = append(parts, fmt.Sprintf("%d %s", r.calls[op], op))
	}
	per := float64(n) / float64(r.cinemas) / (d.Seconds() / 30)
	return fmt.Sprintf("listing (%s): %s over %v for %d cinema(s) = %.2f calls per cinema per 30 s (%d views)",
		r.name, strings.Join(parts, " + "), d, r.cinemas, per, r.metrics.Requests)
}

// wholeRunListing gives the listing reads of the whole run (setting up visitors, the unloaded
// views and the attacks of every page) per cinema per 30 s: an attack shorter than the
// listing's 30 s may see no read at all. "" when no listing page was attacked.
func wholeRunListing(results []pageResult, start, end map[string]int64, took time.Duration) string {
	cinemas := 0
	for _, r := range results {
		cinemas = max(cinemas, r.cinemas) // the listing pages all view cinema 0001
	}
	if cinemas == 0 {
		return ""
	}
	var n int64
	var parts []string
	for _, op := range listingOps {
		d := end[op] - start[op]
		n += d
		parts = append(parts, fmt.Sprintf("%d %s", d, op))
	}
	windows := int64(math.Ceil(took.Seconds() / 30))
	allowed := 2 * windows * int64(cinemas)
	verdict := "within"
	if n > allowed {
		verdict = "OVER"
	}
	return fmt.Sprintf("listing, whole run: %s over %v for %d cinema(s): %s at most 2 per cinema per 30 s (%d × 2 × %d = %d)",
		strings.Join(parts, " + "), took.Round(100*time.Millisecond), cinemas, verdict, cinemas, windows, allowed)
}

// printWatch writes the figures of the return page visitors.
func printWatch(w io.Writer, cfg config, r watchResult) {
	intervals := cfg.Duration.Seconds() / cfg.PollEvery.Seconds()
	fmt.Fprintf(w, "\nreturn page: %d visitors, each polling every %v for %v (set up in %v, returns within %v)\n", cfg.Visitors, cfg.PollEvery, cfg.Duration,
		r.setup.Round(time.Second), r.returning.Round(time.Second))
	fmt.Fprintf(w, "  polls %d, errors %d, p50 %v, p99 %v, max %v\n", r.metrics.Requests, errorCount(r.metrics.StatusCodes),
		ms(r.metrics.Latencies.P50), ms(r.metrics.Latencies.P99), ms(r.metrics.Latencies.Max))
	if cfg.Target != "" {
		fmt.Fprintln(w, "  service RSS: not measured (-target: the site is not this tool's process)")
	} else {
		fmt.Fprintf(w, "  service RSS: %.1f MB at the start of polling, %.1f MB peak\n", float64(r.rssStartKB)/1024, float64(r.rssPeakKB)/1024)
	}
	if cfg.Target != "" && cfg.SandboxURL == "" {
		fmt.Fprintln(w, "  poller: upstream calls not available (give -sandbox-url)")
	} else {
		fmt.Fprintf(w, "  poller: %d %s calls = %.2f per order per %v poll interval\n", r.orderDetails, orderDetailsOp,
			float64(r.orderDetails)/float64(cfg.Visitors)/intervals, cfg.PollEvery)
	}
}

// failures is an error naming the pages that answered anything but 200.
func failures(results []pageResult, watch *watchResult) error {
	var bad []string
	for _, r := range results {
		if n := errorCount(r.metrics.StatusCodes); n > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d of %d failed (%s)", r.name, n, r.metrics.Requests, strings.Join(first(r.metrics.Errors, 3), "; ")))
		}
	}
	if watch != nil {
		if n := errorCount(watch.metrics.StatusCodes); n > 0 {
			bad = append(bad, fmt.Sprintf("return page visitors: %d of %d polls failed (%s)", n, watch.metrics.Requests, strings.Join(first(watch.metrics.Errors, 3), "; ")))
		}
	}
	if len(bad) > 0 {
		return errors.New("pages failed: " + strings.Join(bad, "; "))
	}
	return nil
}

func errorCount(codes map[string]int) int {
	n := 0
	for code, c := range codes {
		if code != "200" {
			n += c
		}
	}
	return n
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

func ms(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }

func ratio(d, need time.Duration) string {
	if need <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(d)/float64(need))
}

func perView(calls map[string]int64, views uint64) float64 {
	if views == 0 {
		return 0
	}
	var n int64
	for _, c := range calls {
		n += c
	}
	return float64(n) / float64(views)
}

func byOperation(calls map[string]int64, views uint64) string {
	if views == 0 || len(calls) == 0 {
		return "none"
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s %.2f", op, float64(calls[op])/float64(views)))
	}
	return strings.Join(parts, ", ")
}

// printTimed writes the pages' times against the upstream as the service timed it: its mean
// upstream call during each attack × the calls the page needs, for the pages whose views
// wait for the upstream (at least one call in two views). What is left of the p50 is what
// the page adds of its own. Nothing when no attack was timed (-target).
func printTimed(w io.Writer, results []pageResult) {
	if !slices.ContainsFunc(results, func(r pageResult) bool { return r.callTime > 0 }) {
		return
	}
	fmt.Fprintln(w, "\nagainst the upstream as the service timed it (its mean upstream call in the attack × the calls the page needs;")
	fmt.Fprintln(w, "slow calls: the share of its calls over 1.25× the latency, at its histogram's next bound; over 1 %, no page")
	fmt.Fprintln(w, "that waits for a call can have its p99 within 1.25×):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "page\tmean call\tupstream took\tp50/took\tp99/took\tp50 − took\tslow calls\t")
	for _, r := range results {
		if r.callTime <= 0 || r.needs == 0 || (r.counted && perView(r.calls, r.metrics.Requests) < 0.5) {
			continue // no upstream call, or most views answered from a cache: nothing waited
		}
		took := time.Duration(r.needs) * r.callTime
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\t%s\t%v\t%s\t\n", r.name, ms(r.callTime), ms(took),
			ratio(r.metrics.Latencies.P50, took), ratio(r.metrics.Latencies.P99, took), ms(r.metrics.Latencies.P50-took), slowCalls(r))
	}
	_ = tw.Flush()
}

// slowCalls is the share of the attack's upstream calls over 1.25× the latency ("?" when the
// histogram has no bound at or above it).
func slowCalls(r pageResult) string {
	if r.slowOver <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f %% > %v", 100*r.slow, ms(r.slowOver))
}
