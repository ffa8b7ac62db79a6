package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// stack is the sandbox and the service, each a subprocess of one binary; or, with -target, a
// site running elsewhere (web and sandbox nil) and maybe its sandbox.
type stack struct {
	// external: a site this tool did not start (-target); its sandbox's faults are cleared
	// at the end when -latency set one there.
	external  bool
	setFaults bool
	site      string // the service's base URL
	upstream  string // the sandbox's base URL; "" when not known (-target without -sandbox-url)
	web       *proc
	sandbox   *proc
	logs      string
	// metricsToken opens the service's /metrics (upstreamtime.go); for a site this tool did
	// not start, -metrics-token ("": not read).
	metricsToken string
}

// startStack builds the service and starts the sandbox (with the latency) and the service
// pointed at it.
func startStack(ctx context.Context, cfg config, work string, log *slog.Logger) (*stack, error) {
	bin := filepath.Join(work, "web")
	log.Info("building the service", "pkg", cfg.Package)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, cfg.Package)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("go build %s: %w", cfg.Package, err)
	}
	sitePort, err := freePort()
	if err != nil {
		return nil, err
	}
	st := &stack{site: "http://127.0.0.1:" + strconv.Itoa(sitePort), logs: work, metricsToken: newMetricsToken()}

	sbArgs := []string{"sandbox", "-addr", "127.0.0.1:0", "-completion-delay", "never",
		"-webhook-url", st.site + "/payments/webhook", "-webhook-secret", payprovider.DefaultWebhookSecret}
	if cfg.Latency > 0 {
		sbArgs = append(sbArgs, "-fault", "op=*,latency="+cfg.Latency.String())
	}
	st.sandbox, st.upstream, err = startProcess(ctx, bin, sbArgs, filepath.Join(work, "sandbox.log"),
		regexp.MustCompile(`sandbox ticketing API: (http://\S+)/ `))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	webArgs := []string{"-addr", "127.0.0.1:" + strconv.Itoa(sitePort), "-public-url", st.site,
		"-upstream-url", st.upstream, "-upstream-token", sandbox.DefaultToken,
		"-payments-url", st.upstream + "/pay", "-payments-webhook-secret", payprovider.DefaultWebhookSecret,
		"-data-dir", filepath.Join(work, "data"), "-log-level", "warn", "-log-format", "text",
		// Each visitor's address comes in X-Forwarded-For (visitor.go), as through a proxy.
		"-trusted-proxies", "127.0.0.1/32", "-metrics-token", st.metricsToken}
	st.web, _, err = startProcess(ctx, bin, webArgs, filepath.Join(work, "web.log"), regexp.MustCompile(`listening on (http://\S+)`))
	if err != nil {
		st.stop()
		return nil, fmt.Errorf("service: %w", err)
	}
	log.Info("started", "site", st.site, "upstream", st.upstream, "latency", cfg.Latency, "logs", work)
	return st, nil
}

// useStack is a site already running (-target), with its sandbox when -sandbox-url names it:
// -latency is then set there as on a stack of our own.
func useStack(ctx context.Context, cfg config, log *slog.Logger) (*stack, error) {
	st := &stack{site: cfg.Target, upstream: cfg.SandboxURL, external: true, metricsToken: cfg.MetricsToken}
	if st.upstream != "" {
		if _, err := st.upstreamCalls(ctx); err != nil {
			return nil, fmt.Errorf("-sandbox-url: %w", err)
		}
		if err := st.setLatency(ctx, cfg.Latency); err != nil {
			return nil, err
		}
		st.setFaults = cfg.Latency > 0
	}
	log.Info("measuring a running site", "site", st.site, "upstream", cmp.Or(st.upstream, "unknown: no upstream call counts"), "latency", cfg.Latency)
	return st, nil
}

// counted says whether the sandbox's call counts can be read.
func (st *stack) counted() bool { return st.upstream != "" }

// proc is a started subprocess; done closes when it has exited.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// startProcess starts bin with args, its output going to logFile, and waits until a line
// matches ready; it returns the first group of that match (the address).
func startProcess(ctx context.Context, bin string, args []string, logFile string, ready *regexp.Regexp) (*proc, string, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, "", err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			fmt.Fprintln(f, sc.Text())
			if m := ready.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		f.Close()
	}()
	p := &proc{cmd: cmd, done: make(chan struct{})}
	var waitErr error
	go func() { waitErr = cmd.Wait(); pw.Close(); close(p.done) }()
	select {
	case addr := <-found:
		return p, addr, nil
	case <-p.done:
		return nil, "", fmt.Errorf("%s exited before it was ready (%v); see %s", filepath.Base(bin), waitErr, logFile)
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return nil, "", fmt.Errorf("not ready within 60 s; see %s", logFile)
	}
}

// stop ends both processes (SIGINT: they shut down cleanly).
func (st *stack) stop() {
	if st.external {
		if st.setFaults { // the latency this tool set on a sandbox it did not start
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = st.setLatency(ctx, 0)
		}
		return
	}
	for _, p := range []*proc{st.web, st.sandbox} {
		if p != nil {
			_ = p.cmd.Process.Signal(os.Interrupt)
		}
	}
	for _, p := range []*proc{st.web, st.sandbox} {
		if p == nil {
			continue
		}
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// upstreamCalls reads the sandbox's call count per operation (GET /sandbox-admin/stats).
// Without a known sandbox it is empty (the report says the counts are not available).
func (st *stack) upstreamCalls(ctx context.Context) (map[string]int64, error) {
	if !st.counted() {
		return map[string]int64{}, nil
	}
	var stats struct {
		Calls map[string]int64 `json:"calls"`
	}
	if err := st.admin(ctx, http.MethodGet, "/sandbox-admin/stats", nil, &stats); err != nil {
		return nil, err
	}
	return stats.Calls, nil
}

// admin calls the sandbox's admin API: in (if not nil) is sent as JSON, the answer must be
// 200 and is decoded into out (if not nil).
func (st *stack) admin(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, st.upstream+path, body)
	if err != nil {
		return err
	}
	req.Header["connectapitoken"] = []string{sandbox.DefaultToken} // the sandbox wants the raw lower-case name
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("sandbox %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return fmt.Errorf("sandbox %s %s: status %d: %s", method, path, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("sandbox %s %s: %w", method, path, err)
	}
	return nil
}

// rssKB is the service's resident set size (VmRSS in /proc/<pid>/status), in KiB.
// It is 0 for a site this tool did not start (-target).
func (st *stack) rssKB() (int64, error) {
	if st.web == nil {
		return 0, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", st.web.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", st.web.cmd.Process.Pid)
}
