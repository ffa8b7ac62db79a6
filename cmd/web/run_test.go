package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/goldenapi"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"CINEMA_ADDR": "127.0.0.1:9999", "CINEMA_LOG_LEVEL": "debug", "CINEMA_SESSION_IDLE": "10m",
		"CINEMA_UPSTREAM_HEADERS": "Connect-Region-Code: EU\n\n  X-Tenant: lumiere \n"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name    string
		args    []string
		check   func(t *testing.T, c Config)
		wantErr string
	}{
		{"environment over defaults", nil, func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:9999" || c.LogLevel != "debug" || c.SessionIdle != 10*time.Minute {
				t.Fatalf("%+v", c)
			}
			if c.PublicURL != "http://127.0.0.1:9999" || c.DatabaseURL != "sqlite:data/cinema.db" || c.SessionStore != "sqlite" {
				t.Fatalf("derived defaults: %+v", c)
			}
		}, ""},
		{"flags over environment", []string{"-addr", ":7000", "-public-url", "https://cinema.example/"}, func(t *testing.T, c Config) {
			if c.Addr != ":7000" || c.PublicURL != "https://cinema.example" {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"postgres picks postgres sessions", []string{"-database-url", "postgres://x@y/z"}, func(t *testing.T, c Config) {
			if c.SessionStore != "postgres" {
				t.Fatalf("session store %q", c.SessionStore)
			}
		}, ""},
		{"bad store", []string{"-session-store", "memcached"}, nil, "session store"},
		{"bad proxy", []string{"-trusted-proxies", "10.0.0.1"}, nil, "not a CIDR"},
		{"bad public URL", []string{"-public-url", "cinema.example"}, nil, "absolute http(s) URL"},
		{"bad duration in env", nil, nil, ""},
		{"idle longer than lifetime", []string{"-session-idle", "2h", "-session-lifetime", "1h"}, nil, "idle not longer"},
		{"stray argument", []string{"serve"}, nil, "unexpected argument"},
		{"bad booking status map", []string{"-booking-status-map", "1=maybe"}, nil, "booking status mapping"},
		{"wallet links work a week after the show by default", nil, func(t *testing.T, c Config) {
			if c.WalletLinkValidFor != 7*24*time.Hour {
				t.Fatalf("wallet links valid for %v", c.WalletLinkValidFor)
			}
		}, ""},
		{"wallet links for two days", []string{"-wallet-link-valid-for", "48h"}, func(t *testing.T, c Config) {
			if c.WalletLinkValidFor != 48*time.Hour {
				t.Fatalf("wallet links valid for %v", c.WalletLinkValidFor)
			}
		}, ""},
		{"wallet links for less than an hour", []string{"-wallet-link-valid-for", "10m"}, nil, "-wallet-link-valid-for"},
		{"bad payment status map", []string{"-payment-status-map", "Y"}, nil, "payment status mapping"},
		{"headers from flags replace the environment's", []string{"-upstream-header", "Connect-Region-Code: EU", "-upstream-header", "X-Tenant: a"}, func(t *testing.T, c Config) {
			if strings.Join(c.UpstreamHeaders, "|") != "Connect-Region-Code: EU|X-Tenant: a" {
				t.Fatalf("headers %q", c.UpstreamHeaders)
			}
		}, ""},
		{"headers from the environment, one per line", nil, func(t *testing.T, c Config) {
			if strings.Join(c.UpstreamHeaders, "|") != "Connect-Region-Code: EU|X-Tenant: lumiere" {
				t.Fatalf("headers %q", c.UpstreamHeaders)
			}
		}, ""},
		{"bad header", []string{"-upstream-header", "no colon"}, nil, "want 'Name: value'"},
		{"token as header", []string{"-upstream-header", "connectapitoken: x"}, nil, "-upstream-token"},
		{"bad booking modes", []string{"-booking-modes", "sale=1,reservation=1"}, nil, "must differ"},
		{"language German", []string{"-language", "de"}, func(t *testing.T, c Config) {
			if l, err := c.languages(); err != nil || l.Fallback().String() != "de" {
				t.Fatalf("%v %v", l, err)
			}
		}, ""},
		{"language not spoken", []string{"-language", "fr"}, nil, "the site speaks"},
		{"bad time zone", []string{"-time-zone", "Mars/Olympus"}, nil, "time zone"},
		{"missing paths file", []string{"-upstream-paths", "/nonexistent/paths.json"}, nil, "upstream paths"},
		{"change cut-off: 30 minutes by default", nil, func(t *testing.T, c Config) {
			if p, err := c.changeWindow(); err != nil || p.Default != 30*time.Minute || p.PerCinema != nil {
				t.Fatalf("%+v %v", p, err)
			}
		}, ""},
		{"change cut-off per cinema", []string{"-change-cutoff", "45m", "-change-cutoff-cinema", "0001=2h, 0002=0"}, func(t *testing.T, c Config) {
			p, err := c.changeWindow()
			if err != nil || p.Cutoff("0001") != 2*time.Hour || p.Cutoff("0002") != 0 || p.Cutoff("0003") != 45*time.Minute {
				t.Fatalf("%+v %v", p, err)
			}
		}, ""},
		{"bad per-cinema change cut-off", []string{"-change-cutoff-cinema", "0001:2h"}, nil, "-change-cutoff-cinema / $CINEMA_CHANGE_CUTOFF_CINEMA: per-cinema change cut-off \"0001:2h\": want CINEMA=DURATION"},
		{"negative change cut-off", []string{"-change-cutoff", "-5m"}, nil, "is negative"},
		{"mail: .eml files in the data folder by default", []string{"-data-dir", "/srv/cinema"}, func(t *testing.T, c Config) {
			if c.SMTPURL != "" || c.MailDir != "/srv/cinema/mail" {
				t.Fatalf("smtp %q, mail dir %q", c.SMTPURL, c.MailDir)
			}
		}, ""},
		{"mail: SMTP with STARTTLS", []string{"-smtp-url", "smtp://user:pw@mail.example:587", "-mail-from", "Kino <karten@kino.example>"}, func(t *testing.T, c Config) {
			if c.SMTPURL == "" || c.MailFrom != "Kino <karten@kino.example>" {
				t.Fatalf("%+v", c)
			}
		}, ""},
		{"mail: unknown scheme", []string{"-smtp-url", "http://mail.example"}, nil, "SMTP URL"},
		{"mail: bad From", []string{"-mail-from", "not an address"}, nil, "mail-from"},
		{"metrics: not served by default", nil, func(t *testing.T, c Config) {
			if c.MetricsAddr != "" || c.MetricsToken != "" {
				t.Fatalf("metrics addr %q, token %q", c.MetricsAddr, c.MetricsToken)
			}
		}, ""},
		{"metrics: listener and token", []string{"-metrics-addr", "127.0.0.1:9090", "-metrics-token", "t0ken"}, func(t *testing.T, c Config) {
			if c.MetricsAddr != "127.0.0.1:9090" || c.MetricsToken != "t0ken" {
				t.Fatalf("metrics addr %q, token %q", c.MetricsAddr, c.MetricsToken)
			}
		}, ""},
		{"metrics: token with a space", []string{"-metrics-token", "two words"}, nil, "metrics-token must not contain spaces"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := getenv
			if tc.name == "bad duration in env" {
				g = func(k string) string {
					if k == "CINEMA_SHUTDOWN_TIMEOUT" {
						return "soon"
					}
					return ""
				}
				tc.wantErr = "not a duration"
			}
			c, err := parseConfig(tc.args, g, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// TestRunServesOnEmbeddedDefaults runs the program as `go run ./cmd/web` would (with its own
// data folder and a free port), checks the site and the embedded sandbox answer, then stops it
// the way SIGTERM does.
func TestRunServesOnEmbeddedDefaults(t *testing.T) {
	dir := t.TempDir()
	base, printed, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", dir, "-log-format", "json")
	if !strings.Contains(printed, "wallet passes are TEST passes") {
		t.Errorf("the start banner does not say the wallet passes are test passes:\n%s", printed)
	}
	// No SMTP server configured: the banner says where customer e-mail goes.
	if want := "written as an .eml file into " + filepath.Join(dir, "mail"); !strings.Contains(printed, want) || !strings.Contains(printed, "/sandbox/mail") {
		t.Fatalf("the start banner does not say %q:\n%s", want, printed)
	}
	for _, path := range []string{"/", "/booking", "/readyz", "/livez", "/sandbox/mail"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	// Neither -metrics-addr nor -metrics-token: the metrics are not on the site at all.
	if code, _ := getWith(t, base+"/metrics", ""); code != http.StatusNotFound {
		t.Fatalf("GET /metrics with no metrics settings: %d, want 404", code)
	}
	// The first visitor's ticket step already knows the sandbox's booking fee (75 cents a
	// ticket at 0001): its total is the one the seat step and the review will show.
	if code, page := getWith(t, base+"/whats-on/0001/1113", ""); code != http.StatusOK || !strings.Contains(page, `data-fee-cents="75"`) {
		t.Fatalf("the first ticket step of a fresh site: %d, fee per ticket unknown", code)
	}
	stop()
}

// TestRunServesMetricsOnlyWhereConfigured: -metrics-addr serves /metrics (and nothing else) on
// a listener of its own; -metrics-token opens /metrics on the site to that bearer token only.
func TestRunServesMetricsOnlyWhereConfigured(t *testing.T) {
	base, printed, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json",
		"-metrics-addr", "127.0.0.1:0", "-metrics-token", "scrape-me")
	m := regexp.MustCompile(`metrics served on (http://127\.0\.0\.1:\d+)/metrics`).FindStringSubmatch(printed)
	if m == nil {
		t.Fatalf("the start banner does not say where the metrics are:\n%s", printed)
	}
	metricsBase := m[1]
	cases := []struct {
		name, url, auth string
		want            int
		wantBody        string
	}{
		{"metrics listener", metricsBase + "/metrics", "", http.StatusOK, "go_goroutines"},
		{"metrics listener serves nothing else", metricsBase + "/", "", http.StatusNotFound, ""},
		{"metrics listener has no site", metricsBase + "/booking", "", http.StatusNotFound, ""},
		{"site without token", base + "/metrics", "", http.StatusUnauthorized, ""},
		{"site with a wrong token", base + "/metrics", "Bearer scrape-you", http.StatusUnauthorized, ""},
		{"site with the token", base + "/metrics", "Bearer scrape-me", http.StatusOK, "http_requests_total"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := getWith(t, tc.url, tc.auth)
			if code != tc.want || !strings.Contains(body, tc.wantBody) {
				t.Fatalf("GET %s: %d, want %d with %q\n%.300s", tc.url, code, tc.want, tc.wantBody, body)
			}
		})
	}
	stop()
}

func getWith(t *testing.T, url, authorization string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// startRun runs the program in-process with args, waits until it listens, and returns its
// base URL, what it printed until then, and a stop that ends it the way SIGTERM does and
// checks it stopped cleanly.
func startRun(t *testing.T, args ...string) (base, printed string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, pw)
		pw.Close()
	}()
	addrRe := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	sc := bufio.NewScanner(pr)
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if m := addrRe.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatalf("no listening line; run ended: %v\n%s", <-done, out.String())
	}
	go io.Copy(io.Discard, pr)
	return base, out.String(), func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run returned %v after shutdown", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("run did not stop after its context ended")
		}
	}
}

// TestRunAgainstAnotherUpstream starts the service unchanged against a ticketing API that is
// not our sandbox (the golden bodies of the real wire) and without a payment provider: it must
// start (the stand-in provider takes edit payments) and show that API's cinemas.
func TestRunAgainstAnotherUpstream(t *testing.T) {
	up := httptest.NewServer(goldenapi.New(os.DirFS("../../internal/upstream/testdata/golden"), "real-token"))
	defer up.Close()
	base, printed, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json",
		"-upstream-url", up.URL, "-upstream-token", "real-token", "-upstream-header", "Connect-Region-Code: EU")
	if !strings.Contains(printed, "embedded sandbox payment provider") || strings.Contains(printed, "real-token") {
		t.Errorf("start log does not say which payment provider is used, or shows the token:\n%s", printed)
	}
	resp, err := http.Get(base + "/booking")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "Lumière Mitte") {
		t.Fatalf("find page: %d\n%s", resp.StatusCode, b)
	}
	stop()
}

// getFrom GETs url with the headers given (a proxy's forwarding headers) and returns the status.
func getFrom(t *testing.T, url string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestStandInPagesOnlyOnThisMachine: on embedded defaults the stand-in payment pages (the
// hosted page's home, the reader tap form) and the wallet stand-ins' page answer a browser on
// this machine and 404 to a client a proxy forwards for (a trusted one, or one on this
// machine the site does not trust); with a real provider (-payments-url) they are not there.
func TestStandInPagesOnlyOnThisMachine(t *testing.T) {
	phone := map[string]string{"X-Forwarded-For": "203.0.113.7"}
	t.Run("embedded defaults behind a trusted proxy", func(t *testing.T) {
		base, _, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json", "-trusted-proxies", "127.0.0.1/32")
		defer stop()
		for _, path := range []string{"/sandbox/pay/terminal", "/sandbox/wallet"} {
			if code := getFrom(t, base+path, nil); code != http.StatusOK {
				t.Errorf("GET %s from this machine: %d, want 200", path, code)
			}
			if code := getFrom(t, base+path, phone); code != http.StatusNotFound {
				t.Errorf("GET %s through the trusted proxy for a phone: %d, want 404", path, code)
			}
		}
	})
	t.Run("embedded defaults behind a proxy it does not trust", func(t *testing.T) {
		base, _, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json")
		defer stop()
		for _, path := range []string{"/sandbox/pay/terminal", "/sandbox/wallet"} {
			if code := getFrom(t, base+path, phone); code != http.StatusNotFound {
				t.Errorf("GET %s forwarded for a phone: %d, want 404", path, code)
			}
		}
	})
	t.Run("a real provider", func(t *testing.T) {
		provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("the site called the provider at start: %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
		}))
		defer provider.Close()
		base, printed, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json",
			"-payments-url", provider.URL, "-payments-key", "sk_live_realprovider")
		defer stop()
		if strings.Contains(printed, "/sandbox/wallet") {
			t.Errorf("the banner offers the wallet stand-ins' page with a real provider:\n%s", printed)
		}
		for _, path := range []string{"/sandbox/pay/terminal", "/sandbox/pay/v1/terminal/readers", "/sandbox/wallet"} {
			if code := getFrom(t, base+path, nil); code != http.StatusNotFound {
				t.Errorf("GET %s with a real provider: %d, want 404", path, code)
			}
		}
	})
}
