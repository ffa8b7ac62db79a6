package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// cheapHashing keeps the test runs' password hashing fast.
var cheapHashing = []string{"-argon2-memory", "1", "-argon2-time", "1", "-argon2-threads", "1"}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signInAt signs in at a running site and returns the answer's status (303: signed in).
func signInAt(t *testing.T, base, username, password string) int {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/staff/sign-in")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("no CSRF token on the sign-in page: %s", b)
	}
	resp, err = c.PostForm(base+"/staff/sign-in", url.Values{"_csrf": {m[1]}, "username": {username}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDemoAccountsOnlyInDemoMode: with a configured database (PostgreSQL here) the
// demo accounts are never created, and one left there with its published password is disabled
// with a warning; in demo mode (embedded sandbox, default SQLite) both exist.
func TestDemoAccountsOnlyInDemoMode(t *testing.T) {
	t.Run("configured PostgreSQL", func(t *testing.T) {
		pg := testenv.PostgresURL(t)
		ctx := context.Background()
		db, err := storage.Open(ctx, pg)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		// What earlier versions wrote into any database the embedded sandbox ran with.
		if err := staffaccounts.New(db.SQL).Put(ctx, demoStaffUser, "Demo box office", demoStaffPassword); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json", "-database-url", pg}, cheapHashing...)
		base, printed, stop := startRun(t, args...)
		defer stop()
		if strings.Contains(printed, demoStaffPassword) || strings.Contains(printed, demoSupervisorPassword) {
			t.Errorf("the banner shows demo passwords with a configured database:\n%s", printed)
		}
		if !strings.Contains(printed, "demo staff account with its published password found outside demo mode: disabled") || !strings.Contains(printed, `"user":"counter"`) {
			t.Errorf("no warning about the disabled demo account:\n%s", printed)
		}
		if got := signInAt(t, base, demoStaffUser, demoStaffPassword); got != http.StatusUnauthorized {
			t.Fatalf("counter / counter-demo-2026 on PostgreSQL: %d, want 401", got)
		}
		if got := signInAt(t, base, demoSupervisorUser, demoSupervisorPassword); got != http.StatusUnauthorized {
			t.Fatalf("supervisor demo account on PostgreSQL: %d, want 401", got)
		}
		st := staffaccounts.New(db.SQL)
		if a, err := st.Get(ctx, demoStaffUser); err != nil || !a.Disabled {
			t.Fatalf("the demo row: %+v %v, want disabled", a, err)
		}
		if _, err := st.Get(ctx, demoSupervisorUser); err != staffaccounts.ErrNotFound {
			t.Fatalf("a demo supervisor was created in PostgreSQL: %v", err)
		}
	})
	t.Run("another SQLite file", func(t *testing.T) {
		dir := t.TempDir()
		args := append([]string{"-addr", "127.0.0.1:0", "-data-dir", dir, "-log-format", "json", "-database-url", "sqlite:" + filepath.Join(dir, "other.db")}, cheapHashing...)
		base, printed, stop := startRun(t, args...)
		defer stop()
		if strings.Contains(printed, demoStaffPassword) {
			t.Errorf("the banner shows the demo password with a configured database:\n%s", printed)
		}
		if got := signInAt(t, base, demoStaffUser, demoStaffPassword); got != http.StatusUnauthorized {
			t.Fatalf("counter / counter-demo-2026 with a configured SQLite file: %d, want 401", got)
		}
	})
	t.Run("demo mode", func(t *testing.T) {
		args := append([]string{"-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json"}, cheapHashing...)
		base, printed, stop := startRun(t, args...)
		defer stop()
		for _, want := range []string{demoStaffUser + " / " + demoStaffPassword, demoSupervisorUser + " / " + demoSupervisorPassword, "PIN " + demoSupervisorPIN} {
			if !strings.Contains(printed, want) {
				t.Errorf("the start banner lacks %q:\n%s", want, printed)
			}
		}
		for _, a := range [][2]string{{demoStaffUser, demoStaffPassword}, {demoSupervisorUser, demoSupervisorPassword}} {
			if got := signInAt(t, base, a[0], a[1]); got != http.StatusSeeOther {
				t.Fatalf("%s in demo mode: %d, want 303", a[0], got)
			}
		}
	})
}

// TestStaffCommand creates a supervisor with a PIN from the environment and a clerk with the
// password on standard input, and refuses what cannot be stored.
func TestStaffCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env := map[string]string{"CINEMA_STAFF_PASSWORD": "correct horse battery", "CINEMA_STAFF_PIN": "246802", "CINEMA_ARGON2_MEMORY": "1", "CINEMA_ARGON2_TIME": "1"}
	getenv := func(k string) string { return env[k] }
	var out strings.Builder
	if err := runStaff(ctx, []string{"-data-dir", dir, "-username", "Anna", "-name", "Anna Box", "-role", "supervisor", "-pin-from-env"}, getenv, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `staff account "anna" saved (Supervisor)`) {
		t.Fatalf("output %q", out.String())
	}
	delete(env, "CINEMA_STAFF_PASSWORD")
	if err := runStaff(ctx, []string{"-data-dir", dir, "-username", "bob", "-name", "Bob", "-role", "supervisor", "-pin"}, getenv,
		strings.NewReader("another good password\n1357911\n"), io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := runStaff(ctx, []string{"-data-dir", dir, "-username", "carl", "-name", "Carl"}, getenv, strings.NewReader("a third password\n"), io.Discard); err != nil {
		t.Fatal(err)
	}
	refused := [][]string{
		{"-data-dir", dir, "-username", "dora", "-name", "Dora", "-role", "boss"},
		{"-data-dir", dir, "-username", "dora", "-name", "Dora", "-pin-from-env"}, // a clerk with a PIN
		{"-data-dir", dir, "-username", "dora"},
	}
	for _, args := range refused {
		if err := runStaff(ctx, args, getenv, strings.NewReader("a fine password\n"), io.Discard); err == nil {
			t.Errorf("runStaff(%q) accepted", args)
		}
	}
	for _, pin := range []string{"12ab56", "2468", "24680"} { // letters; fewer than 6 digits
		env["CINEMA_STAFF_PIN"] = pin
		if err := runStaff(ctx, []string{"-data-dir", dir, "-username", "dora", "-name", "Dora", "-role", "supervisor", "-pin-from-env"}, getenv,
			strings.NewReader("a fine password\n"), io.Discard); err == nil {
			t.Errorf("PIN %q accepted", pin)
		}
	}

	db, err := storage.Open(ctx, defaultDatabaseURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := staffaccounts.New(db.SQL)
	cases := []struct {
		user, pin string
		err       error
	}{
		{"anna", "246802", nil},
		{"bob", "1357911", nil},
		{"carl", "123456", staffaccounts.ErrNotSupervisor},
	}
	for _, tc := range cases {
		if _, err := st.Approve(ctx, tc.user, tc.pin); err != tc.err {
			t.Errorf("Approve(%s) = %v, want %v", tc.user, err, tc.err)
		}
	}
	if _, err := st.Authenticate(ctx, "carl", "a third password", "127.0.0.1"); err != nil {
		t.Errorf("carl: %v", err)
	}
}

// TestLimitStoreFollowsTheSessionStore: Redis sessions put the rate limits and the admission
// line in Redis too, other deployments the limits in the database and the line in the process.
func TestLimitStoreFollowsTheSessionStore(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, line, closeStore, err := newLimitStore(ctx, Config{SessionStore: "sqlite"}, db)
	if _, ok := st.(*ratelimit.SQL); err != nil || !ok || line != nil {
		t.Fatalf("sqlite sessions: %T %T %v", st, line, err)
	}
	closeStore()
	st, line, closeStore, err = newLimitStore(ctx, Config{SessionStore: "redis", RedisURL: testenv.RedisURL(t)}, db)
	if _, ok := st.(*ratelimit.Redis); err != nil || !ok {
		t.Fatalf("redis sessions: %T %v", st, err)
	}
	if _, ok := line.(*admission.Redis); !ok {
		t.Fatalf("redis sessions: the admission line is %T", line)
	}
	if ok, _, err := st.Take(ctx, "cmd-web-test", ratelimit.Rule{Burst: 1, Every: time.Millisecond}); !ok || err != nil {
		t.Fatalf("Take on Redis: %v %v", ok, err)
	}
	closeStore()
}
