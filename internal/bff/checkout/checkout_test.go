package checkout_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

func TestWhatsOnListsSessions(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	resp, body := h.Get("/whats-on?cinema=0001&day=" + time.Now().AddDate(0, 0, 1).In(bfftest.MustLoc(t, "Europe/Berlin")).Format("2006-01-02"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("what's on %d: %s", resp.StatusCode, body)
	}
	doc := h.Doc(body)
	link, ok := doc.Find(`a[href="/whats-on/0001/1113"]`).Attr("href")
	if !ok || doc.Find(`[data-testid="film"]`).Length() == 0 {
		t.Fatalf("no session 1113 listed tomorrow (%q): %s", link, body)
	}
	for _, bad := range []string{"/whats-on?cinema=9999", "/whats-on?day=yesterday", "/whats-on?day=2001-01-01"} {
		if resp, body := h.Get(bad); resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="notice-warning"`) {
			t.Errorf("%s: %d, no clear notice", bad, resp.StatusCode)
		}
	}
	if resp, _ := h.Get("/whats-on/0001/999999"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown session: %d", resp.StatusCode)
	}
}

func TestBuyTicketsBadInputIsShownAgain(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	page := "/whats-on/0001/1113"
	for _, tc := range []struct {
		form url.Values
		text string
	}{
		{url.Values{"qty-0001": {"abc"}}, "whole number"},
		{url.Values{"qty-0001": {"0"}}, "at least one ticket"},
		{url.Values{"qty-0001": {"8"}, "qty-0002": {"5"}}, "At most 10"},
	} {
		resp, body := h.Post(page, page, tc.form)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.text) {
			t.Fatalf("%v: %d, lacks %q: %s", tc.form, resp.StatusCode, tc.text, body)
		}
		for k, v := range tc.form {
			if val, _ := h.Doc(body).Find(`input[name="` + k + `"]`).Attr("value"); val != v[0] {
				t.Errorf("typed %s=%s not shown again (%q)", k, v[0], val)
			}
		}
	}
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	resp, body := h.Post("/checkout/details", "/checkout/details", url.Values{"name": {""}, "email": {"not-an-address"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Please enter your name") || !strings.Contains(body, `value="not-an-address"`) {
		t.Fatalf("details: %d %s", resp.StatusCode, body)
	}
	resp, body = h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": {"1-0-9"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "You chose 1 seat for 2 tickets") {
		t.Fatalf("seats: %d %s", resp.StatusCode, body)
	}
	resp, body = h.Post("/checkout/seats", "/checkout/seats", url.Values{"seat": {"x", "y"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("garbage seats: %d %s", resp.StatusCode, body)
	}
}

func TestBuyAndPayByRedirect(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	_, body := h.Get("/checkout")
	doc := h.Doc(body)
	if got := doc.Find(`[data-testid="total"]`).Text(); got != "€26.50" {
		t.Fatalf("total %q (2 × 12.50 + 2 × 0.75)", got)
	}
	if doc.Find(`[data-testid="countdown"][data-countdown-expires]`).Length() != 1 || doc.Find(`[data-testid="tickets"] li`).Length() != 2 {
		t.Fatalf("summary lacks countdown or tickets: %s", body)
	}
	hosted := h.PressPay()
	// Refresh, back and a double click: the same payment page, never a second start.
	if again := h.PressPay(); again != hosted {
		t.Fatalf("second press went to %s, not %s", again, hosted)
	}
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 1 {
		t.Fatalf("%d payment starts for one order", n)
	}
	_, body = h.Get("/checkout")
	if h.Doc(body).Find(`[data-testid="payment-underway"]`).Length() != 1 || h.Doc(body).Find(`[data-testid="pay"]`).Length() != 0 {
		t.Fatalf("summary during the payment offers to pay again: %s", body)
	}
	ret := h.ActAtProvider(hosted, "pay")
	body = h.WaitForConfirmation(ret, 5*time.Second)
	doc = h.Doc(body)
	num := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	if !strings.HasPrefix(num, "4000") {
		t.Fatalf("booking number %q", num)
	}
	if doc.Find(`[data-testid="seat"]`).Length() != 2 || doc.Find(`[data-testid="ticket-card"]`).Length() != 2 {
		t.Fatalf("confirmation lacks seats or printable tickets: %s", body)
	}
	if pay := doc.Find(`[data-testid="payment"]`).Text(); !strings.Contains(pay, "€26.50") || !strings.Contains(pay, "4242") {
		t.Fatalf("payments %q", pay)
	}
	if !strings.Contains(doc.Find(`[data-testid="film"]`).Text(), "") || doc.Find(`[data-print]`).Length() != 1 {
		t.Fatal("no print button")
	}
	// Pay after completion: nothing starts again.
	if resp, _ := h.Post("/checkout/pay", "/booking", nil); resp.StatusCode == http.StatusSeeOther && strings.Contains(resp.Header.Get("Location"), "/pay/checkout/") {
		t.Fatal("a completed purchase could be paid again")
	}
	if n := h.SB.Calls("ExternalPaymentStarting"); n != 1 {
		t.Fatalf("%d payment starts", n)
	}
}

func TestBuyWithGiftCardAndLoyaltyPoints(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	for _, tc := range []struct {
		path string
		form url.Values
		text string
	}{
		{"/checkout/gift-card", url.Values{"card": {"6000000000000002"}, "pin": {"9999"}}, "This gift card cannot be used: check the number and PIN."},
		{"/checkout/gift-card", url.Values{"card": {"6000000000000003"}, "pin": {"3333"}}, "This gift card cannot be used: check the number and PIN."}, // empty: the same
		{"/checkout/gift-card", url.Values{"card": {"12ab"}, "pin": {"1"}}, "12 to 19 digits"},
		{"/checkout/loyalty", url.Values{"card": {"7999999999999999"}, "pin": {"1906"}}, "These loyalty details cannot be used: check the card number and PIN."},
		{"/checkout/loyalty", url.Values{"card": {"7000000000000002"}, "pin": {"1905"}}, "These loyalty details cannot be used: check the card number and PIN."},
	} {
		resp, body := h.Post(tc.path, "/checkout", tc.form)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.text) {
			t.Fatalf("%v: %d lacks %q: %s", tc.form, resp.StatusCode, tc.text, body)
		}
		if v, _ := h.Doc(body).Find(`form[action="` + tc.path + `"] input[name="card"]`).Attr("value"); v != tc.form.Get("card") {
			t.Errorf("typed card not shown again: %q", v)
		}
	}
	resp, body := h.Post("/checkout/gift-card", "/checkout", url.Values{"card": {"6000 0000 0000 0002"}, "pin": {"2222"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	resp, body = h.Post("/checkout/loyalty", "/checkout", url.Values{"card": {"7000000000000002"}, "pin": {"1906"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	_, body = h.Get("/checkout")
	doc := h.Doc(body)
	if doc.Find(`[data-testid="applied"]`).Length() != 2 || doc.Find(`[data-testid="to-pay"]`).Text() != "€13.50" {
		t.Fatalf("applied payments or to pay wrong (26.50 − 10.00 − 3.00): %s", doc.Find(`[data-testid="money"]`).Text())
	}
	ret := h.ActAtProvider(h.PressPay(), "pay")
	body = h.WaitForConfirmation(ret, 5*time.Second)
	pays := h.Doc(body).Find(`[data-testid="payment"]`)
	text := pays.Text()
	if pays.Length() != 3 || !strings.Contains(text, "Gift card") || !strings.Contains(text, "Loyalty points") || !strings.Contains(text, "€13.50") {
		t.Fatalf("payments on the confirmation: %q", text)
	}
}

func TestBuyDeclinedThenCancelledKeepsSeats(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	_, before := h.Get("/checkout")
	seats := h.Doc(before).Find(`[data-testid="tickets"]`).Text()
	for i, action := range []string{"decline", "cancel"} {
		ret := h.ActAtProvider(h.PressPay(), action)
		resp, body := h.Get(ret)
		bfftest.ExpectRedirect(t, resp, body, "/checkout")
		_, body = h.Get("/checkout")
		doc := h.Doc(body)
		want := map[string]string{"decline": "declined", "cancel": "cancelled"}[action]
		if !strings.Contains(doc.Find(`[data-testid="notice-warning"]`).Text(), want) || !strings.Contains(body, "nothing was charged") {
			t.Fatalf("%s: no clear message: %s", action, body)
		}
		if got := doc.Find(`[data-testid="tickets"]`).Text(); got != seats {
			t.Fatalf("seats changed after %s: %q vs %q", action, got, seats)
		}
		if doc.Find(`[data-testid="pay"]`).Length() != 1 {
			t.Fatal("cannot pay again")
		}
		if n := h.SB.Calls("ExternalPaymentStarting"); n != int64(i+1) {
			t.Fatalf("starts %d", n)
		}
	}
	// The third attempt pays.
	h.WaitForConfirmation(h.ActAtProvider(h.PressPay(), "pay"), 5*time.Second)
}

func TestBuySlowCompletionStillConfirms(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: 2500 * time.Millisecond})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	resp, body := h.Get(ret)
	doc := h.Doc(body)
	poller := doc.Find(`[hx-get][hx-trigger="` + checkoutview.PollTrigger + `"]`)
	if resp.StatusCode != http.StatusOK || doc.Find(`[role="status"] [data-testid="status-heading"]`).Length() != 1 || poller.Length() != 1 || !strings.Contains(body, `http-equiv="refresh"`) {
		t.Fatalf("no polling confirming page: %s", body)
	}
	// An htmx poll gets only the poller; the live region's words come along (out of band)
	// only when the state the page shows has changed, so screen readers hear each change once.
	pollURL := poller.AttrOr("hx-get", "")
	_, frag := h.Do("GET", pollURL, nil, http.Header{"Hx-Request": {"true"}})
	if strings.Contains(frag, "<html") || !strings.Contains(frag, `data-testid="elapsed"`) {
		t.Fatalf("poll answer is not the fragment: %s", frag)
	}
	if strings.Contains(frag, `hx-swap-oob`) {
		t.Fatalf("unchanged state re-sent the live region: %s", frag)
	}
	_, frag = h.Do("GET", strings.Replace(pollURL, "shown=", "shown=stale", 1), nil, http.Header{"Hx-Request": {"true"}})
	if !strings.Contains(frag, `hx-swap-oob="true"`) || !strings.Contains(frag, `role="status"`) {
		t.Fatalf("changed state did not send the live region: %s", frag)
	}
	h.WaitForConfirmation(ret, 6*time.Second)
	resp, _ = h.Do("GET", ret, nil, http.Header{"Hx-Request": {"true"}})
	if resp.Header.Get("HX-Redirect") == "" {
		t.Fatal("a poll after completion does not send the page to the confirmation")
	}
}

func TestBuyReturnRefusesForgedAndForeignTokens(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	retA := h.ActAtProvider(h.PressPay(), "pay")
	// Another customer, another browser, another purchase.
	jarA := h.Client.Jar
	h.Client.Jar, _ = cookiejar.New(nil)
	h.BuyUpToSummary("1113", url.Values{"qty-0002": {"1"}})
	retB := h.ActAtProvider(h.PressPay(), "pay")
	pathA, _, _ := strings.Cut(retA, "?")
	_, queryB, _ := strings.Cut(retB, "?")
	for _, bad := range []string{pathA + "?" + queryB, pathA + "?token=forged", pathA + "?token=", "/checkout/payments/" + strings.Repeat("a", 32) + "?" + queryB, "/checkout/payments/short"} {
		resp, body := h.Get(bad)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "Open this on the device you paid with") || strings.Contains(body, "booking-number") {
			t.Errorf("%s: %d %s", bad, resp.StatusCode, body)
		}
	}
	// B's own payment with a forged token: refused, nothing shown.
	_, queryA, _ := strings.Cut(retA, "?")
	pathB, _, _ := strings.Cut(retB, "?")
	if resp, body := h.Get(pathB + "?" + queryA); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "booking-number") {
		t.Errorf("B's payment with A's token: %d", resp.StatusCode)
	}
	// The right token does not open the payment without the visit's cookie: the provider's
	// page address carries it, so whoever saw that address would get the booking.
	h.Client.Jar, _ = cookiejar.New(nil)
	time.Sleep(1500 * time.Millisecond) // the order completes meanwhile
	for _, u := range []string{retA, pathA} {
		resp, body := h.Get(u)
		doc := h.Doc(body)
		if resp.StatusCode != http.StatusNotFound || doc.Find(`[data-testid="booking-number"]`).Length() != 0 || doc.Find(`svg, img[src^="data:"]`).Length() != 0 {
			t.Errorf("%s in a fresh browser: %d %s", u, resp.StatusCode, doc.Find("main").Text())
		}
	}
	// The visit that paid sees its payment, with or without the token.
	h.Client.Jar = jarA
	h.WaitForConfirmation(retA, 5*time.Second)
	h.WaitForConfirmation(pathA, 5*time.Second)
}

// TestBuyPollersCoalesce: however many return pages poll one order, the ticketing system is
// asked about it at most once per poll interval. The site's clock stands still while 50 pages
// poll at once, then moves one interval: each round costs at most one order-details call.
func TestBuyPollersCoalesce(t *testing.T) {
	clock := testclock.New(time.Now())
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, CompletionDelay: -1, Now: clock.Now})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	const pollers, rounds = 50, 3
	total := int64(0)
	for round := range rounds {
		before := h.SB.Calls("GetOrderDetails")
		pollAll(t, h, ret, pollers)
		calls := h.SB.Calls("GetOrderDetails") - before
		if calls > 1 {
			t.Fatalf("round %d: %d pages polling at once cost %d upstream order-details calls, want at most 1", round, pollers, calls)
		}
		total += calls
		clock.Advance(purchases.PollInterval)
	}
	if total < 1 {
		t.Fatal("no order-details call in all: the pages were not polling the order")
	}
}

// pollAll makes n polls of the return page ret at once, as n open pages do.
func pollAll(t *testing.T, h *bfftest.Harness, ret string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", h.TS.URL+ret, nil)
			req.Header.Set("HX-Request", "true")
			resp, err := h.Client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "elapsed") {
				errs <- fmt.Errorf("poll %d: %s", resp.StatusCode, b)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestWhatsOnSharesTheListing: the programme needs the sessions and their films; they are
// read once per cinema per -listing-ttl (internal/listings) and shared by every view and every
// day: 20 views in a row, over the days offered, cost at most one of each.
func TestWhatsOnSharesTheListing(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	films, sessions := h.SB.Calls("Films"), h.SB.Calls("Sessions")
	resp, body := h.Get("/whats-on?cinema=0001")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "min") {
		t.Fatalf("what's on: %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	var days []string
	doc.Find(`[data-testid="days"] a`).Each(func(_ int, s *goquery.Selection) { days = append(days, s.AttrOr("href", "")) })
	if len(days) < 2 {
		t.Fatalf("days offered: %q", days)
	}
	for i := range 19 {
		if resp, _ := h.Get(days[i%len(days)]); resp.StatusCode != http.StatusOK {
			t.Fatalf("view %d of %s: %d", i+2, days[i%len(days)], resp.StatusCode)
		}
	}
	f, s := h.SB.Calls("Films")-films, h.SB.Calls("Sessions")-sessions
	if f+s > 2 || f > 1 || s > 1 {
		t.Errorf("20 views of what's on: %d films and %d session listings, want at most one of each", f, s)
	}
	if resp, _ := h.Get("/whats-on/0001/1111"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the film's session page: %d", resp.StatusCode)
	}
	if got := h.SB.Calls("Sessions") - sessions; got > 1 {
		t.Errorf("the session page read the listing again: %d session listings", got)
	}
}

// TestWhatsOnKeepsTheLastListingWhenTheCinemaDoesNotAnswer: once the listing is older than a
// few minutes and reading it again fails, What's on still shows it, and says as of when.
func TestWhatsOnKeepsTheLastListingWhenTheCinemaDoesNotAnswer(t *testing.T) {
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Now: now})
	resp, body := h.Get("/whats-on?cinema=0001")
	if resp.StatusCode != http.StatusOK || strings.Contains(body, `data-testid="listing-as-of"`) {
		t.Fatalf("what's on: %d, as-of notice on a current listing: %v", resp.StatusCode, strings.Contains(body, "listing-as-of"))
	}
	read := now()
	films := h.Doc(body).Find(`[data-testid="film"]`).Length()
	for _, op := range []string{"Sessions", "Films"} {
		if err := h.SB.Faults().Set(sandbox.Fault{Operation: op, HTTPStatus: http.StatusServiceUnavailable}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(h.SB.Faults().Clear)

	offset.Store(int64(time.Minute)) // stale: served at once, read again behind it (which fails)
	if resp, body := h.Get("/whats-on?cinema=0001"); resp.StatusCode != http.StatusOK || strings.Contains(body, "listing-as-of") {
		t.Fatalf("a minute old: %d, notice %v", resp.StatusCode, strings.Contains(body, "listing-as-of"))
	}
	offset.Store(int64(4 * time.Minute)) // expired: read before answering, which fails
	resp, body = h.Get("/whats-on?cinema=0001")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("four minutes old, the cinema not answering: %d", resp.StatusCode)
	}
	doc := h.Doc(body)
	notice := strings.Join(strings.Fields(doc.Find(`[data-testid="listing-as-of"]`).Text()), " ")
	want := "Show times as of " + read.In(bfftest.MustLoc(t, "Europe/Berlin")).Format("15:04")
	if !strings.Contains(notice, want) || !strings.Contains(notice, "not answering") {
		t.Fatalf("notice %q, want %q and that the system is not answering", notice, want)
	}
	if got := doc.Find(`[data-testid="film"]`).Length(); got == 0 || films == 0 { // (a show may have begun in the 4 minutes)
		t.Fatalf("%d films shown from the kept listing, %d before", got, films)
	}
}
