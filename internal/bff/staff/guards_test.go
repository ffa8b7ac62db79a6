package staff_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// Who may reach each guarded route. A route under /staff that is missing here fails the test,
// so a new staff page is given a guard on purpose.
var guardedRoutes = map[string]string{
	"GET /staff/attention":                        "staff",
	"POST /staff/attention/:kind/:ref/retry":      "staff",
	"POST /staff/attention/:kind/:ref/resolve":    "staff",
	"GET /staff/next-customer":                    "staff",
	"POST /staff/next-customer":                   "staff",
	"GET /staff/queue":                            "staff",
	"POST /staff/queue":                           "supervisor",
	"GET /staff/audit":                            "supervisor",
	"GET /staff/accounts":                         "supervisor",
	"POST /staff/accounts/:username/end-sessions": "supervisor",
	"POST /staff/accounts/:username/unlock":       "supervisor",
	"GET /staff/devices":                          "supervisor",
	"POST /staff/devices/:id/revoke":              "supervisor",
	"POST /staff/devices/:id/language":            "supervisor",
	"POST /device":                                "supervisor",
	"GET /booking/edit/counter-payment":           "counter",
	"POST /booking/edit/counter-payment":          "counter",
	"GET /checkout/counter-payment":               "counter",
	"POST /checkout/counter-payment":              "counter",
	"POST /booking/edit/refund/:entry/given-back": "counter",
}

// openStaffRoutes are the routes under /staff anybody may reach.
var openStaffRoutes = []string{"GET /staff/sign-in", "POST /staff/sign-in", "POST /staff/sign-out"}

var routeParam = regexp.MustCompile(`:[a-z]+`)

// TestStaffRoutesAreGuarded: every route under /staff but signing in and out, the
// counter's payment routes and the device enrolment are guarded where they are registered. An
// anonymous visitor is refused all of them; a clerk in an ordinary browser reaches the staff
// pages but not the supervisors' nor the counter's; a supervisor in an ordinary browser reaches
// the supervisors' pages but not the counter's. A refusal is the guard's 403 page.
func TestStaffRoutesAreGuarded(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.AddSupervisor(bfftest.TestSupervisor, bfftest.TestSupervisorName, bfftest.TestSupervisorPassword)
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")

	var routes []string
	for _, r := range h.Srv.Echo.Routes() {
		key := r.Method + " " + r.Path
		_, guarded := guardedRoutes[key]
		if strings.HasPrefix(r.Path, "/staff/") && !guarded && !slices.Contains(openStaffRoutes, key) {
			t.Errorf("route %s has no entry in guardedRoutes: say who may reach it", key)
		}
		if guarded && !slices.Contains(routes, key) {
			routes = append(routes, key)
		}
	}
	if len(routes) != len(guardedRoutes) {
		t.Fatalf("registered guarded routes %v, want the %d of guardedRoutes", routes, len(guardedRoutes))
	}
	slices.Sort(routes)

	call := func(who *bfftest.Harness, key string) int {
		t.Helper()
		method, path, _ := strings.Cut(key, " ")
		path = routeParam.ReplaceAllString(path, "x")
		if method == http.MethodGet {
			resp, _ := who.Get(path)
			return resp.StatusCode
		}
		resp, _ := who.Post(path, "/staff/sign-in", nil)
		return resp.StatusCode
	}
	visitors := []struct {
		name    string
		signIn  func(*bfftest.Harness)
		reaches map[string]bool
	}{
		{"anonymous", func(*bfftest.Harness) {}, map[string]bool{}},
		{"clerk", func(b *bfftest.Harness) { b.SignInAs("carl", "clerk horse battery") }, map[string]bool{"staff": true}},
		{"supervisor", func(b *bfftest.Harness) { b.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword) },
			map[string]bool{"staff": true, "supervisor": true}},
	}
	for _, v := range visitors {
		for _, key := range routes {
			b := h.Browser() // a fresh visit per route: next-customer or sign-out must not end the next check's
			v.signIn(b)
			got := call(b, key)
			want := v.reaches[guardedRoutes[key]]
			if reached := got != http.StatusForbidden; reached != want {
				t.Errorf("%s: %s answered %d; want reached=%v (%s only)", v.name, key, got, want, guardedRoutes[key])
			}
		}
	}
}
