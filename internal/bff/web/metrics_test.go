package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestMetricsLabelsAreBounded: whatever method and path a client sends, the series are labelled
// by a known method (or OTHER) and a route pattern (or "unmatched"), never by what was sent.
func TestMetricsLabelsAreBounded(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{})
	cases := []struct {
		method, path          string
		wantMethod, wantRoute string
	}{
		{"GET", "/", "GET", "/"},
		{"FOO", "/", "OTHER", "/"},
		{"BREW", "/no-such-page-7f3a", "OTHER", "unmatched"},
		{"GET", "/no-such-page-7f3a", "GET", "unmatched"},
		{"GET", "/static/no-such-file-7f3a.css", "GET", "/static/*"},
	}
	for _, tc := range cases {
		resp, _ := h.Do(tc.method, tc.path, nil, nil)
		if n := requestsCounted(t, h, tc.wantMethod, tc.wantRoute); n == 0 {
			t.Errorf("%s %s (%d): no http_requests_total{method=%q,route=%q}", tc.method, tc.path, resp.StatusCode, tc.wantMethod, tc.wantRoute)
		}
	}
	for _, s := range requestSeries(t, h) {
		for name, v := range s.labels {
			if v == "FOO" || v == "BREW" || strings.Contains(v, "7f3a") {
				t.Errorf("a series is labelled with what the client sent: %s=%q", name, v)
			}
		}
	}
}

// TestMetricsOnTheSiteNeedTheToken: /metrics on the site's listener is 404 without a configured
// token, and with one answers only "Authorization: Bearer <token>".
func TestMetricsOnTheSiteNeedTheToken(t *testing.T) {
	cases := []struct {
		name, token, auth string
		want              int
	}{
		{"no token configured", "", "", http.StatusNotFound},
		{"no token configured, one sent", "", "Bearer anything", http.StatusNotFound},
		{"no token configured, empty bearer", "", "Bearer ", http.StatusNotFound},
		{"token configured, none sent", "s3cret-token", "", http.StatusUnauthorized},
		{"wrong token", "s3cret-token", "Bearer s3cret-tokeN", http.StatusUnauthorized},
		{"prefix of the token", "s3cret-token", "Bearer s3cret", http.StatusUnauthorized},
		{"other scheme", "s3cret-token", "Basic s3cret-token", http.StatusUnauthorized},
		{"token without scheme", "s3cret-token", "s3cret-token", http.StatusUnauthorized},
		{"the token", "s3cret-token", "Bearer s3cret-token", http.StatusOK},
		{"the token, scheme in lower case", "s3cret-token", "bearer s3cret-token", http.StatusOK},
	}
	harnesses := map[string]*bfftest.Harness{}
	for _, tc := range cases {
		if harnesses[tc.token] == nil {
			harnesses[tc.token] = bfftest.NewHarness(t, bfftest.HarnessOpts{MetricsToken: tc.token})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := harnesses[tc.token]
			header := http.Header{}
			if tc.auth != "" {
				header.Set("Authorization", tc.auth)
			}
			resp, body := h.Do("GET", "/metrics", nil, header)
			if resp.StatusCode != tc.want {
				t.Fatalf("GET /metrics with %q: %d, want %d", tc.auth, resp.StatusCode, tc.want)
			}
			switch tc.want {
			case http.StatusOK:
				if !strings.Contains(body, "http_requests_in_flight") {
					t.Fatalf("no metrics in the answer:\n%.300s", body)
				}
			case http.StatusUnauthorized:
				if resp.Header.Get("WWW-Authenticate") == "" {
					t.Fatal("401 without WWW-Authenticate")
				}
				fallthrough
			default:
				if strings.Contains(body, "http_requests_in_flight") {
					t.Fatal("metrics served without the token")
				}
			}
		})
	}
}

// series is one http_requests_total series: its labels and count.
type series struct {
	labels map[string]string
	count  float64
}

func requestSeries(t *testing.T, h *bfftest.Harness) []series {
	t.Helper()
	families, err := h.Srv.Kernel.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []series
	for _, f := range families {
		if f.GetName() != "http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			s := series{labels: map[string]string{}, count: m.GetCounter().GetValue()}
			for _, l := range m.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			out = append(out, s)
		}
	}
	return out
}

func requestsCounted(t *testing.T, h *bfftest.Harness, method, route string) float64 {
	t.Helper()
	var n float64
	for _, s := range requestSeries(t, h) {
		if s.labels["method"] == method && s.labels["route"] == route {
			n += s.count
		}
	}
	return n
}
