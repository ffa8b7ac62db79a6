package checkout_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// A release-day rush: 300 new visitors within 5 s at 120 purchases a minute.
const (
	rushVisitors  = 300
	rushPerMinute = 120
	rushGap       = 16 * time.Millisecond // 300 arrivals in 4.8 s of clock time
	rushBurst     = rushPerMinute / 30    // the line's burst: two seconds' worth of the rate
	rushStep      = time.Second           // the clock between two rounds of reloads
	rushWindow    = 10 * time.Second
	rushMaxStarts = 24 // per window: the rate's 20 and the burst
)

// rush is the 300 visitors' purchases of one showtime through the site with a test clock.
type rush struct {
	t        *testing.T
	h        *bfftest.Harness
	clock    *testclock.Clock
	start    time.Time
	visitors []*bfftest.Harness
	in       []bool          // by arrival: has reached the ticket step and started the purchase
	order    []int           // arrival numbers in the order the visitors reached the ticket step
	starts   []time.Duration // clock times (since the first arrival) of the orders started upstream
	due      []time.Duration // by arrival: when the visitor's queue page reloads itself
}

// TestThreeHundredVisitorsInFiveSeconds: at 120 purchases a minute, 300 new visitors (no
// JavaScript, each its own client) start a purchase of the same showtime within 5 s of clock
// time, one every 16 ms. No answer is a 5xx or a 429 (lineAnswer wants 200 throughout); the
// burst goes straight to the ticket step, every other visitor gets a queue page; a reload and a
// second tab keep the place and take no second one; once all have come, the places are 1, 2, 3…
// in order of arrival. Then each waiting visitor reloads when its page's own refresh comes due
// (as a browser without JavaScript does), and every 10 s all of them reload at once to check
// the places are still 1, 2, 3… in order of arrival: each is let in in its turn, goes on to the
// ticket step and chooses a ticket with nothing typed again; over any 10 s of clock time at
// most 24 orders start at the ticketing system (counted at the sandbox), and the visitors are
// let in at the rate (at least 90 % of it: a turn is not lost because nobody asked just then).
func TestThreeHundredVisitorsInFiveSeconds(t *testing.T) {
	clock := testclock.New(time.Now())
	// Each visitor is its own client, so the limit of open orders per client is never reached.
	// Showtime 1113's standard area cannot take 300 single adults (its seating rules leave
	// gaps): every fourth visitor takes a premium seat (rushTicket), so all 300 purchases start.
	h := queueHarness(t, clock, func(c *bff.Config) { c.AdmitPerMinute = rushPerMinute })
	if free := h.FreeSeats(t); free < rushVisitors {
		t.Fatalf("showtime 1113 has %d free seats, fewer than the %d visitors' tickets", free, rushVisitors)
	}
	r := &rush{t: t, h: h, clock: clock, start: clock.Now(), in: make([]bool, rushVisitors), due: make([]time.Duration, rushVisitors)}
	r.arrive()
	if n := h.SB.Calls("AddTickets"); n != int64(len(r.starts)) {
		t.Fatalf("%d orders started at the ticketing system, want only the %d visitors let in", n, len(r.starts))
	}
	r.reloadAll(true)
	for next := r.since() + rushWindow; slices.Contains(r.in, false); {
		if r.since() > 15*time.Minute {
			t.Fatalf("after %v, %d visitors still wait", r.since(), rushVisitors-len(r.order))
		}
		clock.Advance(rushGap)
		if r.since() >= next {
			r.reloadAll(false)
			next += rushWindow
			continue
		}
		r.reloadDue()
	}
	if n := h.SB.Calls("AddTickets"); n != int64(rushVisitors) {
		t.Fatalf("%d orders started at the ticketing system, want one per visitor: %d", n, rushVisitors)
	}
	r.inTurnWithin(10 * time.Second) // the page's longest wait between two reloads
	most, from := r.busiestWindow()
	last := r.starts[len(r.starts)-1]
	perMinute := float64(rushVisitors) / last.Minutes()
	t.Logf("%d visitors let in over %v of clock time (%.0f a minute, the rate is %d); at most %d orders started in any %v (from %v)",
		rushVisitors, last.Round(time.Second), perMinute, rushPerMinute, most, rushWindow, from)
	if most > rushMaxStarts {
		t.Fatalf("%d orders started at the ticketing system in the %v from %v, want at most %d", most, rushWindow, from, rushMaxStarts)
	}
	if perMinute < 0.9*rushPerMinute {
		t.Errorf("%.0f visitors let in a minute, want at least 90 %% of the rate %d: turns nobody asked for were lost", perMinute, rushPerMinute)
	}
}

// arrive brings the 300 visitors, one every 16 ms of clock time; every second of it those
// waiting reload, as in the rounds after. The first (the burst) get the ticket step and choose
// a ticket at once; everyone else gets a queue page with the place behind the one before, less
// those let in between the two arrivals. Every 10th
// visitor reloads at once and every 25th opens a second tab as the first loads: the same place.
func (r *rush) arrive() {
	t := r.t
	prev, inBefore := 0, 0
	for i := range rushVisitors {
		if i > 0 {
			r.clock.Advance(rushGap)
			if r.since()/rushStep != (r.since()-rushGap)/rushStep {
				r.reloadAll(false) // those who came before reload as the others arrive
			}
		}
		v := r.h.Visitor(fmt.Sprintf("10.30.%d.%d", i/200, i%200+1))
		r.visitors = append(r.visitors, v)
		place, doc := lineAnswer(t, v, fmt.Sprint("visitor ", i))
		switch {
		case i < rushBurst && place != 0:
			t.Fatalf("visitor %d of the burst of %d: place %d, want the ticket step", i, rushBurst, place)
		case i >= rushBurst && place == 0:
			t.Fatalf("visitor %d after the burst of %d: the ticket step, want a queue page", i, rushBurst)
		case i > rushBurst && place != prev+1-(len(r.order)-inBefore):
			t.Fatalf("visitor %d: place %d after visitor %d's %d, with %d let in between", i, place, i-1, prev, len(r.order)-inBefore)
		}
		prev, inBefore = place, len(r.order)
		if place == 0 {
			r.buy(i)
			continue
		}
		r.noteRefresh(i, doc)
		if i%10 == 0 {
			if again, _ := lineAnswer(t, v, "a reload"); again != place {
				t.Fatalf("visitor %d: place %d, after a reload %d", i, place, again)
			}
		}
		if i%25 == 0 {
			r.twoTabs(i, place)
		}
	}
}

// linePlace is the place on a queue page.
var linePlace = regexp.MustCompile(`data-testid="line-place">(\d+)<`)

// twoTabs loads the purchase in two tabs of visitor i's visit at once: both show its place.
func (r *rush) twoTabs(i, place int) {
	var wg sync.WaitGroup
	got := make([]int, 2)
	for tab := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, body := r.visitors[i].Get(ticketStep)
			got[tab] = -resp.StatusCode // neither the ticket step nor a place: its status
			if resp.StatusCode == http.StatusOK {
				if m := linePlace.FindStringSubmatch(body); m != nil {
					got[tab] = mustAtoi(r.t, m[1])
				}
			}
		}()
	}
	wg.Wait()
	if got[0] != place || got[1] != place {
		r.t.Fatalf("visitor %d at place %d: two tabs show %v", i, place, got)
	}
}

// reloadAll is a round of reloads at one clock time: every visitor still waiting, in order of
// arrival, loads the purchase again. Those let in are the first waiting (nobody behind them
// goes first), go on to the ticket step and choose a ticket; those still waiting have the
// places 1, 2, 3… in order of arrival, so the places are unique and nobody took a second one.
// first names the round right after the arrivals.
func (r *rush) reloadAll(first bool) {
	t := r.t
	waiting := 0
	for i, v := range r.visitors {
		if r.in[i] {
			continue
		}
		place, doc := lineAnswer(t, v, fmt.Sprint("visitor ", i))
		switch {
		case place == 0 && waiting > 0:
			t.Fatalf("at %v visitor %d was let in while %d who came before still wait", r.since(), i, waiting)
		case place == 0:
			r.buy(i)
		case place != waiting+1:
			t.Fatalf("at %v visitor %d: place %d, want %d (the next after those before it still waiting)", r.since(), i, place, waiting+1)
		default:
			waiting++
			r.noteRefresh(i, doc)
		}
	}
	if first {
		t.Logf("when all %d had come (%v): %d let in, %d waiting at places 1 to %d in order of arrival",
			rushVisitors, r.since(), len(r.order), waiting, waiting)
	}
}

// reloadDue reloads the waiting visitors whose page's own refresh has come due.
func (r *rush) reloadDue() {
	for i, v := range r.visitors {
		if !r.in[i] && r.since() >= r.due[i] {
			if place, doc := lineAnswer(r.t, v, fmt.Sprint("visitor ", i)); place == 0 {
				r.buy(i)
			} else {
				r.noteRefresh(i, doc)
			}
		}
	}
}

// noteRefresh keeps when visitor i's queue page, just loaded, reloads itself.
func (r *rush) noteRefresh(i int, doc *goquery.Document) {
	m := noscriptRefresh.FindStringSubmatch(doc.Find("noscript").Text())
	if m == nil {
		r.t.Fatalf("visitor %d: the queue page does not reload itself", i)
	}
	r.due[i] = r.since() + time.Duration(mustAtoi(r.t, m[1]))*time.Second
}

// noscriptRefresh is the queue page's own reload (without JavaScript), read from its noscript.
var noscriptRefresh = regexp.MustCompile(`http-equiv="refresh" content="(\d+)"`)

// rushTicket is visitor i's choice at the ticket step: one adult, every fourth in premium.
func rushTicket(i int) url.Values {
	if i%4 == 3 {
		return url.Values{"qty-0101": {"1"}}
	}
	return qty(1, 0)
}

// buy goes on from the ticket step of visitor i, who was let in: one ticket (rushTicket), nothing
// else typed; the order starts at the ticketing system and the seat step follows.
func (r *rush) buy(i int) {
	before := r.h.SB.Calls("AddTickets")
	resp, body := r.visitors[i].ChooseQty(rushTicket(i))
	if resp.StatusCode != http.StatusSeeOther {
		r.t.Fatalf("visitor %d (the %d-th let in, at %v) choosing a ticket: %d %s (free seats: %d)", i, len(r.order)+1, r.since(),
			resp.StatusCode, bfftest.Squash(r.visitors[i].Doc(body).Find("main").Text()), r.h.FreeSeats(r.t))
	}
	bfftest.ExpectRedirect(r.t, resp, body, "/checkout/seats")
	if n := r.h.SB.Calls("AddTickets") - before; n != 1 {
		r.t.Fatalf("visitor %d choosing a ticket started %d orders at the ticketing system, want 1", i, n)
	}
	r.in[i], r.order = true, append(r.order, i)
	r.starts = append(r.starts, r.since())
}

// inTurnWithin checks that nobody started buying more than slack before someone who arrived
// earlier: the line lets them in in order of arrival, and each notices its turn at its page's
// next reload, which comes sooner for those near the front.
func (r *rush) inTurnWithin(slack time.Duration) {
	r.t.Helper()
	at := make([]time.Duration, rushVisitors)
	for k, i := range r.order {
		at[i] = r.starts[k]
	}
	var latest time.Duration // the latest start of those who arrived before
	for i, t := range at {
		if latest > t+slack {
			r.t.Fatalf("visitor %d started buying at %v, more than %v before one who arrived earlier (at %v): %v", i, t, slack, latest, r.order)
		}
		latest = max(latest, t)
	}
}

func (r *rush) since() time.Duration { return r.clock.Now().Sub(r.start) }

// busiestWindow is the most orders started in any rushWindow of clock time and its start.
func (r *rush) busiestWindow() (most int, from time.Duration) {
	for i, s := range r.starts {
		n := 0
		for _, u := range r.starts[i:] {
			if u-s < rushWindow {
				n++
			}
		}
		if n > most {
			most, from = n, s
		}
	}
	return most, from
}
