package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestParseUpstreamTime(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       upstreamTime
		wantErr    bool
	}{
		{"none yet", "# HELP go_goroutines x\ngo_goroutines 12\n", upstreamTime{}, false},
		{"every operation and outcome added", `# HELP upstream_request_duration_seconds Duration
# TYPE upstream_request_duration_seconds histogram
upstream_request_duration_seconds_bucket{operation="GetOrder",outcome="ok",le="0.025"} 90
upstream_request_duration_seconds_bucket{operation="GetOrder",outcome="ok",le="+Inf"} 100
upstream_request_duration_seconds_sum{operation="GetOrder",outcome="ok"} 2.1
upstream_request_duration_seconds_bucket{operation="GetSeatPlan",outcome="ok",le="0.025"} 20
upstream_request_duration_seconds_count{operation="GetOrder",outcome="ok"} 100
upstream_request_duration_seconds_sum{operation="GetSeatPlan",outcome="ok"} 0.5
upstream_request_duration_seconds_count{operation="GetSeatPlan",outcome="ok"} 20
upstream_requests_total{operation="GetOrder",outcome="ok"} 100
`, upstreamTime{seconds: 2.6, calls: 120, within: map[float64]int64{0.025: 110, math.Inf(1): 100}}, false},
		{"a value that is no number", "upstream_request_duration_seconds_sum{operation=\"GetOrder\"} x\n", upstreamTime{}, true},
		{"a bucket without its bound", "upstream_request_duration_seconds_bucket{operation=\"GetOrder\"} 3\n", upstreamTime{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseUpstreamTime(strings.NewReader(tc.text))
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if !tc.wantErr && (got.calls != tc.want.calls || got.seconds < tc.want.seconds-1e-9 || got.seconds > tc.want.seconds+1e-9 ||
				!maps.Equal(got.within, tc.want.within) && len(tc.want.within) > 0) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSlowShareIsReadAtTheNextBound(t *testing.T) {
	before := upstreamTime{calls: 100, within: map[float64]int64{0.01: 0, 0.025: 95, 0.05: 100, math.Inf(1): 100}}
	after := upstreamTime{calls: 1100, within: map[float64]int64{0.01: 0, 0.025: 1045, 0.05: 1099, math.Inf(1): 1100}}
	for _, tc := range []struct {
		limit     time.Duration
		wantShare float64
		wantBound time.Duration
	}{
		{25 * time.Millisecond, 0.05, 25 * time.Millisecond},  // 1.25 × 20 ms: a bound of its own
		{30 * time.Millisecond, 0.001, 50 * time.Millisecond}, // between bounds: the next one up
		{time.Minute, 0, 0}, // above every finite bound: only +Inf, which says nothing
	} {
		share, bound := after.slowShare(before, tc.limit)
		if bound != tc.wantBound || math.Abs(share-tc.wantShare) > 1e-9 {
			t.Errorf("over %v: %v over %v, want %v over %v", tc.limit, share, bound, tc.wantShare, tc.wantBound)
		}
	}
	if share, bound := before.slowShare(before, 25*time.Millisecond); share != 0 || bound != 0 {
		t.Errorf("no calls: %v over %v", share, bound)
	}
}

func TestMeanCallBetweenTwoReadings(t *testing.T) {
	before := upstreamTime{seconds: 1, calls: 50}
	after := upstreamTime{seconds: 1 + 0.0214*1000, calls: 1050}
	if got := after.since(before); got < 21399*time.Microsecond || got > 21401*time.Microsecond {
		t.Fatalf("mean call %v, want 21.4ms", got)
	}
	if got := before.since(before); got != 0 {
		t.Fatalf("no calls: mean %v, want 0", got)
	}
}

func TestReportTellsThePagesOwnTimeFromTheUpstreams(t *testing.T) {
	m := vegeta.Metrics{Requests: 100}
	m.Latencies.P50, m.Latencies.P99 = 22*time.Millisecond, 30*time.Millisecond
	timed := pageResult{name: "seatmap", needs: 1, callTime: 21 * time.Millisecond, metrics: m, counted: true, calls: map[string]int64{"GetOrder": 100},
		slow: 0.053, slowOver: 25 * time.Millisecond}
	cached := pageResult{name: "film", needs: 1, callTime: 21 * time.Millisecond, metrics: m, counted: true, calls: map[string]int64{"Films": 1}}
	var b strings.Builder
	printTimed(&b, []pageResult{timed, {name: "whats-on", needs: 0, callTime: 21 * time.Millisecond, metrics: m}, cached})
	out := b.String()
	if !strings.Contains(out, "as the service timed it") || !strings.Contains(out, "1.05×") || !strings.Contains(out, "1.43×") || !strings.Contains(out, "1ms") ||
		!strings.Contains(out, "5.3 % > 25ms") {
		t.Fatalf("the section says:\n%s", out)
	}
	if strings.Contains(out, "whats-on") || strings.Contains(out, "film") {
		t.Errorf("a page that needs no upstream call, or answers from a cache, has a row:\n%s", out)
	}
	b.Reset()
	printTimed(&b, []pageResult{{name: "seatmap", needs: 1, metrics: m}})
	if b.Len() != 0 {
		t.Errorf("without the service's timings (-target) the section is written:\n%s", b.String())
	}
}

// A site the tool did not start has its /metrics read with -metrics-token, and not without.
func TestTargetMetricsAreReadWithTheGivenToken(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || r.Header.Get("Authorization") != "Bearer t0k" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprintln(w, `upstream_request_duration_seconds_sum{operation="GetOrder",outcome="ok"} 0.42`)
		fmt.Fprintln(w, `upstream_request_duration_seconds_count{operation="GetOrder",outcome="ok"} 20`)
	}))
	t.Cleanup(site.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		token string
		calls int64
	}{{"t0k", 20}, {"", 0}} {
		args := []string{"-target", site.URL}
		if tc.token != "" {
			args = append(args, "-metrics-token", tc.token)
		}
		cfg, err := parseFlags(args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		st, err := useStack(context.Background(), cfg, log)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.upstreamTimed(context.Background())
		if err != nil || got.calls != tc.calls {
			t.Errorf("token %q: %+v, %v; want %d calls", tc.token, got, err, tc.calls)
		}
	}
}
