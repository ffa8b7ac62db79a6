package checkout_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/redis/go-redis/v9"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

const ticketStep = "/whats-on/0001/1113"

// lineAnswer is what a visitor starting a purchase was shown: the ticket step (place 0) or the
// queue page with its place.
func lineAnswer(t *testing.T, v *bfftest.Harness, who string) (place int, doc *goquery.Document) {
	t.Helper()
	resp, body := v.Get(ticketStep)
	doc = v.Doc(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d, want 200 (the ticket step or the queue page): %s", who, resp.StatusCode, bfftest.Squash(doc.Find("main").Text()))
	}
	if doc.Find(`input[name="qty-0001"]`).Length() > 0 {
		return 0, doc
	}
	if doc.Find(`[data-testid="line-page"]`).Length() != 1 {
		t.Fatalf("%s: neither the ticket step nor the queue page: %s", who, bfftest.Squash(doc.Find("main").Text()))
	}
	place, err := strconv.Atoi(strings.TrimSpace(doc.Find(`[data-testid="line-place"]`).Text()))
	if err != nil {
		t.Fatalf("%s: queue page without a place: %s", who, bfftest.Squash(doc.Find("main").Text()))
	}
	return place, doc
}

func queueHarness(t *testing.T, clock *testclock.Clock, configure func(*bff.Config)) *bfftest.Harness {
	return bfftest.HoldHarness(t, bfftest.HarnessOpts{Now: clock.Now, MaxOrdersPerClient: 10, Configure: configure})
}

// TestQueueInFrontOfThePurchase: at 60 purchases a minute, 30 new visitors (no JavaScript, each
// its own client) starting a purchase get the ticket step (the burst of 2) or a queue page with
// unique places in their order of arrival, never an error; only the admitted start orders at
// the ticketing system. A reload, a second tab and a second visit of the same client keep the
// place; finding a booking and What's on are not queued; the page refreshes itself; when the
// clock moves the first in line goes straight on to the ticket step and buys.
func TestQueueInFrontOfThePurchase(t *testing.T) {
	clock := testclock.New(time.Now())
	h := queueHarness(t, clock, func(c *bff.Config) { c.AdmitPerMinute = 60 })
	visitors := make([]*bfftest.Harness, 30)
	for i := range visitors {
		visitors[i] = h.Visitor(fmt.Sprintf("10.1.0.%d", i+1))
		place, _ := lineAnswer(t, visitors[i], fmt.Sprintf("visitor %d", i))
		want := max(0, i-1)
		if place != want {
			t.Fatalf("visitor %d: place %d, want %d (the first two straight to the ticket step)", i, place, want)
		}
	}
	for i, v := range visitors {
		resp, body := v.ChooseQty(qty(1, 0))
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("visitor %d choosing tickets: %d", i, resp.StatusCode)
		}
		if i < 2 {
			bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
		} else if v.Doc(body).Find(`[data-testid="line-page"]`).Length() != 1 {
			t.Fatalf("visitor %d in line chose tickets: %d %s", i, resp.StatusCode, body)
		}
	}
	if n := h.SB.Calls("AddTickets"); n != 2 {
		t.Fatalf("%d orders started at the ticketing system, want the 2 admitted", n)
	}

	fifth := visitors[5]
	_, page := fifth.Get(ticketStep)
	refresh := refreshMeta.FindStringSubmatch(page)
	if refresh == nil || mustAtoi(t, refresh[1]) > 15 {
		t.Fatalf("queue page without a refresh within 15 s: %s", page)
	}
	if place, _ := lineAnswer(t, fifth, "a reload"); place != 4 {
		t.Fatalf("after a reload: place %d, want 4", place)
	}
	sameClient := h.Visitor("10.1.0.6") // another visit (its own cookies) of the fifth's client
	if place, _ := lineAnswer(t, sameClient, "a second visit of a client"); place != 4 {
		t.Fatalf("a second visit of the same client: place %d, want the same 4", place)
	}
	// Finding a booking and What's on are never queued.
	if doc := fifth.Find(100002); doc.Find(`[data-testid="line-page"]`).Length() != 0 || !strings.Contains(doc.Text(), "100002") {
		t.Fatalf("finding booking 100002 while in line: %s", bfftest.Squash(doc.Find("main").Text()))
	}
	if resp, body := fifth.Get("/whats-on"); resp.StatusCode != http.StatusOK || strings.Contains(body, `data-testid="line-page"`) {
		t.Fatalf("What's on while in line: %d", resp.StatusCode)
	}

	// With JavaScript the page asks for its status part; when it is the visitor's turn the
	// whole page is reloaded into the ticket step.
	poll := http.Header{"Hx-Request": {"true"}}
	first := visitors[2]
	resp, body := first.Do("GET", ticketStep+"?line=poll", nil, poll)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="line-status"`) || strings.Contains(body, "<html") {
		t.Fatalf("poll in line: %d %s", resp.StatusCode, body)
	}
	clock.Advance(time.Second)
	resp, _ = first.Do("GET", ticketStep+"?line=poll", nil, poll)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("HX-Refresh") != "true" {
		t.Fatalf("poll at its turn: %d HX-Refresh=%q", resp.StatusCode, resp.Header.Get("HX-Refresh"))
	}
	if place, _ := lineAnswer(t, first, "the first in line at its turn"); place != 0 {
		t.Fatalf("the first in line after a second: place %d, want the ticket step", place)
	}
	resp, body = first.ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	if place, _ := lineAnswer(t, fifth, "after one was let in"); place != 3 {
		t.Fatalf("after the first in line was let in: place %d, want 3", place)
	}
}

// TestLeavingTheLine: the leave button (a form with the CSRF token) gives the place up and those
// behind move up; without the token nothing changes.
func TestLeavingTheLine(t *testing.T) {
	clock := testclock.New(time.Now())
	h := queueHarness(t, clock, func(c *bff.Config) { c.AdmitActive = 1 })
	var visitors []*bfftest.Harness
	for i := range 4 {
		v := h.Visitor(fmt.Sprintf("10.2.0.%d", i+1))
		visitors = append(visitors, v)
		if place, _ := lineAnswer(t, v, fmt.Sprint("visitor ", i)); place != i {
			t.Fatalf("visitor %d: place %d, want %d", i, place, i)
		}
	}
	leave := "/whats-on/0001/1113/leave"
	if resp, _ := visitors[1].Do("POST", leave, url.Values{}, nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("leaving without the CSRF token: %d, want 403", resp.StatusCode)
	}
	resp, body := visitors[1].Post(leave, ticketStep, nil)
	bfftest.ExpectRedirect(t, resp, body, "/whats-on?cinema=0001")
	if place, _ := lineAnswer(t, visitors[3], "behind the one who left"); place != 2 {
		t.Fatalf("after the first in line left: place %d, want 2", place)
	}
	// The purchase of the admitted visitor ends (cancelled): the next in line goes in.
	resp, body = visitors[0].ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	visitors[0].Post("/checkout/cancel", "/checkout/cancel", url.Values{"confirm": {"yes"}})
	if place, _ := lineAnswer(t, visitors[2], "after a purchase ended"); place != 0 {
		t.Fatalf("after the open purchase was cancelled: place %d, want the ticket step", place)
	}
}

// TestStaffAndKiosksAreNotQueued: a clerk signed in and a kiosk (no one signed in) start a sale
// at once while the line is long.
func TestStaffAndKiosksAreNotQueued(t *testing.T) {
	clock := testclock.New(time.Now())
	h := queueHarness(t, clock, func(c *bff.Config) { c.AdmitActive = 1 })
	for i := range 3 {
		lineAnswer(t, h.Visitor(fmt.Sprintf("10.3.0.%d", i+1)), "a customer")
	}
	clerk := h.Visitor("10.3.0.99")
	bfftest.SignInStaff(t, clerk)
	if place, _ := lineAnswer(t, clerk, "a clerk"); place != 0 {
		t.Fatalf("a signed-in clerk was queued at place %d", place)
	}
	kiosk := h.Visitor("10.3.0.98")
	kiosk.Enrol(device.Kiosk)
	if place, _ := lineAnswer(t, kiosk, "a kiosk"); place != 0 {
		t.Fatalf("a kiosk was queued at place %d", place)
	}
	if place, _ := lineAnswer(t, h.Visitor("10.3.0.97"), "a customer after them"); place != 3 {
		t.Fatalf("a customer after the clerk and the kiosk: place %d, want 3 (they took none)", place)
	}
}

// TestSalesOpeningCountdown: before a showtime's sales open the purchase shows a countdown in
// the visitor's language; at the opening the visitor goes on.
func TestSalesOpeningCountdown(t *testing.T) {
	clock := testclock.New(time.Now())
	opens := clock.Now().Add(30 * time.Second)
	h := queueHarness(t, clock, func(c *bff.Config) { c.SalesOpen = map[string]time.Time{"1113": opens} })
	v := h.Visitor("10.4.0.1")
	resp, body := v.Do("GET", ticketStep, nil, acceptGerman)
	doc := v.Doc(body)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="opens"]`).Length() != 1 {
		t.Fatalf("before the opening: %d %s", resp.StatusCode, bfftest.Squash(doc.Find("main").Text()))
	}
	bfftest.InGerman(t, doc, "the countdown")
	bfftest.WantContains(t, doc, `[data-testid="opens-in"]`, "30 Sekunden")
	clock.Advance(30 * time.Second)
	if place, _ := lineAnswer(t, v, "at the opening"); place != 0 {
		t.Fatalf("at the opening with no limits: place %d, want the ticket step", place)
	}
}

// refreshMeta is the page's own refresh without JavaScript (inside <noscript>, which the HTML
// parser reads as text).
var refreshMeta = regexp.MustCompile(`<noscript><meta http-equiv="refresh" content="(\d+)"`)

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatalf("%q is no number", s)
	}
	return n
}

// TestOneLineForTwoReplicas: two replicas of the site whose lines are in one Redis; 20 new
// visitors alternate between them: the site's burst of 2 goes straight in (not 2 per replica),
// every other visitor gets a place, unique across both and in order of arrival, and asking the
// other replica keeps it.
func TestOneLineForTwoReplicas(t *testing.T) {
	clock := testclock.New(time.Now())
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	prefix := fmt.Sprintf("test:queue:%d:", time.Now().UnixNano())
	t.Cleanup(func() {
		if keys, _ := client.Keys(context.Background(), prefix+"*").Result(); len(keys) > 0 {
			client.Del(context.Background(), keys...)
		}
		client.Close()
	})
	limits := admission.Limits{PerMinute: 60}
	replica := func() *bfftest.Harness {
		return bfftest.HoldHarness(t, bfftest.HarnessOpts{Now: clock.Now, Configure: func(c *bff.Config) { c.AdmitPerMinute = limits.PerMinute },
			Admission: admission.NewRedis(client, prefix, admission.Options{Limits: limits, Now: clock.Now})})
	}
	replicas := []*bfftest.Harness{replica(), replica()}
	places := map[string]int{}
	for i := range 20 {
		addr := fmt.Sprintf("10.5.0.%d", i+1)
		place, _ := lineAnswer(t, replicas[i%2].Visitor(addr), "visitor "+addr)
		if want := max(0, i-1); place != want {
			t.Fatalf("visitor %d through replica %d: place %d, want %d", i, i%2, place, want)
		}
		places[addr] = place
	}
	for addr, place := range places {
		if place == 0 {
			continue
		}
		i := mustAtoi(t, strings.TrimPrefix(addr, "10.5.0.")) - 1
		if got, _ := lineAnswer(t, replicas[(i+1)%2].Visitor(addr), "the other replica"); got != place {
			t.Fatalf("%s: place %d on one replica, %d on the other", addr, place, got)
		}
	}
}

// TestQueueMetrics: /metrics counts the admissions with their waits and shows the line's
// length.
func TestQueueMetrics(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{Now: clock.Now, MetricsToken: "scrape", Configure: func(c *bff.Config) { c.AdmitPerMinute = 60 }})
	for i := range 5 {
		lineAnswer(t, h.Visitor(fmt.Sprintf("10.6.0.%d", i+1)), "a visitor")
	}
	clock.Advance(time.Second)
	lineAnswer(t, h.Visitor("10.6.0.3"), "the first in line, a second later")
	_, body := h.Do("GET", "/metrics", nil, http.Header{"Authorization": {"Bearer scrape"}})
	for _, want := range []string{"admission_admitted_total 3", "admission_line_waiting 2", "admission_purchases_open 3",
		"admission_wait_seconds_count 3", "admission_wait_seconds_sum 1", `admission_wait_seconds_bucket{le="1"} 3`} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestSalesOpeningOrderThroughTheSite: ten visitors who came before the opening get places at
// the opening in an order that is not their order of arrival; three who come after it get the
// places behind all of them, in their order.
func TestSalesOpeningOrderThroughTheSite(t *testing.T) {
	clock := testclock.New(time.Now())
	opens := clock.Now().Add(30 * time.Second)
	h := queueHarness(t, clock, func(c *bff.Config) {
		c.SalesOpen, c.AdmitActive = map[string]time.Time{"1113": opens}, 1
	})
	var early []*bfftest.Harness
	for i := range 10 {
		v := h.Visitor(fmt.Sprintf("10.8.0.%d", i+1))
		if _, body := v.Get(ticketStep); !strings.Contains(body, `data-testid="opens"`) {
			t.Fatalf("early visitor %d: no countdown", i)
		}
		early = append(early, v)
	}
	clock.Set(opens)
	var places []int
	for i, v := range early {
		place, _ := lineAnswer(t, v, fmt.Sprint("early visitor ", i))
		places = append(places, place)
	}
	if slices.IsSorted(places) {
		t.Fatalf("early visitors placed in their order of arrival: %v", places)
	}
	if sorted := slices.Sorted(slices.Values(places)); !slices.Equal(sorted, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("early visitors' places %v, want 0 (let in) to 9, each once", places)
	}
	for i := range 3 {
		if place, _ := lineAnswer(t, h.Visitor(fmt.Sprintf("10.8.1.%d", i+1)), "a late visitor"); place != 10+i {
			t.Fatalf("late visitor %d: place %d, want %d", i, place, 10+i)
		}
	}
}

// TestAnotherShowtimesPurchaseEndsTheFirstsAdmission: a visitor let in for one showtime who
// starts a purchase for another (the first order released) gives the first admission's room
// up at once, not a hold lifetime later: the next visitor goes in.
func TestAnotherShowtimesPurchaseEndsTheFirstsAdmission(t *testing.T) {
	clock := testclock.New(time.Now())
	h := queueHarness(t, clock, func(c *bff.Config) { c.AdmitActive = 2 })
	first := h.Visitor("10.2.1.1")
	if place, _ := lineAnswer(t, first, "the first visitor"); place != 0 {
		t.Fatalf("the first visitor: place %d, want the ticket step", place)
	}
	resp, body := first.ChooseQty(qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	other := "/whats-on/0001/1112"
	resp, body = first.Post(other, other, qty(1, 0))
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	if place, _ := lineAnswer(t, h.Visitor("10.2.1.2"), "the next visitor"); place != 0 {
		t.Fatalf("the next visitor while the first holds one purchase: place %d, want the ticket step", place)
	}
}
