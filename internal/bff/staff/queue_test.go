package staff_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// TestStaffSeeTheLineAndASupervisorChangesItsRate: staff see each showtime's line; a clerk
// cannot change the limits, a supervisor can, until the end of the day; the change lets the
// line in at once.
func TestStaffSeeTheLineAndASupervisorChangesItsRate(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{Now: clock.Now, MaxOrdersPerClient: 10, Configure: func(c *bff.Config) { c.AdmitPerMinute = 1 }})
	var visitors []*bfftest.Harness
	for i := range 4 {
		v := h.Visitor(fmt.Sprintf("10.7.0.%d", i+1))
		v.Get("/whats-on/0001/1113")
		visitors = append(visitors, v)
	}
	clerk := h.FreshBrowser()
	clerk.SignInStaff("carl", "Carl Clerk")
	_, body := clerk.Get("/staff/queue")
	doc := clerk.Doc(body)
	if got := strings.TrimSpace(doc.Find(`[data-testid="queue-line"][data-show="0001-1113"] [data-testid="queue-waiting"]`).Text()); got != "3" {
		t.Fatalf("waiting for 0001-1113: %q, want 3: %s", got, bfftest.Squash(doc.Find("main").Text()))
	}
	if doc.Find(`[data-testid="queue-limits-form"]`).Length() != 0 {
		t.Fatal("a clerk is offered the limits form")
	}
	if resp, _ := clerk.Post("/staff/queue", "/staff/queue", url.Values{"per_minute": {"600"}, "active": {"0"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a clerk changing the limits: %d, want 403", resp.StatusCode)
	}

	sup := h.FreshBrowser()
	sup.SignInSupervisor()
	if _, body := sup.Get("/staff/attention"); sup.Doc(body).Find(`nav a[href="/staff/queue"]`).Length() == 0 {
		t.Error("a supervisor's navigation has no link to the waiting line")
	}
	if resp, body := sup.Post("/staff/queue", "/staff/queue", url.Values{"per_minute": {"-3"}, "active": {"0"}}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("negative limits: %d %s", resp.StatusCode, body)
	}
	resp, body := sup.Post("/staff/queue", "/staff/queue", url.Values{"per_minute": {"600"}, "active": {"0"}})
	bfftest.ExpectRedirect(t, resp, body, "/staff/queue")
	_, body = sup.Get("/staff/queue")
	bfftest.WantContains(t, sup.Doc(body), `[data-testid="queue-limits"]`, "600 new purchases a minute")
	clock.Advance(time.Second) // 600 a minute: 10 a second
	for i, v := range visitors[1:] {
		if _, body := v.Get("/whats-on/0001/1113"); strings.Contains(body, `data-testid="line-page"`) {
			t.Fatalf("visitor %d still in line at 600 a minute", i+1)
		}
	}
}
