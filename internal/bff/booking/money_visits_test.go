package booking_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// TestTwoVisitsChangeOneBookingAtOnce: two browsers (another device, a second person) change
// the same booking at the same time. The second is told, in words, that the booking is being
// changed; the first pays once; the money ends applied once.
func TestTwoVisitsChangeOneBookingAtOnce(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	hosted := bfftest.StartPaidEdit(t, h) // visit A: bkPaid2 with one ticket added, at the payment page

	// Visit B: its own cookies.
	jar, _ := cookiejar.New(nil)
	b := *h
	b.Client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	b.Find(bfftest.BkPaid2)
	resp, body := b.Post("/booking/edit/start", "/booking/current", nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "already being changed") {
		t.Fatalf("second visit starting an edit: %d %s", resp.StatusCode, b.Doc(body).Find("main").Text())
	}

	_, doc := h.PayAtProvider(t, hosted, "pay")
	if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "Paid") {
		t.Fatalf("after paying: %s", doc.Find("main").Text())
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateApplied {
		t.Fatalf("entries %+v", es)
	}
	if n := h.SB.Calls("CompleteEditBooking"); n != 1 {
		t.Fatalf("%d complete-edit calls", n)
	}
	// Visit B may change the booking now that A's change is done.
	if resp, _ := b.Post("/booking/edit/start", "/booking/current", url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("second visit after the first finished: %d", resp.StatusCode)
	}
}
