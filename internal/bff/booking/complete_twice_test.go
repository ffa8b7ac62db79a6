package booking_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

// TestCompletePressedTwiceSavesOnceAndSaysSo: a change of an unpaid booking (nothing to pay
// now) is completed by two presses at once, as a browser without JavaScript sends them. The
// ticketing system is asked once, one message goes out, and neither answer says that nothing
// was changed: both pages show the booking with the added ticket.
func TestCompletePressedTwiceSavesOnceAndSaysSo(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkUnpaid)
	h.AddOneTicket(t)
	bfftest.MustFault(h, sandbox.Fault{Operation: "CompleteEditBooking", Latency: sandbox.Duration(300 * time.Millisecond)})
	form := url.Values{"_csrf": {h.CSRFToken("/booking/edit")}}

	var wg sync.WaitGroup
	pages := make([]string, 2)
	for i := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, body := h.Do("POST", "/booking/edit/complete", form, nil)
			if resp.StatusCode != http.StatusSeeOther {
				t.Errorf("press %d: status %d", i+1, resp.StatusCode)
				return
			}
			_, page := h.Follow(resp, body)
			pages[i] = bfftest.Squash(page.Find("main").Text())
		}()
	}
	wg.Wait()
	for i, p := range pages {
		if strings.Contains(p, "nothing was changed") {
			t.Errorf("press %d says nothing was changed: %s", i+1, p)
		}
	}
	if n := h.SB.Calls("CompleteEditBooking"); n != 1 {
		t.Errorf("%d CompleteEditBooking calls, want 1", n)
	}
	if msgs := h.DeliveredMail("edit"); len(msgs) != 1 {
		t.Errorf("%d change messages, want 1", len(msgs))
	}
}
