package webservice_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
	"github.com/cinemabff/cinemabff/internal/wallet/webservice"
)

const (
	passType  = "pass.com.example.cinema"
	device    = "dev0001"
	pushToken = "0a1b2c3d4e5f"
)

// fakeSource builds "passes" from a function, so a test can say what the signer answers.
type fakeSource struct {
	latest func(ctx context.Context, passType, serial string) ([]byte, time.Time, error)
}

var (
	_ webservice.PassSource = fakeSource{}
	_ webservice.Registry   = (*passes.Store)(nil) // the store is what the web app will mount this on
)

func (f fakeSource) LatestPass(ctx context.Context, passType, serial string) ([]byte, time.Time, error) {
	return f.latest(ctx, passType, serial)
}

// env is the web service on a real store, served over real HTTP.
type env struct {
	store *passes.Store
	pass  passes.Issued
	url   string
	logs  *bytes.Buffer
	src   *fakeSource
}

func eachDatabase(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for _, d := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "wallet.db") }},
		{"postgres", func(t *testing.T) string { return testenv.PostgresURL(t) }},
	} {
		t.Run(d.name, func(t *testing.T) {
			db, err := storage.Open(context.Background(), d.url(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if _, err := db.Migrate(context.Background(), slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			f(t, db.SQL)
		})
	}
}

func newEnv(t *testing.T, db *sql.DB) *env {
	t.Helper()
	store, err := passes.NewStore(db, []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Ensure(context.Background(), passType, "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{store: store, pass: p, logs: new(bytes.Buffer)}
	e.src = &fakeSource{latest: func(_ context.Context, pt, serial string) ([]byte, time.Time, error) {
		return []byte("PK-" + pt + "/" + serial), time.Time{}, nil
	}}
	svc := webservice.New(store, sourceOf{e}, slog.New(slog.NewTextHandler(e.logs, nil)))
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	e.url = srv.URL
	return e
}

// sourceOf lets a case swap the env's source after the server started.
type sourceOf struct{ e *env }

func (s sourceOf) LatestPass(ctx context.Context, pt, serial string) ([]byte, time.Time, error) {
	return s.e.src.LatestPass(ctx, pt, serial)
}

func (e *env) do(t *testing.T, method, path, auth, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
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
	return resp, string(b)
}

func (e *env) registration() string {
	return "/v1/devices/" + device + "/registrations/" + passType + "/" + e.pass.Serial
}
func (e *env) updated(since string) string {
	return "/v1/devices/" + device + "/registrations/" + passType + "?passesUpdatedSince=" + since
}
func (e *env) passURL() string { return "/v1/passes/" + passType + "/" + e.pass.Serial }
func (e *env) auth() string    { return "ApplePass " + e.pass.Token }

// register is a test step: the device registers for the env's pass.
func register(t *testing.T, e *env) { e.register(t) }

func (e *env) register(t *testing.T) {
	t.Helper()
	if resp, body := e.do(t, "POST", e.registration(), e.auth(), `{"pushToken":"`+pushToken+`"}`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
}

// TestRoutes: every route's answers, good and bad, each on a fresh store.
func TestRoutes(t *testing.T) {
	good := `{"pushToken":"` + pushToken + `"}`
	for _, tc := range []struct {
		name   string
		prep   func(t *testing.T, e *env)
		method string
		path   func(e *env) string
		auth   func(e *env) string
		body   string
		header []string
		want   int
		check  func(t *testing.T, e *env, resp *http.Response, body string)
	}{
		{name: "register new device", method: "POST", path: (*env).registration, auth: (*env).auth, body: good, want: 201},
		{name: "register again", prep: register, method: "POST", path: (*env).registration, auth: (*env).auth, body: good, want: 200},
		{name: "register with another pass's token", method: "POST", path: (*env).registration,
			auth: func(e *env) string { return "ApplePass " + e.store.Token(passType, "other") }, body: good, want: 401},
		{name: "register without authorization", method: "POST", path: (*env).registration, body: good, want: 401},
		{name: "register with a bearer token", method: "POST", path: (*env).registration,
			auth: func(e *env) string { return "Bearer " + e.pass.Token }, body: good, want: 401},
		{name: "register for an unknown serial", method: "POST", auth: (*env).auth, body: good, want: 401,
			path: func(e *env) string { return "/v1/devices/" + device + "/registrations/" + passType + "/nope" }},
		{name: "register with a body that is not JSON", method: "POST", path: (*env).registration, auth: (*env).auth, body: "pushToken=1", want: 400},
		{name: "register without a push token", method: "POST", path: (*env).registration, auth: (*env).auth, body: `{}`, want: 400},
		{name: "register with a push token that is not hex", method: "POST", path: (*env).registration, auth: (*env).auth,
			body: `{"pushToken":"../../x"}`, want: 400},
		{name: "register with a huge body", method: "POST", path: (*env).registration, auth: (*env).auth,
			body: `{"pushToken":"` + strings.Repeat("a", 10000) + `"}`, want: 413},
		{name: "unregister", prep: register, method: "DELETE", path: (*env).registration, auth: (*env).auth, want: 200,
			check: func(t *testing.T, e *env, _ *http.Response, _ string) {
				if resp, _ := e.do(t, "GET", e.updated(""), "", ""); resp.StatusCode != 204 {
					t.Errorf("serials after unregistering: %d, want 204", resp.StatusCode)
				}
			}},
		{name: "unregister with a wrong token", prep: register, method: "DELETE", path: (*env).registration,
			auth: func(*env) string { return "ApplePass wrong" }, want: 401,
			check: func(t *testing.T, e *env, _ *http.Response, _ string) {
				if resp, _ := e.do(t, "GET", e.updated(""), "", ""); resp.StatusCode != 200 {
					t.Errorf("serials after a refused unregister: %d, want 200", resp.StatusCode)
				}
			}},
		{name: "serials of a device never registered", method: "GET", path: func(e *env) string { return e.updated("") }, want: 204},
		{name: "serials of a registered device", prep: register, method: "GET", path: func(e *env) string { return e.updated("") }, want: 200,
			check: func(t *testing.T, e *env, resp *http.Response, body string) {
				var got struct {
					SerialNumbers []string `json:"serialNumbers"`
					LastUpdated   string   `json:"lastUpdated"`
				}
				if err := json.Unmarshal([]byte(body), &got); err != nil || len(got.SerialNumbers) != 1 ||
					got.SerialNumbers[0] != e.pass.Serial || got.LastUpdated == "" || resp.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("body %s (%v)", body, err)
				}
				if resp, _ := e.do(t, "GET", e.updated(got.LastUpdated), "", ""); resp.StatusCode != 204 {
					t.Errorf("serials since the tag just given: %d, want 204", resp.StatusCode)
				}
			}},
		{name: "pass", method: "GET", path: (*env).passURL, auth: (*env).auth, want: 200,
			check: func(t *testing.T, e *env, resp *http.Response, body string) {
				lm, _ := e.store.LastModified(context.Background(), passType, e.pass.Serial)
				if body != "PK-"+passType+"/"+e.pass.Serial || resp.Header.Get("Content-Type") != webservice.PkpassType ||
					resp.Header.Get("Last-Modified") != lm.UTC().Format(http.TimeFormat) {
					t.Errorf("body %q, headers %v", body, resp.Header)
				}
			}},
		{name: "pass without authorization", method: "GET", path: (*env).passURL, want: 401},
		{name: "pass with a wrong token", method: "GET", path: (*env).passURL, auth: func(*env) string { return "ApplePass x" }, want: 401},
		{name: "pass not changed since", method: "GET", path: (*env).passURL, auth: (*env).auth, want: 304,
			header: []string{"If-Modified-Since", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat)}},
		{name: "pass modified later by its source", method: "GET", path: (*env).passURL, auth: (*env).auth, want: 200,
			prep: func(t *testing.T, e *env) {
				e.src = &fakeSource{latest: func(context.Context, string, string) ([]byte, time.Time, error) {
					return []byte("PK"), time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), nil
				}}
			},
			check: func(t *testing.T, _ *env, resp *http.Response, _ string) {
				if got := resp.Header.Get("Last-Modified"); got != "Thu, 01 Jan 2099 00:00:00 GMT" {
					t.Errorf("Last-Modified %q, want the source's later time", got)
				}
			}},
		{name: "pass the signer cannot build", method: "GET", path: (*env).passURL, auth: (*env).auth, want: 500,
			prep: func(t *testing.T, e *env) {
				e.src = &fakeSource{latest: func(context.Context, string, string) ([]byte, time.Time, error) {
					return nil, time.Time{}, errors.New("certificate expired")
				}}
			},
			check: func(t *testing.T, e *env, _ *http.Response, body string) {
				if strings.Contains(body, "certificate") || !strings.Contains(e.logs.String(), "certificate expired") {
					t.Errorf("body %q; log %q: want the cause logged, not shown", body, e.logs)
				}
			}},
		{name: "log", method: "POST", path: func(*env) string { return webservice.RouteLog }, body: `{"logs":["Could not fetch pass","second"]}`, want: 200,
			check: func(t *testing.T, e *env, _ *http.Response, _ string) {
				if !strings.Contains(e.logs.String(), "Could not fetch pass") || !strings.Contains(e.logs.String(), "second") {
					t.Errorf("log %q", e.logs)
				}
			}},
		{name: "log that is not JSON", method: "POST", path: func(*env) string { return webservice.RouteLog }, body: `logs`, want: 400},
		{name: "log too long", method: "POST", path: func(*env) string { return webservice.RouteLog },
			body: `{"logs":["` + strings.Repeat("x", 70<<10) + `"]}`, want: 413},
		{name: "log with GET", method: "GET", path: func(*env) string { return webservice.RouteLog }, want: 405},
		{name: "unknown route", method: "GET", path: func(*env) string { return "/v1/nothing" }, want: 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDatabase(t, func(t *testing.T, db *sql.DB) {
				e := newEnv(t, db)
				if tc.prep != nil {
					tc.prep(t, e)
				}
				auth := ""
				if tc.auth != nil {
					auth = tc.auth(e)
				}
				resp, body := e.do(t, tc.method, tc.path(e), auth, tc.body, tc.header...)
				if resp.StatusCode != tc.want {
					t.Fatalf("%s: %d %q, want %d", tc.name, resp.StatusCode, body, tc.want)
				}
				if tc.check != nil {
					tc.check(t, e, resp, body)
				}
			})
		})
	}
}

// TestPassFollowsTouch: a device holding the pass gets 304 until the booking changes; after
// the change its serials list the pass, Last-Modified moves on and the old date gets 200.
func TestPassFollowsTouch(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		e := newEnv(t, db)
		e.register(t)
		resp, _ := e.do(t, "GET", e.passURL(), e.auth(), "")
		first := resp.Header.Get("Last-Modified")
		_, body := e.do(t, "GET", e.updated(""), "", "")
		var list struct {
			LastUpdated string `json:"lastUpdated"`
		}
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatal(err)
		}
		if resp, _ := e.do(t, "GET", e.passURL(), e.auth(), "", "If-Modified-Since", first); resp.StatusCode != 304 {
			t.Fatalf("unchanged pass: %d, want 304", resp.StatusCode)
		}
		if _, err := e.store.Touch(context.Background(), "0001", 100002, time.Now()); err != nil {
			t.Fatal(err)
		}
		if resp, body := e.do(t, "GET", e.updated(list.LastUpdated), "", ""); resp.StatusCode != 200 || !strings.Contains(body, e.pass.Serial) {
			t.Fatalf("serials after the change: %d %s", resp.StatusCode, body)
		}
		resp, _ = e.do(t, "GET", e.passURL(), e.auth(), "", "If-Modified-Since", first)
		if resp.StatusCode != 200 || resp.Header.Get("Last-Modified") == first {
			t.Fatalf("changed pass: %d, Last-Modified %q (was %q); want 200 and a later date", resp.StatusCode, resp.Header.Get("Last-Modified"), first)
		}
	})
}
