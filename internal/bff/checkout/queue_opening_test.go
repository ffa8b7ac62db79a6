package checkout_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// opening is a showtime's sales opening through the site: visitors in order of arrival, which
// of them have been let in, and the order they were let in.
type opening struct {
	t        *testing.T
	h        *bfftest.Harness
	visitors []*bfftest.Harness
	in       []bool
	order    []int // arrival numbers in the order the visitors reached the ticket step
}

// TestSalesOpeningAdmissionOrder: sales open 30 s (clock) after ten visitors come, one a
// second; at 30 purchases a minute (one let in every 2 s, a burst of one) the clock then moves
// 2 s at a time with everyone waiting reloading. Before the opening each sees the countdown,
// also on a reload; at the opening the ten are let in one by one in an order that is not their
// order of arrival, each going on to the ticket step and buying; three who come just after the
// opening are let in after all ten, in their own order. While waiting, the places are unique.
func TestSalesOpeningAdmissionOrder(t *testing.T) {
	clock := testclock.New(time.Now())
	opens := clock.Now().Add(30 * time.Second)
	h := queueHarness(t, clock, func(c *bff.Config) {
		c.SalesOpen, c.AdmitPerMinute = map[string]time.Time{"1113": opens}, 30
	})
	o := &opening{t: t, h: h}
	for i := range 10 {
		if i > 0 {
			clock.Advance(time.Second)
		}
		o.arrive(fmt.Sprintf("10.9.0.%d", i+1))
		for _, v := range o.visitors { // those before reload: still the countdown
			if _, body := v.Get(ticketStep); !strings.Contains(body, `data-testid="opens"`) {
				t.Fatalf("%v before the opening: no countdown on a reload", opens.Sub(clock.Now()))
			}
		}
	}
	clock.Set(opens)
	o.round()
	for i := range 3 {
		clock.Advance(100 * time.Millisecond)
		o.arrive(fmt.Sprintf("10.9.1.%d", i+1))
	}
	for step := 0; slices.Contains(o.in, false); step++ {
		if step > 30 {
			t.Fatalf("%d visitors still wait after a minute", len(o.in)-len(o.order))
		}
		clock.Advance(2 * time.Second)
		o.round()
	}
	early, late := o.order[:10], o.order[10:]
	t.Logf("let in (by order of arrival, 0-9 before the opening): %v", o.order)
	if slices.IsSorted(early) {
		t.Fatalf("those who came before the opening were let in in their order of arrival: %v", early)
	}
	if !slices.Equal(slices.Sorted(slices.Values(early)), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || !slices.Equal(late, []int{10, 11, 12}) {
		t.Fatalf("let in %v, want the ten who came before the opening (0-9) first, then 10, 11, 12 in order", o.order)
	}
}

// arrive brings a new visitor from addr: before the opening the countdown, after it a place.
func (o *opening) arrive(addr string) {
	t := o.t
	v := o.h.Visitor(addr)
	o.visitors, o.in = append(o.visitors, v), append(o.in, false)
	resp, body := v.Get(ticketStep)
	switch countdown := strings.Contains(body, `data-testid="opens"`); {
	case resp.StatusCode != 200:
		t.Fatalf("%s: %d", addr, resp.StatusCode)
	case len(o.visitors) <= 10 && !countdown:
		t.Fatalf("%s before the opening: no countdown: %s", addr, bfftest.Squash(v.Doc(body).Find("main").Text()))
	case len(o.visitors) > 10 && (countdown || !strings.Contains(body, `data-testid="line-place"`)):
		t.Fatalf("%s after the opening: want a place in line: %s", addr, bfftest.Squash(v.Doc(body).Find("main").Text()))
	}
}

// round is everyone waiting reloading at one clock time: at most one is let in (the rate's
// burst is one), goes on to the ticket step and buys a ticket; those waiting have the places
// 1, 2, 3…, each once.
func (o *opening) round() {
	t := o.t
	var places []int
	admitted := 0
	for i, v := range o.visitors {
		if o.in[i] {
			continue
		}
		place, _ := lineAnswer(t, v, fmt.Sprint("visitor ", i))
		if place > 0 {
			places = append(places, place)
			continue
		}
		if admitted++; admitted > 1 {
			t.Fatalf("two visitors let in at once at a rate of one every 2 s: %v and %d", o.order[len(o.order)-1], i)
		}
		resp, body := v.ChooseQty(qty(1, 0))
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
		o.in[i], o.order = true, append(o.order, i)
	}
	// The places read during the round moved as the head took its turn: read them again at
	// the same clock time, when nobody's turn is due.
	places = places[:0]
	for i, v := range o.visitors {
		if o.in[i] {
			continue
		}
		place, _ := lineAnswer(t, v, fmt.Sprint("visitor ", i))
		if place == 0 {
			t.Fatalf("visitor %d let in on a second look at the same time, after %v", i, o.order)
		}
		places = append(places, place)
	}
	slices.Sort(places)
	for k, p := range places {
		if p != k+1 {
			t.Fatalf("places of those waiting %v, want 1 to %d each once", places, len(places))
		}
	}
}
