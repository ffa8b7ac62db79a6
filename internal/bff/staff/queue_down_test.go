package staff_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

var errLineDown = errors.New("redis: connection refused")

// downLine is an admission line that does not answer (its Redis is down).
type downLine struct{}

func (downLine) Enter(context.Context, string, time.Time, admission.Visitor) (admission.Status, error) {
	return admission.Status{}, errLineDown
}
func (downLine) Leave(context.Context, string, admission.Visitor) error { return errLineDown }
func (downLine) Lines(context.Context) ([]admission.Line, error)        { return nil, errLineDown }
func (downLine) SetLimits(context.Context, admission.Limits, time.Time) error {
	return errLineDown
}
func (downLine) Limits(context.Context) (admission.Limits, error) {
	return admission.Limits{}, errLineDown
}
func (downLine) Totals(context.Context) (admission.Line, error) { return admission.Line{}, errLineDown }

// TestTheLineDownIsSaidNotAnError: with the line's Redis down, a customer goes straight to the
// tickets and can still leave the line; the staff's line page says the line cannot be read
// and that customers are let in meanwhile, and a supervisor's change is refused in words,
// never an error page; /metrics still answers, without the line's gauges.
func TestTheLineDownIsSaidNotAnError(t *testing.T) {
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{Admission: downLine{}, MetricsToken: "scrape",
		Configure: func(c *bff.Config) { c.AdmitPerMinute = 60 }})
	v := h.Visitor("10.7.1.1")
	if resp, body := v.Get("/whats-on/0001/1113"); resp.StatusCode != http.StatusOK || strings.Contains(body, `data-testid="line-page"`) {
		t.Fatalf("the ticket step with the line down: %d, line page %v", resp.StatusCode, strings.Contains(body, `data-testid="line-page"`))
	}
	resp, body := v.Post("/whats-on/0001/1113/leave", "/whats-on/0001/1113", nil)
	bfftest.ExpectRedirect(t, resp, body, "/whats-on?cinema=0001")

	sup := h.FreshBrowser()
	sup.SignInSupervisor()
	resp, body = sup.Get("/staff/queue")
	doc := sup.Doc(body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(doc.Find(`[data-testid="notice-error"]`).Text(), "customers go straight to their tickets") {
		t.Fatalf("the line page with the line down: %d %s", resp.StatusCode, bfftest.Squash(doc.Find("main").Text()))
	}
	if doc.Find(`[data-testid="queue-limits-form"], [data-testid="queue-limits"]`).Length() != 0 {
		t.Error("limits shown that could not be read")
	}
	resp, body = sup.Post("/staff/queue", "/staff/attention", url.Values{"per_minute": {"600"}, "active": {"0"}})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "The limits were not changed") {
		t.Fatalf("changing the limits with the line down: %d %s", resp.StatusCode, bfftest.Squash(sup.Doc(body).Find("main").Text()))
	}
	resp, body = h.Do("GET", "/metrics", nil, http.Header{"Authorization": {"Bearer scrape"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "http_requests_total") || strings.Contains(body, "admission_line_waiting") {
		t.Fatalf("metrics with the line down: %d, requests counted %v, line gauges %v", resp.StatusCode,
			strings.Contains(body, "http_requests_total"), strings.Contains(body, "admission_line_waiting"))
	}
}
