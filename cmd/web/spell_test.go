package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// TestSiteStartedInASlowSpellRecovers: the service starts while every call of the ticketing
// system takes 10 s (it cannot even list the cinemas), a visitor meets the slow page, and once
// the spell ends the very first look-up of booking 100002 answers with the booking: nothing
// begun during the spell (the start's cinema list, the visitor's reads) is waited on.
func TestSiteStartedInASlowSpellRecovers(t *testing.T) {
	up, _, sb := startSandboxServer(t)
	sb.Faults().Set(sandbox.Fault{Operation: "*", Latency: sandbox.Duration(10 * time.Second)})
	base, _, stop := startRun(t, "-addr", "127.0.0.1:0", "-data-dir", t.TempDir(), "-log-format", "json",
		"-upstream-url", up, "-upstream-token", checkToken, "-payments-url", up)
	defer stop()

	visitor := newVisitor(t)
	if status, _ := visitor.get(t, base+"/booking"); status != http.StatusServiceUnavailable {
		t.Fatalf("find page during the spell: status %d, want the slow page (503)", status)
	}
	sb.Faults().Clear()

	after := newVisitor(t)
	start := time.Now()
	status, page := after.lookUp(t, base, "100002", "paid2@example.com")
	took := time.Since(start)
	if status != http.StatusOK || !strings.Contains(page, "100002") {
		t.Fatalf("first look-up after the spell: status %d after %v, want 200 with booking 100002:\n%s", status, took, page)
	}
	// The read budget is 1.5 s: a look-up that joined a read of the spell would have hit it.
	if took > 1400*time.Millisecond {
		t.Errorf("first look-up after the spell took %v", took)
	}
}

// visitor is a browser with its own cookies that does not follow redirects.
type visitor struct{ c *http.Client }

func newVisitor(t *testing.T) *visitor {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &visitor{c: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (v *visitor) get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := v.c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// lookUp finds a booking as a customer does (the find page, then its form) and returns the
// booking page.
func (v *visitor) lookUp(t *testing.T, base, number, email string) (int, string) {
	t.Helper()
	status, page := v.get(t, base+"/booking")
	m := csrfField.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil {
		return status, page
	}
	resp, err := v.c.PostForm(base+"/booking", url.Values{"_csrf": {m[1]}, "cinema": {"0001"}, "number": {number}, "email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return resp.StatusCode, string(b)
	}
	return v.get(t, base+resp.Header.Get("Location"))
}
