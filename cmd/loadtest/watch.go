package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// watchResult is what the return page visitors measured.
type watchResult struct {
	setup        time.Duration // all of it
	returning    time.Duration // from the first payment at the provider to the last return
	metrics      vegeta.Metrics
	rssStartKB   int64
	rssPeakKB    int64
	orderDetails int64 // GetOrderDetails calls while they polled
	// cpu is the CPU time the service used while they polled (user and system): per poll it
	// depends far less on what else the machine runs than the latencies do.
	cpu time.Duration
}

// watchReturnPage puts cfg.Visitors visitors on the return page of their own paid order, then
// has each poll it every cfg.PollEvery (starting at a random moment of the first interval,
// as people arrive) for cfg.Duration, and samples the service's RSS meanwhile.
func watchReturnPage(ctx context.Context, st *stack, cfg config, log *slog.Logger) (watchResult, error) {
	var r watchResult
	targets, err := returnVisitors(ctx, st, cfg, log, &r)
	if err != nil {
		return r, err
	}
	if r.returning+cfg.Duration > 55*time.Second {
		log.Warn("the first returns will be given up (after 60 s) before polling ends: shorten -duration", "returning", r.returning.Round(time.Second))
	}
	if r.rssStartKB, err = st.rssKB(); err != nil {
		return r, err
	}
	r.rssPeakKB = r.rssStartKB
	before, err := st.upstreamCalls(ctx)
	if err != nil {
		return r, err
	}
	cpuBefore, cpuErr := processCPU(st.web.cmd.Process.Pid)

	log.Info("polling", "visitors", len(targets), "every", cfg.PollEvery, "for", cfg.Duration)
	results := startPolls(ctx, targets, cfg)
	stopRSS := st.samplePeakRSS(&r.rssPeakKB)
	for res := range results {
		r.metrics.Add(res)
	}
	stopRSS()
	r.metrics.Close()
	if cpuAfter, err := processCPU(st.web.cmd.Process.Pid); err == nil && cpuErr == nil {
		r.cpu = cpuAfter - cpuBefore
		log.Info("service CPU while polling", "cpu", r.cpu.Round(time.Millisecond), "polls", r.metrics.Requests,
			"per_poll", (r.cpu / time.Duration(max(r.metrics.Requests, 1))).Round(time.Microsecond))
	}
	after, err := st.upstreamCalls(ctx)
	if err != nil {
		return r, err
	}
	r.orderDetails = after[orderDetailsOp] - before[orderDetailsOp]
	return r, nil
}

// returnVisitors brings every visitor back from the provider to the return page of their
// paid order and returns what each polls; r gets how long that took.
func returnVisitors(ctx context.Context, st *stack, cfg config, log *slog.Logger, r *watchResult) ([]target, error) {
	// Everyone first gets as far as the provider's page, then all pay and return: the service
	// gives up waiting a minute after a return, so the returns must be close together.
	log.Info("setting up return page visitors", "visitors", cfg.Visitors)
	began := time.Now()
	visitors := make([]*visitor, cfg.Visitors)
	hosted := make([]string, cfg.Visitors)
	err := forEach(ctx, cfg.Visitors, func(ctx context.Context, i int) error {
		v := newVisitor(st.site, i)
		h, err := v.toProvider(ctx, purchaseSession(i))
		if err != nil {
			return fmt.Errorf("visitor %d: %w", i, err)
		}
		visitors[i], hosted[i] = v, h
		return nil
	})
	if err != nil {
		return nil, err
	}
	log.Info("paying and returning", "visitors", cfg.Visitors, "after", time.Since(began).Round(time.Second))
	returned := time.Now()
	targets := make([]target, cfg.Visitors)
	err = forEach(ctx, cfg.Visitors, func(ctx context.Context, i int) error {
		t, err := visitors[i].returnPoll(ctx, hosted[i])
		if err != nil {
			return fmt.Errorf("visitor %d: %w", i, err)
		}
		targets[i] = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.setup, r.returning = time.Since(began), time.Since(returned)
	return targets, nil
}

// startPolls has every target polled until cfg.Duration is over; the outcomes arrive on the
// channel, closed when all polling ends.
func startPolls(ctx context.Context, targets []target, cfg config) <-chan *vegeta.Result {
	// One connection per visitor, as browsers keep theirs.
	client := noRedirectClient(30 * time.Second)
	client.Transport = &http.Transport{MaxIdleConnsPerHost: len(targets)}
	results := make(chan *vegeta.Result, 1024)
	end := time.Now().Add(cfg.Duration)
	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Go(func() { pollUntil(ctx, client, t, cfg.PollEvery, end, results) })
	}
	go func() { wg.Wait(); close(results) }()
	return results
}

// samplePeakRSS samples the service's RSS every 500 ms into *peak (the highest seen) until
// the returned stop is called; stop returns once sampling has ended.
func (st *stack) samplePeakRSS(peak *int64) (stop func()) {
	stopRSS := make(chan struct{})
	rssDone := make(chan struct{})
	go func() {
		defer close(rssDone)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopRSS:
				return
			case <-tick.C:
				if kb, err := st.rssKB(); err == nil {
					*peak = max(*peak, kb)
				}
			}
		}
	}()
	return func() {
		close(stopRSS)
		<-rssDone
	}
}

// pollUntil GETs the target every interval until end, sending each outcome to out.
func pollUntil(ctx context.Context, client *http.Client, t target, every time.Duration, end time.Time, out chan<- *vegeta.Result) {
	next := time.Now().Add(rand.N(every))
	for next.Before(end) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
		next = next.Add(every)
		res := &vegeta.Result{Method: http.MethodGet, URL: t.url, Timestamp: time.Now()}
		status, _, err := fetch(ctx, client, t) // the answer has arrived once it is read
		res.Latency = time.Since(res.Timestamp)
		res.Code = uint16(status)
		switch {
		case err != nil:
			res.Error = err.Error()
		case status != http.StatusOK:
			res.Error = fmt.Sprintf("status %d", status)
		}
		out <- res
	}
}

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ, 100 on Linux).
const clockTicks = 100

// processCPU returns the CPU time (user and system) process pid has used so far.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name (in parentheses, which may hold spaces): state is the
	// first, utime the 12th and stime the 13th.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
