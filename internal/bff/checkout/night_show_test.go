package checkout_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// lateShow is Saal 2's late show on the sandbox's first day, 7 hours after start-up: at 00:08
// on Saturday for a start-up at 17:08 on Friday (docs/sandbox.md).
const lateShow = "1023"

// sessionLinkTime is the time a What's on link to session id shows ("" when not listed).
func sessionLinkTime(doc *goquery.Document, id string) string {
	return bfftest.Squash(doc.Find(`a[href="/whats-on/0001/` + id + `"] time`).Text())
}

// TestShowAfterMidnightBelongsToTheEveningBefore: a show at 00:08 on Saturday is Friday
// night's late show. What's on lists it under Friday ("Heute") marked as the night to
// Saturday, not under Saturday; the steps of buying it, the booking page and its tickets give
// its date with the same night, in German and in English.
func TestShowAfterMidnightBelongsToTheEveningBefore(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 27, 16, 8, 0, 0, time.UTC)) // Friday, 17:08 in Berlin
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock, Now: clock.Now})
	h.Speaking("de-DE,de;q=0.9")

	doc := h.Page("/whats-on?cinema=0001", http.StatusOK)
	bfftest.InGerman(t, doc, "What's on")
	if day := bfftest.Squash(doc.Find(`[data-testid="days"] [aria-current="date"]`).Text()); day != "Heute" {
		t.Errorf("What's on opens on %q, want Heute", day)
	}
	if got := sessionLinkTime(doc, lateShow); got != "Nacht zum Sa., 00:08" {
		t.Errorf("the 00:08 show under Friday: %q, want %q", got, "Nacht zum Sa., 00:08")
	}
	if got := sessionLinkTime(doc, "1013"); got != "23:38" {
		t.Errorf("Friday's 23:38 show: %q", got)
	}
	saturday := h.Page("/whats-on?cinema=0001&day=2026-11-28", http.StatusOK)
	if got := sessionLinkTime(saturday, lateShow); got != "" {
		t.Errorf("the 00:08 show is listed under Saturday too: %q", got)
	}

	const nightDE = "Samstag, 28. November 2026, 00:08 Uhr (Nacht von Freitag auf Samstag)"
	tickets := h.Page("/whats-on/0001/"+lateShow, http.StatusOK)
	if got := bfftest.Squash(tickets.Find(`[data-testid="session-header"]`).Text()); !strings.Contains(got, nightDE) {
		t.Errorf("ticket step: %q, want %q", got, nightDE)
	}

	// Bought, and found again: the booking page and its tickets say the same.
	h.BuyUpToSummary(lateShow, bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	var confirmation *goquery.Document
	for i := 0; confirmation == nil; i++ {
		// The order is looked after on the server's clock, which stands still here.
		clock.Advance(time.Second)
		_, body := h.Get(ret)
		if doc := h.Doc(body); doc.Find(`[data-testid="confirmation"]`).Length() == 1 {
			confirmation = doc
		} else if i == 50 {
			t.Fatalf("no confirmation: %s", bfftest.Squash(doc.Find("main").Text()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := bfftest.Squash(confirmation.Find(`[data-testid="showtime"]`).Text()); got != nightDE {
		t.Errorf("confirmation: %q, want %q", got, nightDE)
	}
	number := strings.TrimSpace(confirmation.Find(`[data-testid="booking-number"]`).Text())
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}, "email": {"ada@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/booking/current")
	booking := h.Page("/booking/current", http.StatusOK)
	if got := bfftest.Squash(booking.Find(`[data-testid="booking-summary"] p strong`).First().Text()); got != nightDE {
		t.Errorf("booking page: %q, want %q", got, nightDE)
	}
	if got := bfftest.Squash(booking.Find(`[data-testid="ticket-card"] .ticket-when`).First().Text()); got != nightDE {
		t.Errorf("ticket card: %q, want %q", got, nightDE)
	}

	// Choosing another showtime for a booking: the 00:08 show is among Friday's ("Heute").
	h.Find(bfftest.BkPaid1)
	row := h.Page("/booking/showtimes?all=1", http.StatusOK).Find(`[data-testid="showtime"][data-session="` + lateShow + `"]`)
	if got, day := bfftest.Squash(row.Find("time").Text()), bfftest.Squash(row.Closest(`[data-testid="showtime-day"]`).Find("h2").Text()); got != "Nacht zum Sa., 00:08" || day != "Heute" {
		t.Errorf("change of showtime lists the 00:08 show as %q under %q, want %q under Heute", got, day, "Nacht zum Sa., 00:08")
	}

	h.Speaking("en")
	if got := sessionLinkTime(h.Page("/whats-on?cinema=0001", http.StatusOK), lateShow); got != "Night to Sat, 00:08" {
		t.Errorf("English What's on: %q", got)
	}
	const nightEN = "Saturday 28 November 2026, 00:08 (Friday night into Saturday)"
	resp, body = h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}, "email": {"ada@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/booking/current")
	if got := bfftest.Squash(h.Page("/booking/current", http.StatusOK).Find(`[data-testid="booking-summary"] p strong`).First().Text()); got != nightEN {
		t.Errorf("English booking page: %q, want %q", got, nightEN)
	}
}

// TestWhatsOnAfterMidnightIsStillTonight: at 00:30 on Saturday the night's shows still to come
// are Friday evening's. What's on opens on that evening ("Heute"), where they are listed
// marked as the night to Saturday, so they can still be bought.
func TestWhatsOnAfterMidnightIsStillTonight(t *testing.T) {
	clock := testclock.New(time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC)) // Saturday, 00:30 in Berlin
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Clock: clock, Now: clock.Now})
	h.Speaking("de")
	doc := h.Page("/whats-on?cinema=0001", http.StatusOK)
	// 1011 starts 90 minutes after start-up: 02:00 on Saturday, Friday night's.
	if got := sessionLinkTime(doc, "1011"); got != "Nacht zum Sa., 02:00" {
		t.Errorf("02:00 show at 00:30: %q, want it listed for tonight", got)
	}
	h.BuyUpToSummary("1011", bfftest.TwoAdults())
}
