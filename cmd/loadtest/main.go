// Command loadtest measures the site under load against a slow upstream. It builds
// cmd/web once, starts `web sandbox -fault op=*,latency=L` and the service pointed at it as subprocesses,
// walks visitors to their pages, then drives each page at a set rate with vegeta and prints,
// per page, p50 and p99 against the upstream time the page needs, upstream calls per page view,
// and the payment poller's order-details calls per order per poll interval. With -visitors N
// it also holds N visitors on the return page, each polling like the page does, and reports
// p99 and the service's RSS. Run it from the repository root:
//
//	go run ./cmd/loadtest                      # 200/s for 20 s per page, 20 ms upstream
//	go run ./cmd/loadtest -visitors 2000       # and 2,000 visitors polling the return page
//	go run ./cmd/loadtest -slow 10s            # and each page once with a 10 s upstream
//	go run ./cmd/loadtest -smoke               # 2 s at 10/s; fails only if a page errors
//	go run ./cmd/loadtest -pages whats-on,film # the listing pages (What's on, a film's session)
//	go run ./cmd/loadtest -target http://lb:8080 -sandbox-url http://sandbox:9090
//	                                           # a running site (replica, load balancer); upstream
//	                                           # counts only with the sandbox's URL, the upstream
//	                                           # as the service timed it with -metrics-token
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	Rate        int           // requests per second per page
	Duration    time.Duration // per page
	Latency     time.Duration // injected into every upstream call
	Pool        int           // visitors per page the attack rotates through
	Visitors    int           // return page visitors of the concurrency run (0: skip it)
	Slow        time.Duration // upstream latency of the slow-upstream check (0: skip it)
	PollEvery   time.Duration // the return page's htmx poll interval
	Pages       []string      // which pages to attack
	Package     string        // the service's main package
	Smoke       bool
	KeepWorkDir bool
	// Target is a running site (a second replica, a load balancer) to measure instead of
	// starting a stack; SandboxURL its sandbox, for the upstream call counts and latency.
	Target     string
	SandboxURL string
	// MetricsToken opens the target's /metrics (its -metrics-token), for the upstream as the
	// service timed it; the tool makes its own for a stack it starts.
	MetricsToken string
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&c.Rate, "rate", 200, "requests per second, per page")
	fs.DurationVar(&c.Duration, "duration", 20*time.Second, "how long each page is attacked")
	fs.DurationVar(&c.Latency, "latency", 20*time.Millisecond, "latency the sandbox adds to every ticketing API call")
	fs.IntVar(&c.Pool, "pool", 20, "returning visitors per page that the attack takes turns with (edit: at most one per ready-made booking)")
	fs.IntVar(&c.Visitors, "visitors", 0, "also hold this many visitors on the return page, each polling, and report p99 and RSS (0: skip)")
	fs.DurationVar(&c.Slow, "slow", 0, "also view each page once with every upstream call taking this long (e.g. 10s), then once after it recovers (0: skip)")
	fs.DurationVar(&c.PollEvery, "poll-every", 2*time.Second, `the return page's poll interval (hx-trigger="every 2s")`)
	pageList := fs.String("pages", strings.Join(pageNames, ","), "comma-separated pages to attack")
	fs.StringVar(&c.Package, "pkg", "./cmd/web", "the service's main package, built once with go build")
	fs.BoolVar(&c.Smoke, "smoke", false, "a short smoke run for CI: 2 s at 10/s, 2 visitors per page, fails only if a page errors")
	fs.BoolVar(&c.KeepWorkDir, "keep", false, "keep the work directory (binaries, logs, database)")
	fs.StringVar(&c.Target, "target", "", "measure the site running at this base URL (a replica, a load balancer) instead of starting a stack; it must trust X-Forwarded-For from this host and use the sandbox's default world")
	fs.StringVar(&c.SandboxURL, "sandbox-url", "", "with -target: the base URL of the site's sandbox ticketing API, to count upstream calls and set -latency/-slow there (its faults are cleared at the end; without it no upstream figures are given)")
	fs.StringVar(&c.MetricsToken, "metrics-token", "", "with -target: the site's -metrics-token, to read its /metrics for the upstream as the service timed it (behind a load balancer /metrics answers for one replica: give one replica as -target)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.Pages = strings.Split(*pageList, ",")
	for _, name := range c.Pages {
		if _, ok := pages[name]; !ok {
			return c, fmt.Errorf("unknown page %q (one of %s)", name, strings.Join(pageNames, ", "))
		}
	}
	if c.Smoke {
		c.Rate, c.Duration, c.Pool, c.Visitors, c.Slow = 10, 2*time.Second, 2, min(c.Visitors, 20), min(c.Slow, 3*time.Second)
	}
	if c.Rate <= 0 || c.Duration <= 0 || c.Pool <= 0 || c.Latency < 0 {
		return c, errors.New("-rate, -duration and -pool must be positive, -latency not negative")
	}
	c.Target, c.SandboxURL = strings.TrimSuffix(c.Target, "/"), strings.TrimSuffix(c.SandboxURL, "/")
	if c.SandboxURL != "" && c.Target == "" {
		return c, errors.New("-sandbox-url goes with -target (without it the tool starts its own sandbox)")
	}
	if c.MetricsToken != "" && c.Target == "" {
		return c, errors.New("-metrics-token goes with -target (a stack the tool starts gets a token of its own)")
	}
	if c.Target != "" && c.SandboxURL == "" && c.Slow > 0 {
		return c, errors.New("-slow needs the sandbox: give -sandbox-url with -target")
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	work, err := os.MkdirTemp("", "loadtest-")
	if err != nil {
		return fmt.Errorf("work dir: %w", err)
	}
	if cfg.KeepWorkDir {
		log.Info("work directory kept", "dir", work)
	} else {
		defer os.RemoveAll(work)
	}

	var st *stack
	if cfg.Target != "" {
		st, err = useStack(ctx, cfg, log)
	} else {
		st, err = startStack(ctx, cfg, work, log)
	}
	if err != nil {
		return err
	}
	defer st.stop()

	began := time.Now()
	atStart, err := st.upstreamCalls(ctx)
	if err != nil {
		return err
	}
	var results []pageResult
	for _, name := range cfg.Pages {
		r, err := measurePage(ctx, st, cfg, name, pages[name], log)
		if err != nil {
			return fmt.Errorf("page %s: %w", name, err)
		}
		results = append(results, r)
	}
	printPages(stdout, cfg, results)
	if st.counted() {
		atEnd, err := st.upstreamCalls(ctx)
		if err != nil {
			return err
		}
		if line := wholeRunListing(results, atStart, atEnd, time.Since(began)); line != "" {
			fmt.Fprintln(stdout, line)
		}
	}

	if cfg.Slow > 0 {
		slow, err := measureSlow(ctx, st, cfg, results, log)
		if err != nil {
			return fmt.Errorf("slow upstream: %w", err)
		}
		printSlow(stdout, cfg, slow)
	}

	var watch *watchResult
	if cfg.Visitors > 0 {
		w, err := watchReturnPage(ctx, st, cfg, log)
		if err != nil {
			return fmt.Errorf("return page visitors: %w", err)
		}
		watch = &w
		printWatch(stdout, cfg, w)
	}
	return failures(results, watch)
}
