package kiosk_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/booking"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// TestKioskStartScreen: a kiosk's start screen offers Buy tickets, Collect tickets and Change my
// booking, and nothing on it leads out of the kiosk; a customer's home page is the usual one.
func TestKioskStartScreen(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	// No visit runs: the attract screen, with the cinema's name and "Touch to start", and
	// nothing to reset.
	attract := h.Page("/", http.StatusOK)
	if got := strings.Join(strings.Fields(attract.Find(`[data-testid="kiosk-touch-to-start"]`).Text()), " "); !strings.Contains(got, "Touch to start") || !strings.Contains(got, h.Srv.Kernel.Cfg.SiteName) {
		t.Errorf("attract screen says %q", got)
	}
	if got := attract.Find(`[data-testid="kiosk-attract"] form`).AttrOr("action", ""); got != "/kiosk/begin" {
		t.Errorf("Touch to start posts to %q", got)
	}
	if _, ok := attract.Find("body").Attr("data-idle-reset"); ok {
		t.Error("the attract screen has an idle reset")
	}
	resp, body := h.Post("/kiosk/begin", "/", nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	doc := h.Page("/", http.StatusOK)
	for id, href := range map[string]string{"kiosk-buy": "/whats-on", "kiosk-collect": "/kiosk/collect", "kiosk-change": "/booking"} {
		a := doc.Find(`[data-testid="` + id + `"]`)
		if got, _ := a.Attr("href"); a.Length() != 1 || got != href || !a.HasClass("kiosk-choice") {
			t.Errorf("%s: %d links to %q, want one to %s", id, a.Length(), got, href)
		}
	}
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		if !strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "#") || strings.HasPrefix(href, "//") {
			t.Errorf("link out of the kiosk: %q (%s)", href, a.Text())
		}
		if a.AttrOr("target", "") != "" {
			t.Errorf("link opens a window: %q", href)
		}
	})
	nav := doc.Find(`nav[aria-label="Main"] a`).Map(func(_ int, a *goquery.Selection) string { return strings.TrimSpace(a.Text()) })
	if strings.Join(nav, "|") != "Buy tickets|Collect tickets|Change my booking" {
		t.Errorf("kiosk nav %v", nav)
	}
	// Once begun, the visit starts over by itself when left alone (back to the attract screen).
	if _, ok := doc.Find("body").Attr("data-idle-reset"); !ok {
		t.Error("the start screen of a visit has no idle reset")
	}

	customer := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	cdoc := customer.Page("/", http.StatusOK)
	if cdoc.Find(`[data-testid="kiosk-start"]`).Length() != 0 || cdoc.Find(`[data-testid="home-buy"]`).Length() != 1 {
		t.Error("a customer's home page shows the kiosk start screen")
	}
	if resp, _ := customer.Get("/kiosk/collect"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("collect on a customer's device: %d, want 404", resp.StatusCode)
	}
}

// TestKioskCollectPrintsAndAsksTheSecondTime: collecting 100002 by number and e-mail shows the
// print view (ticket cards with valid QR codes, printing by itself) and, with the upstream's
// collection route configured, marks the booking collected upstream once; a second collection in a later visit says when the tickets were
// printed at this kiosk and prints them only after "print them again", marking once more.
func TestKioskCollectPrintsAndAsksTheSecondTime(t *testing.T) {
	for _, store := range []struct {
		name string
		db   func(t *testing.T) bfftest.HarnessOpts
	}{
		{"sqlite", func(t *testing.T) bfftest.HarnessOpts { return bfftest.HarnessOpts{} }},
		{"postgres", func(t *testing.T) bfftest.HarnessOpts {
			return bfftest.HarnessOpts{DatabaseURL: testenv.PostgresURL(t), SessionStore: storage.SessionsPostgres}
		}},
	} {
		t.Run(store.name, func(t *testing.T) { testKioskCollectTwice(t, store.db) })
	}
}

func testKioskCollectTwice(t *testing.T, db func(t *testing.T) bfftest.HarnessOpts) {
	clock := testclock.New(time.Date(2026, 11, 23, 9, 14, 0, 0, time.UTC)) // 10:14 in Berlin
	o := db(t)
	o.Clock, o.Now = clock, clock.Now
	o.MarkCollected = true // the operator configured the upstream's collection route
	h := bfftest.KioskHarness(t, o)
	const op = "MarkBookingCollected"

	if resp, body := h.Collect("100002", "someone@example.com"); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(h.Doc(body).Find(`[data-testid="collect-error"]`).Text(), "could not find a booking") {
		t.Fatalf("wrong e-mail: %d %s", resp.StatusCode, body)
	}
	if n := h.SB.Calls(op); n != 0 {
		t.Fatalf("a refused collection marked the booking (%d calls)", n)
	}

	resp, body := h.Collect("100002", "PAID2@example.com")
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	doc := h.Page("/kiosk/collect/tickets", http.StatusOK)
	codes := h.PageCodes(doc)
	if len(codes) == 0 || doc.Find(`[data-testid="ticket-card"]`).Length() != len(codes) {
		t.Fatalf("print view shows %d cards, %d codes", doc.Find(`[data-testid="ticket-card"]`).Length(), len(codes))
	}
	for _, c := range codes {
		if c.BookingNumber != 100002 || c.CinemaID != "0001" {
			t.Errorf("code of another booking: %+v", c)
		}
	}
	print := doc.Find(`[data-testid="print"][data-print]`)
	firstKey, _ := print.Attr("data-autoprint")
	if print.Length() != 1 || !strings.HasPrefix(firstKey, "100002-") {
		t.Errorf("print button %d, autoprint key %q", print.Length(), firstKey)
	}
	if n := h.SB.Calls(op); n != 1 {
		t.Fatalf("%s called %d times for one collection", op, n)
	}
	if n, err := h.Srv.Collections.Count(context.Background(), "0001", 100002); err != nil || n != 1 {
		t.Fatalf("collections recorded: %d %v", n, err)
	}

	// The guest is done: the next one collects the same booking.
	resp, body = h.Post("/visit/reset", "/kiosk/collect/tickets", nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	clock.Advance(5 * time.Minute)
	resp, body = h.Collect("100002", "paid2@example.com")
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/again")
	doc = h.Page("/kiosk/collect/again", http.StatusOK)
	if got := strings.Join(strings.Fields(doc.Find(`[data-testid="printed-before"]`).Text()), " "); got !=
		"These tickets were printed at this kiosk on 23 November at 10:14. Print them again?" {
		t.Errorf("second collection says %q", got)
	}
	if n := h.SB.Calls(op); n != 1 {
		t.Fatalf("asking before a reprint marked the booking (%d calls)", n)
	}
	resp, body = h.Post("/kiosk/collect/again", "/kiosk/collect/again", nil)
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	doc = h.Page("/kiosk/collect/tickets", http.StatusOK)
	if key, _ := doc.Find(`[data-autoprint]`).Attr("data-autoprint"); key == firstKey || key == "" {
		t.Errorf("a reprint has the first collection's autoprint key %q: it would not print by itself", key)
	}
	if len(h.PageCodes(doc)) != len(codes) {
		t.Error("the reprint shows other tickets")
	}
	if n := h.SB.Calls(op); n != 2 {
		t.Fatalf("%s called %d times for two collections", op, n)
	}
	if n, _ := h.Srv.Collections.Count(context.Background(), "0001", 100002); n != 2 {
		t.Fatalf("collections recorded: %d", n)
	}
}

// TestKioskCollectWhenOnlyTheUpstreamKnew: tickets printed elsewhere (the upstream says so, we
// have no record) are printed only after the question, with the upstream's time, and the
// collection marks the booking once.
func TestKioskCollectWhenOnlyTheUpstreamKnew(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{MarkCollected: true})
	if _, err := h.Srv.Kernel.Ticketing.MarkBookingCollected(context.Background(), "0001", 100002); err != nil {
		t.Fatal(err)
	}
	resp, body := h.Collect("100002", "paid2@example.com")
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/again")
	text := strings.Join(strings.Fields(h.Page("/kiosk/collect/again", http.StatusOK).Find(`[data-testid="printed-before"]`).Text()), " ")
	if !regexp.MustCompile(`^These tickets were printed on \d{1,2} \w+ at \d\d:\d\d\. Print them again\?$`).MatchString(text) {
		t.Errorf("question %q", text)
	}
	resp, body = h.Post("/kiosk/collect/again", "/kiosk/collect/again", nil)
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	if n := h.SB.Calls("MarkBookingCollected"); n != 2 {
		t.Errorf("MarkBookingCollected called %d times, want the earlier one and one for this collection", n)
	}
}

// TestKioskCollectByScannedCode: the scanner types a ticket's code and Enter: a valid code finds
// the booking without the e-mail; a forged, foreign or unreadable one is refused in words. The
// site records the collection itself; the upstream hears nothing (no route configured).
func TestKioskCollectByScannedCode(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	b, err := h.Srv.Visits.ReadBooking(context.Background(), "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	valid := bfftest.SignedTicketCode(t, h)
	otherKey, _ := tickets.NewSigner([]byte("not the server's ticket key at all"))
	foreign, _ := otherKey.Payload(tickets.Code{CinemaID: "0001", BookingID: b.ID, BookingNumber: 100002, Line: 1})
	stale, _ := h.Srv.Mail.Signer.Payload(tickets.Code{CinemaID: "0001", BookingID: "WBOTHER1", BookingNumber: 100002, Line: 1})
	for _, tc := range []struct {
		name, code string
		ok         bool
		says       string
	}{
		{"valid", valid + "\n", true, ""},
		{"forged", foreign, false, "not valid"},
		{"altered", strings.Replace(valid, "n=100002", "n=100001", 1), false, "not valid"},
		{"unreadable", "hello scanner", false, "could not be read"},
		{"another booking's number", stale, false, "no longer exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {tc.code}})
			if tc.ok {
				bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
				if n := len(h.PageCodes(h.Page("/kiosk/collect/tickets", http.StatusOK))); n != len(b.Tickets) {
					t.Errorf("%d codes printed, want %d", n, len(b.Tickets))
				}
				return
			}
			got := h.Doc(body).Find(`[data-testid="collect-scan-error"]`).Text()
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, tc.says) {
				t.Errorf("%d %q, want 422 saying %q", resp.StatusCode, got, tc.says)
			}
		})
	}
	if n := h.SB.Calls("MarkBookingCollected"); n != 0 {
		t.Errorf("MarkBookingCollected called %d times without a configured route", n)
	}
	if n, err := h.Srv.Collections.Count(context.Background(), "0001", 100002); err != nil || n != 1 {
		t.Errorf("collections recorded by the site: %d %v, want the one valid code's", n, err)
	}
}

func allSeats(states []cinema.SeatAvailability, want cinema.SeatAvailability) bool {
	for _, s := range states {
		if s != want {
			return false
		}
	}
	return len(states) > 0
}

// TestKioskIdleResetReleasesSeats: an order abandoned on a kiosk with seats held is cancelled
// upstream when the idle reset ends the visit, whichever way the reset comes: the script's POST,
// or without JavaScript the warning page's refresh to its one-time URL. The seat plan shows the
// seats free, the visit is gone, the browser is still a kiosk.
func TestKioskIdleResetReleasesSeats(t *testing.T) {
	for _, way := range []string{"script", "meta refresh"} {
		t.Run(way, func(t *testing.T) {
			clock := testclock.New(time.Now())
			h := bfftest.KioskHarness(t, bfftest.HarnessOpts{Clock: clock, Now: clock.Now})
			h.BuyUpToSummary("1113", bfftest.TwoAdults())
			seats := h.HeldSeats()
			if st := h.SeatStates("1113", seats); !allSeats(st, cinema.SeatHeld) {
				t.Fatalf("before the reset the seats are %v, want held", st)
			}
			cancels := h.SB.Calls("CancelOrder")
			switch way {
			case "script":
				resp, body := h.Post("/visit/reset", "/checkout", nil) // what app.js posts
				bfftest.ExpectRedirect(t, resp, body, "/")
			case "meta refresh":
				doc := h.Page("/checkout", http.StatusOK)
				if refresh := noscriptRefresh(doc); refresh != "60;url=/kiosk/idle?back=%2Fcheckout" {
					t.Fatalf("meta refresh of a kiosk page %q", refresh)
				}
				resp, body := h.Get("/kiosk/idle?back=%2Fcheckout")
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("idle page %d", resp.StatusCode)
				}
				idle := h.Doc(body)
				if href, _ := idle.Find(`[data-testid="idle-continue"]`).Attr("href"); href != "/checkout" {
					t.Errorf("Continue goes to %q", href)
				}
				content := idlePageRefresh(idle)
				m := regexp.MustCompile(`^(\d+);url=(/kiosk/idle/expired\?token=[0-9a-f]{32})$`).FindStringSubmatch(content)
				if m == nil || m[1] != "20" || noscriptRefresh(idle) != "" {
					t.Fatalf("idle page refresh %q (want 20 s to the expired URL, and no other refresh)", content)
				}
				// Too early (a prefetch, a second tab): nothing ends.
				resp, body = h.Get(m[2])
				bfftest.ExpectRedirect(t, resp, body, "/")
				if st := h.SeatStates("1113", seats); !allSeats(st, cinema.SeatHeld) {
					t.Fatalf("the expired URL ended the visit before the countdown ran: %v", st)
				}
				// A wrong token does nothing either.
				clock.Advance(21 * time.Second)
				resp, body = h.Get("/kiosk/idle/expired?token=" + strings.Repeat("0", 32))
				bfftest.ExpectRedirect(t, resp, body, "/")
				if st := h.SeatStates("1113", seats); !allSeats(st, cinema.SeatHeld) {
					t.Fatalf("a wrong token ended the visit: %v", st)
				}
				resp, body = h.Get(m[2])
				bfftest.ExpectRedirect(t, resp, body, "/")
			}
			if n := h.SB.Calls("CancelOrder") - cancels; n != 1 {
				t.Errorf("CancelOrder called %d times by the reset", n)
			}
			if st := h.SeatStates("1113", seats); !allSeats(st, cinema.SeatFree) {
				t.Errorf("after the idle reset the seats are %v, want free", st)
			}
			resp, body := h.Get("/checkout")
			if resp.StatusCode != http.StatusGone || !strings.Contains(body, "No tickets chosen") {
				t.Errorf("the visit's purchase survived the reset: %d", resp.StatusCode)
			}
			if got := bfftest.BodyMode(h.Page("/", http.StatusOK)); got != "mode-kiosk" {
				t.Errorf("after the reset the browser is %q", got)
			}
		})
	}
}

// idlePageRefresh is the content of the idle page's own meta refresh, in a <noscript> in its
// body ("" when none).
func idlePageRefresh(doc *goquery.Document) string {
	m := regexp.MustCompile(`<meta http-equiv="refresh" content="([^"]*)"`).FindStringSubmatch(doc.Find("body noscript").Text())
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// noscriptRefresh is the content of the meta refresh in the head's <noscript> ("" when none).
// A parser with scripting on (goquery's, a browser's) reads <noscript> as text.
func noscriptRefresh(doc *goquery.Document) string {
	m := regexp.MustCompile(`<meta http-equiv="refresh" content="([^"]*)"`).FindStringSubmatch(doc.Find("head noscript").Text())
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestKioskIdleChrome: kiosk pages carry the idle timer (at least 20 s of warning) and, for a
// browser without JavaScript, a meta refresh to the warning page; a payment in progress pauses
// both; a customer's pages have neither.
func TestKioskIdleChrome(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{CompletionDelay: -1}) // the payment stays unconfirmed
	doc := h.Page("/kiosk/collect", http.StatusOK)
	body := doc.Find("body")
	if body.AttrOr("data-idle-reset", "") != "60" || body.AttrOr("data-idle-warn", "") != "20" || body.AttrOr("data-idle-url", "") != "/visit/reset" {
		t.Errorf("kiosk body idle attributes: reset %q warn %q url %q", body.AttrOr("data-idle-reset", ""), body.AttrOr("data-idle-warn", ""), body.AttrOr("data-idle-url", ""))
	}
	if got := doc.Find(`#idle-warning #idle-seconds`).Text(); got != "20" {
		t.Errorf("idle warning countdown %q", got)
	}
	if doc.Find(`[data-testid="start-over"] button`).Length() != 1 {
		t.Error("no Start over on a kiosk page")
	}
	if c := noscriptRefresh(doc); c != "60;url=/kiosk/idle?back=%2Fkiosk%2Fcollect" {
		t.Errorf("meta refresh %q", c)
	}

	// A payment on the kiosk's card reader pauses the reset while the reader asks, for no
	// longer than the reader and the booking take.
	h.EnrolWithReader(device.Kiosk)
	resp, rbody := h.Post("/whats-on/0001/1113", "/whats-on/0001/1113", bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, rbody, "/checkout/seats")
	resp, rbody = h.Post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, rbody, "/checkout")
	resp, rbody = h.Post("/checkout/pay", "/checkout", nil)
	doc = h.Page(bfftest.ExpectRedirect(t, resp, rbody, "/checkout/reader/"), http.StatusOK)
	if doc.Find(`[data-testid="payment-status"]`).Length() == 0 {
		t.Fatalf("not the reader's page: %s", doc.Find("h1").Text())
	}
	if _, paused := doc.Find("body").Attr("data-idle-paused"); !paused {
		t.Error("the page of a payment on the reader does not pause the idle timer")
	}
	if n, _ := strconv.Atoi(doc.Find("body").AttrOr("data-idle-paused-for", "")); n <= 0 || n > int(settlement.ReaderWait/time.Second) {
		t.Errorf("the reader's page pauses the idle timer for %ds while the reader asks, want %v at most (as long as it asks)", n, settlement.ReaderWait)
	}
	if noscriptRefresh(doc) != "" {
		t.Error("the confirming page of a payment has the idle meta refresh")
	}

	customer := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	cdoc := customer.Page("/booking", http.StatusOK)
	if _, ok := cdoc.Find("body").Attr("data-idle-reset"); ok || noscriptRefresh(cdoc) != "" {
		t.Error("a customer's page has the kiosk's idle reset")
	}
	if resp, body := customer.Get("/kiosk/idle?back=%2Fbooking"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("idle page for a customer: %d %s", resp.StatusCode, body)
	}
}

// TestKioskIdleResetCancelsAnEdit: an edit left open on a kiosk is cancelled upstream by the
// reset, as "Cancel changes" does, and the booking can be changed again by the next visit.
func TestKioskIdleResetCancelsAnEdit(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
	cancels := h.SB.Calls("CancelOrder")
	resp, body := h.Post("/visit/reset", "/booking/edit", nil)
	bfftest.ExpectRedirect(t, resp, body, "/")
	if n := h.SB.Calls("CancelOrder") - cancels; n != 1 {
		t.Fatalf("CancelOrder called %d times for the open edit", n)
	}
	if resp, _ := h.Get("/booking/current"); resp.StatusCode == http.StatusOK {
		t.Fatal("the booking is still bound after the reset")
	}
	h.Find(bfftest.BkPaid2)
	h.StartEdit(t)
}

// TestCollectIsAuditedForStaff: staff at the counter collect by the booking number alone and
// the collection is an audit row "collect" with who and where; a kiosk's guest leaves none.
func TestCollectIsAuditedForStaff(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Enrol(device.Counter)
	h.AddClerk("carl", "Carl Clerk", "clerk horse battery")
	h.SignInAs("carl", "clerk horse battery")
	resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"cinema": {"0001"}, "number": {"100002"}})
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	rows := h.AuditOf("collect")
	if len(rows) != 1 || rows[0].Actor != "carl" || rows[0].BookingNumber != 100002 || rows[0].CinemaID != "0001" || rows[0].Device == "" {
		t.Fatalf("audit rows %+v", rows)
	}
	done := h.Page("/kiosk/collect/tickets", http.StatusOK).Find(`[data-testid="collect-done"]`).Closest("form")
	if action, _ := done.Attr("action"); action != "/staff/next-customer" {
		t.Errorf("Done at the counter posts to %q: it must not sign the clerk out", action)
	}

	k := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	resp, body = k.Collect("100002", "paid2@example.com")
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	done = k.Page("/kiosk/collect/tickets", http.StatusOK).Find(`[data-testid="collect-done"]`).Closest("form")
	if action, _ := done.Attr("action"); action != "/visit/reset" {
		t.Errorf("Done at the kiosk posts to %q", action)
	}
	if rows := k.AuditOf("collect"); len(rows) != 0 {
		t.Fatalf("a guest's collection was audited: %+v", rows)
	}
}

// TestLettingGoOfABookingReleasesTheEdit: a visit that lets go of a booking with an edit open
// cancels the edit order upstream (its held seats come free, the original stays): a customer's
// "Not your booking?" (forget), a clerk's sign-out, and "Next customer" at the counter. Before,
// forget and sign-out only dropped the edit from the session, and its seats stayed held until
// the order expired.
func TestLettingGoOfABookingReleasesTheEdit(t *testing.T) {
	cases := []struct {
		name    string
		harness func(t *testing.T) *bfftest.Harness
		letGo   func(h *bfftest.Harness)
	}{
		{"forget", func(t *testing.T) *bfftest.Harness { return bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true}) }, func(h *bfftest.Harness) {
			resp, body := h.Post("/booking/forget", "/booking/current", nil)
			bfftest.ExpectRedirect(h.T, resp, body, "/")
		}},
		{"sign-out", func(t *testing.T) *bfftest.Harness {
			h := bfftest.CounterHarness(t)
			h.SignInAs("carl", "clerk horse battery")
			return h
		}, func(h *bfftest.Harness) { h.SignOutStaff() }},
		{"next customer", func(t *testing.T) *bfftest.Harness {
			h := bfftest.CounterHarness(t)
			h.SignInAs("carl", "clerk horse battery")
			return h
		}, func(h *bfftest.Harness) {
			resp, _ := h.Post("/staff/next-customer", "/booking/current", url.Values{"confirm": {"1"}}) // the question answered
			if resp.StatusCode != http.StatusSeeOther {
				h.T.Fatalf("next customer: %d", resp.StatusCode)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.harness(t)
			if tc.name == "forget" {
				h.Find(bfftest.BkPaid2)
			} else {
				h.CounterFind("100002")
			}
			h.StartEdit(t)
			cancels := h.SB.Calls("CancelOrder")
			tc.letGo(h)
			if n := h.SB.Calls("CancelOrder") - cancels; n != 1 {
				t.Fatalf("CancelOrder called %d times when the visit let go of the edit, want 1", n)
			}
			// The booking is not "being edited" any more: it can be changed again at once.
			if tc.name == "forget" {
				h.Find(bfftest.BkPaid2)
			} else {
				h.SignInAs("carl", "clerk horse battery")
				h.CounterFind("100002")
			}
			h.StartEdit(t)
		})
	}
}

// TestKioskMoneyPagePausesUntilTheDeadline: a kiosk on the page of a payment under way pauses
// its idle reset only until the payment's own deadline, and says for how long; past it the page
// stops checking by itself, tells the guest they may go, and the kiosk starts over as after
// any idle time (the timer and, without JavaScript, the meta refresh are back).
func TestKioskMoneyPagePausesUntilTheDeadline(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	bfftest.StartPaidEdit(t, h)
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 {
		t.Fatalf("entries %+v", es)
	}
	status := "/booking/edit/status/" + es[0].ID
	doc := h.Page(status, http.StatusOK)
	body := doc.Find("body")
	pausedFor, _ := strconv.Atoi(body.AttrOr("data-idle-paused-for", ""))
	if _, paused := body.Attr("data-idle-paused"); !paused || pausedFor <= 0 || pausedFor > int(booking.KioskMoneyPause/time.Second) {
		t.Fatalf("payment page: paused %v for %ds, want at most %v", paused, pausedFor, booking.KioskMoneyPause)
	}
	if noscriptRefresh(doc) != "" {
		t.Error("the payment page has the idle meta refresh while it pauses")
	}

	old := booking.KioskMoneyPause
	booking.KioskMoneyPause = 0 // the deadline has passed
	t.Cleanup(func() { booking.KioskMoneyPause = old })
	doc = h.Page(status, http.StatusOK)
	body = doc.Find("body")
	if _, paused := body.Attr("data-idle-paused"); paused || body.AttrOr("data-idle-reset", "") != "60" {
		t.Errorf("past the deadline: paused %v, idle reset %q; want the usual idle reset", paused, body.AttrOr("data-idle-reset", ""))
	}
	if !strings.HasPrefix(noscriptRefresh(doc), "60;url=/kiosk/idle") {
		t.Errorf("past the deadline the meta refresh is %q, want the idle page's", noscriptRefresh(doc))
	}
	if doc.Find(`[data-testid="payment-status"] [hx-trigger]`).Length() != 0 || !strings.Contains(doc.Find("main").Text(), "You do not need to wait here") {
		t.Errorf("past the deadline the page still checks by itself or does not say the guest may go: %s", doc.Find("main").Text())
	}
}
