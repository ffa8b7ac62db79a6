package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The upstream as the service timed it. The ratios divide by the latency set at the sandbox
// (20 ms), but a call takes longer than that: the sandbox's work after its timer, the timer's
// overshoot and the loopback both ways. The service's own histogram of its upstream calls
// (upstream_request_duration_seconds, on /metrics) says how long the calls of an attack took
// from where the service waits for them, so that what the page adds of its own can be told
// from what the upstream took.

// durationMetric is the service's histogram of upstream calls.
const durationMetric = "upstream_request_duration_seconds"

// upstreamTime is the sum and the count of the service's upstream calls so far.
type upstreamTime struct {
	seconds float64
	calls   int64
	// within is how many calls took no longer than each of the histogram's bounds (its
	// cumulative _bucket counts by le, in seconds).
	within map[float64]int64
}

// since is the mean call between before and t (0 without calls).
func (t upstreamTime) since(before upstreamTime) time.Duration {
	n := t.calls - before.calls
	if n <= 0 {
		return 0
	}
	return time.Duration((t.seconds - before.seconds) / float64(n) * float64(time.Second))
}

// slowShare is the share of the calls between before and t that took longer than limit, read
// at the histogram's first bound at or above limit, which it returns too (0 and 0 without
// calls or without such a bound). A page that waits for one upstream call cannot have a p99
// within limit while more than 1 % of the calls are over it, whatever the page does.
func (t upstreamTime) slowShare(before upstreamTime, limit time.Duration) (float64, time.Duration) {
	n := t.calls - before.calls
	bound := math.Inf(1)
	for le := range t.within {
		if le >= limit.Seconds() && le < bound {
			bound = le
		}
	}
	if n <= 0 || math.IsInf(bound, 1) {
		return 0, 0
	}
	in := t.within[bound] - before.within[bound]
	return float64(n-in) / float64(n), time.Duration(bound * float64(time.Second))
}

// newMetricsToken is the bearer token the stack's service opens /metrics to.
func newMetricsToken() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "loadtest-" + hex.EncodeToString(b)
}

// upstreamTimed reads the service's upstream histogram; zero when the tool cannot read it (a
// site it did not start, -target, without -metrics-token).
func (st *stack) upstreamTimed(ctx context.Context) (upstreamTime, error) {
	if st.metricsToken == "" {
		return upstreamTime{}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, st.site+"/metrics", nil)
	if err != nil {
		return upstreamTime{}, err
	}
	req.Header.Set("Authorization", "Bearer "+st.metricsToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return upstreamTime{}, fmt.Errorf("the service's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return upstreamTime{}, fmt.Errorf("the service's metrics: status %d", resp.StatusCode)
	}
	return parseUpstreamTime(resp.Body)
}

// parseUpstreamTime adds up the histogram's _sum, _count and _bucket samples over every
// operation and outcome in a Prometheus text exposition.
func parseUpstreamTime(r io.Reader) (upstreamTime, error) {
	t := upstreamTime{within: map[float64]int64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		name, value, ok := sample(line)
		if !ok || !strings.HasPrefix(name, durationMetric+"_") {
			continue
		}
		v, err := strconv.ParseFloat(value, 64) // the text format writes counts as floats too
		if err != nil {
			return t, fmt.Errorf("metrics line %q: %w", line, err)
		}
		switch name {
		case durationMetric + "_sum":
			t.seconds += v
		case durationMetric + "_count":
			t.calls += int64(v)
		case durationMetric + "_bucket":
			le, err := label(line, "le")
			if err != nil {
				return t, fmt.Errorf("metrics line %q: %w", line, err)
			}
			t.within[le] += int64(v)
		}
	}
	return t, sc.Err()
}

// label is the value of the sample line's numeric label name ("+Inf" included).
func label(line, name string) (float64, error) {
	_, rest, ok := strings.Cut(line, name+`="`)
	value, _, closed := strings.Cut(rest, `"`)
	if !ok || !closed {
		return 0, fmt.Errorf("no label %s", name)
	}
	return strconv.ParseFloat(value, 64)
}

// sample splits a sample line into the metric's name and its value; comments and blank lines
// are not samples.
func sample(line string) (name, value string, ok bool) {
	if line == "" || strings.HasPrefix(line, "#") {
		return "", "", false
	}
	end := strings.IndexAny(line, "{ ")
	sp := strings.LastIndexByte(line, ' ')
	if end < 0 || sp < end {
		return "", "", false
	}
	return line[:end], line[sp+1:], true
}
