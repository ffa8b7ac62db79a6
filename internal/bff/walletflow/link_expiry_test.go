package walletflow_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// TestWalletLinksEndAWeekAfterTheShow: the booking page's Add to Apple Wallet and Add to Google
// Wallet links work until a week after the show; then the page offers them no more and both
// answer 410 with a page saying, in English or German, that the link has expired and until
// when it worked, and no pass.
func TestWalletLinksEndAWeekAfterTheShow(t *testing.T) {
	var ahead atomic.Int64 // how far the site's clock is ahead of real time
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})
	doc := h.Find(bfftest.BkPaid2)
	apple, _ := doc.Find(`[data-testid="add-to-apple-wallet"]`).Attr("href")
	google, _ := doc.Find(`[data-testid="add-to-google-wallet"]`).Attr("href")
	if apple == "" || google == "" {
		t.Fatal("the booking page offers no wallet links")
	}
	session, _ := h.BookedSeats(t, bfftest.BkPaid2)
	show := h.ShowtimeOf(session)

	ahead.Store(int64(time.Until(show.Add(7*24*time.Hour - time.Minute))))
	if resp, body := h.Browser().Get(apple); resp.StatusCode != http.StatusOK || !strings.HasPrefix(body, "PK") {
		t.Fatalf("the Apple link a minute before it ends: %d", resp.StatusCode)
	}

	ahead.Store(int64(time.Until(show.Add(7*24*time.Hour + time.Minute))))
	if doc := h.Page("/booking/current", http.StatusOK); doc.Find(`[data-testid="add-to-apple-wallet"], [data-testid="add-to-google-wallet"]`).Length() != 0 {
		t.Error("the booking page still offers the wallet links a week after the show")
	}
	for _, link := range []string{apple, google} {
		resp, body := h.Browser().Get(link)
		page := bfftest.Squash(h.Doc(body).Find("main").Text())
		if resp.StatusCode != http.StatusGone || !strings.Contains(page, "This wallet link has expired") || !strings.Contains(page, "this one worked until") ||
			!strings.Contains(page, "booking 100002") {
			t.Errorf("%s a week after the show: %d %s", link, resp.StatusCode, page)
		}
		resp, body = h.Browser().Do("GET", link, nil, bfftest.GermanBrowser)
		if page := bfftest.Squash(h.Doc(body).Find("main").Text()); resp.StatusCode != http.StatusGone || !strings.Contains(page, "Dieser Wallet-Link ist abgelaufen") {
			t.Errorf("%s in German: %d %s", link, resp.StatusCode, page)
		}
	}
}

// TestWalletLinkOfABookingTheCinemaNoLongerHas: a booking the ticketing system no longer knows
// (cancelled there) answers its wallet link with 410 and a page saying the link no longer
// works, not a general error.
func TestWalletLinkOfABookingTheCinemaNoLongerHas(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	apple, _ := h.Find(bfftest.BkPaid2).Find(`[data-testid="add-to-apple-wallet"]`).Attr("href")
	bfftest.MustFault(h, sandbox.Fault{Operation: "GetSingleBooking", Result: 1, ExtendedResultCode: upstream.ExtBookingNotFound})
	resp, body := h.Browser().Get(apple)
	page := bfftest.Squash(h.Doc(body).Find("main").Text())
	if resp.StatusCode != http.StatusGone || !strings.Contains(page, "This wallet link no longer works") || !strings.Contains(page, "no longer has booking 100002") {
		t.Fatalf("the link of a booking the cinema no longer has: %d %s", resp.StatusCode, page)
	}
}
