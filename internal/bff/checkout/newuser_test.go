package checkout_test

// What a new user ran into, one test each: concession lines, the last ticket, going back after
// paying, blocked booking numbers, moved tickets, party seating, split payments, seating areas
// and too many seats (the seat map's counter and limit in the browser are in
// newuser_browser_test.go).

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// cents reads an amount as the pages write it ("13,00 €", "−2,50 €") into cents.
func cents(t *testing.T, s string) int64 {
	t.Helper()
	neg := strings.ContainsAny(s, "−-")
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		t.Fatalf("not an amount: %q", s)
	}
	if neg {
		n = -n
	}
	return n
}

// TestConcessionLinesAddUp: a concession line shows quantity × unit price and its line total, and
// the lines and fees add up to the total.
func TestConcessionLinesAddUp(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	doc := h.Find(bfftest.BkConcessions)
	var sum int64
	var popcorn *goquery.Selection
	doc.Find(`[data-testid="tickets"] li`).Each(func(_ int, li *goquery.Selection) {
		sum += cents(t, li.Find(".amount").Text())
		if strings.Contains(li.Text(), "Popcorn") {
			popcorn = li
		}
	})
	if popcorn == nil {
		t.Fatalf("no popcorn line: %s", doc.Find(`[data-testid="tickets"]`).Text())
	}
	// 2 × C001 Popcorn (large) at 6,50 €.
	if got := cents(t, popcorn.Find(".amount").Text()); got != 1300 {
		t.Errorf("popcorn line total %d cents, want 1300 (2 × 6,50 €): %q", got, popcorn.Text())
	}
	if got := strings.Join(strings.Fields(popcorn.Text()), " "); !strings.Contains(got, "2 × €6.50") {
		t.Errorf("popcorn line %q does not show quantity × unit price", got)
	}
	fees := cents(t, doc.Find(`.money-summary .money-row`).First().Find("dd").Text())
	total := cents(t, bfftest.Text(doc, "total"))
	if sum+fees != total {
		t.Fatalf("lines %d + fees %d = %d cents, but the total says %d", sum, fees, sum+fees, total)
	}
}

// TestEditRefusesRemovingEveryTicket: removing the last ticket of an edit is refused with the
// reason; the edit keeps its ticket and the booking page still works.
func TestEditRefusesRemovingEveryTicket(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	doc := h.StartEdit(t)
	var ids []string
	doc.Find(`[data-testid="line-kept"][data-ticket]`).Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-ticket", "")) })
	if len(ids) != 2 {
		t.Fatalf("%d kept tickets, want 2", len(ids))
	}
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {ids[0]}})
	if st := bfftest.LineStates(doc); st["kept"] != 1 || st["removed"] != 1 {
		t.Fatalf("after removing one of two: %v", st)
	}
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {ids[1]}})
	if got := doc.Text(); !strings.Contains(got, "A booking needs at least one ticket. To cancel the whole booking, ask at the box office.") {
		t.Fatalf("removing the last ticket not refused with the reason: %s", strings.Join(strings.Fields(got), " "))
	}
	if st := bfftest.LineStates(doc); st["kept"] != 1 || st["removed"] != 1 {
		t.Fatalf("the last ticket went anyway: %v", st)
	}
	// Cancelling leaves the booking page whole.
	_, doc = h.Submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if n := doc.Find(`[data-testid="tickets"] li`).Length(); n != 2 || doc.Find("#booking-title").Length() != 1 {
		t.Fatalf("booking page after cancel: %d tickets: %s", n, doc.Text())
	}
}

// TestBackAfterPayingNeverSaysNothingCharged: after a payment went through, going back to the
// pages of the edit (or of the purchase) never claims that nothing was charged or changed.
func TestBackAfterPayingNeverSaysNothingCharged(t *testing.T) {
	noFalseClaim := func(t *testing.T, where, page string) {
		t.Helper()
		low := strings.ToLower(strings.Join(strings.Fields(page), " "))
		for _, claim := range []string{"nothing was charged", "nothing was changed", "changes are still held"} {
			if strings.Contains(low, claim) {
				t.Errorf("%s says %q after the payment: %s", where, claim, low)
			}
		}
	}
	t.Run("edit", func(t *testing.T) {
		h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
		h.Find(bfftest.BkPaid2)
		doc := h.StartEdit(t)
		typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
		h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
		// A first payment cancelled at the provider, then a second one paid.
		resp, _ := h.Post("/booking/edit/complete", "/booking/edit", nil)
		firstReturn := providerAct(t, h, resp.Header.Get("Location"), "cancel")
		resp, _ = h.Post("/booking/edit/complete", "/booking/edit", nil)
		secondHosted := resp.Header.Get("Location")
		secondReturn := providerAct(t, h, secondHosted, "pay")
		_, doc = h.Follow(h.GetURL(secondReturn))
		if !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "Paid") {
			t.Fatalf("not paid: %s", doc.Text())
		}
		// Back: the provider's pages, their way back to us, the edit's pages.
		for _, u := range []string{secondHosted, firstReturn, secondReturn, h.TS.URL + "/booking/edit", h.TS.URL + "/booking/edit/expired", h.TS.URL + "/booking/edit/seats"} {
			_, doc := h.Follow(h.GetURL(u))
			noFalseClaim(t, u, doc.Find("main").Text())
		}
		if n := len(doc.Find(`[data-testid="tickets"] li`).Nodes); n != 3 {
			t.Fatalf("%d tickets after paying for a third", n)
		}
	})
	t.Run("purchase", func(t *testing.T) {
		h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
		h.BuyUpToSummary("1113", bfftest.TwoAdults())
		ret := h.ActAtProvider(h.PressPay(), "pay")
		h.WaitForConfirmation(ret, 5*time.Second)
		for _, p := range []string{"/checkout", "/checkout/seats", "/checkout/details", "/checkout/expired"} {
			_, doc := h.Follow(h.Get(p))
			noFalseClaim(t, p, doc.Find("main").Text())
			link, ok := doc.Find(`main a[href^="/checkout/payments/"]`).Attr("href")
			if !ok {
				t.Errorf("%s after buying does not lead to the confirmation: %s", p, strings.Join(strings.Fields(doc.Find("main").Text()), " "))
				continue
			}
			if h.Page(link, http.StatusOK).Find(`[data-testid="confirmation"]`).Length() != 1 {
				t.Errorf("%s links to %s, which is not the confirmation", p, link)
			}
		}
		// A new purchase starts afresh.
		page := "/whats-on/0001/1113"
		resp, body := h.Post(page, page, bfftest.TwoAdults())
		bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	})
}

// providerAct presses a button on the provider's page (for an edit payment) and returns the
// address the provider sends the browser back to.
func providerAct(t *testing.T, h *bfftest.Harness, hosted, action string) string {
	t.Helper()
	if !strings.HasPrefix(hosted, h.UpstreamURL) {
		t.Fatalf("not the provider's page: %q", hosted)
	}
	h.GetURL(hosted)
	r, err := h.Client.PostForm(hosted, url.Values{"action": {action}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusSeeOther || !strings.Contains(loc, "/booking/edit/payment/") {
		t.Fatalf("provider %s: %d %q", action, r.StatusCode, loc)
	}
	if action == "pay" {
		return loc
	}
	h.Follow(h.GetURL(loc)) // the customer comes back and sees the edit again
	return loc
}

// TestFindRateLimitShowsTheBookingsWait: once a booking number is blocked, every refusal names
// that booking's wait, which only counts down: the per-IP wait never shows instead.
func TestFindRateLimitShowsTheBookingsWait(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	last := 0
	for i := range 12 {
		resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {"100002"}, "email": {fmt.Sprintf("guess%d@example.com", i)}})
		if i < 5 {
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("guess %d: %d", i+1, resp.StatusCode)
			}
			continue
		}
		m := bfftest.WaitWords.FindStringSubmatch(strings.ToLower(body))
		if resp.StatusCode != http.StatusTooManyRequests || m == nil {
			t.Fatalf("guess %d: %d, no wait named: %s", i+1, resp.StatusCode, body)
		}
		n, _ := strconv.Atoi(m[1])
		if ra, _ := strconv.Atoi(resp.Header.Get("Retry-After")); ra != n {
			t.Errorf("guess %d: Retry-After %d, page says %d", i+1, ra, n)
		}
		if n < 50 {
			t.Fatalf("guess %d: wait %d s; the booking is blocked for about a minute", i+1, n)
		}
		if last != 0 && n > last {
			t.Fatalf("guess %d: wait jumped from %d to %d s", i+1, last, n)
		}
		last = n
	}
}

// TestEditSeatMoveIsShownAsMoved: a ticket moved to another seat shows as moved (with its old
// seat) in the edit and its summary; saving the same seats changes nothing and does not say it
// did.
func TestEditSeatMoveIsShownAsMoved(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid3) // G11, G12
	h.StartEdit(t)
	seats := h.Page("/booking/edit/seats", http.StatusOK)
	var mine []string
	seats.Find(`[data-testid="seatmap"] input[name="seat"][checked]`).Each(func(_ int, s *goquery.Selection) { mine = append(mine, s.AttrOr("value", "")) })
	if len(mine) != 2 {
		t.Fatalf("%d seats ticked, want 2", len(mine))
	}
	// The same seats again: nothing changes, nothing claims a change.
	_, doc := h.Submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": mine})
	if strings.Contains(doc.Text(), "Your seats were changed") {
		t.Fatal(`"Your seats were changed" after choosing the same seats`)
	}
	if n := h.SB.Calls("SetSelectedSeats"); n != 0 {
		t.Errorf("%d SetSelectedSeats calls for the same seats", n)
	}
	if st := bfftest.LineStates(doc); st["kept"] != 2 || len(st) != 1 {
		t.Fatalf("lines %v after keeping the seats", st)
	}
	// Move one ticket: G11 → B3 (area 1, row 1, column 2).
	_, doc = h.Submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {mine[1], bfftest.Seat(1, 1, 2)}})
	if !strings.Contains(doc.Text(), "Your seats were changed") {
		t.Fatalf("a real move is not confirmed: %s", doc.Text())
	}
	st := bfftest.LineStates(doc)
	if st["moved"] != 1 || st["kept"] != 1 {
		t.Fatalf("lines %v after moving one ticket, want 1 moved and 1 kept", st)
	}
	moved := doc.Find(`[data-testid="line-moved"]`)
	if got := strings.Join(strings.Fields(moved.Text()), " "); !strings.Contains(got, "Moved") || !strings.Contains(got, "Row B, seat 3") || !strings.Contains(got, "Row G, seat 11") {
		t.Fatalf("moved line %q should name the new and the old seat", got)
	}
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	if got := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(got, "Moved") || !strings.Contains(got, "Row B, seat 3") {
		t.Fatalf("change summary %q does not say what moved", got)
	}
}

// seatsInRow returns the seat labels of the edit lines in state in row row, as numbers.
func seatsInRow(t *testing.T, doc *goquery.Document, state, row string) []int {
	t.Helper()
	var out []int
	doc.Find(`[data-testid="line-` + state + `"] .ticket-seat`).Each(func(_ int, s *goquery.Selection) {
		var r string
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(s.Text()), "Row %s seat %d", &r, &n); err == nil && strings.TrimSuffix(r, ",") == row {
			out = append(out, n)
		}
	})
	sort.Ints(out)
	return out
}

// TestEditAddedTicketsSitWithTheParty: tickets added in an edit sit next to the party when seats
// beside it are free, and stay where the ticketing system put them when none are.
func TestEditAddedTicketsSitWithTheParty(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1) // F11, F12; F13 is free, F14 and F15 are booking 100002's
	h.StartEdit(t)
	_, doc := h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {"0001"}, "qty": {"2"}})
	added := seatsInRow(t, doc, "added", "F")
	if len(added) != 2 {
		t.Fatalf("added tickets not in the party's row F: %s", doc.Find(`[data-testid="edit-lines"]`).Text())
	}
	all := append(seatsInRow(t, doc, "kept", "F"), added...)
	sort.Ints(all)
	for i := 1; i < len(all); i++ {
		if all[i] != all[i-1]+1 {
			t.Fatalf("row F seats %v are not together", all)
		}
	}
	// A premium ticket has no seat beside a standard party: the ticketing system's choice stays.
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {"0101"}, "qty": {"1"}})
	if st := bfftest.LineStates(doc); st["added"] != 3 {
		t.Fatalf("premium ticket not added: %v: %s", st, doc.Text())
	}
}

// TestGiftCardPaidBookingRefusalSaysWhy: a booking paid partly with a gift card and partly by
// redirect is refused with the real reason: a payment that is not external.
func TestGiftCardPaidBookingRefusalSaysWhy(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	resp, body := h.Post("/checkout/gift-card", "/checkout", url.Values{"card": {"6000000000000002"}, "pin": {"2222"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	body = h.WaitForConfirmation(h.ActAtProvider(h.PressPay(), "pay"), 5*time.Second)
	number := strings.TrimSpace(h.Doc(body).Find(`[data-testid="booking-number"]`).Text())
	resp, body = h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {number}, "email": {"ada@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/booking/current")
	resp, body = h.Post("/booking/edit/start", "/booking/current", nil)
	msg := strings.Join(strings.Fields(h.Doc(body).Find("main").Text()), " ")
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("edit of a gift card booking: %d %s", resp.StatusCode, msg)
	}
	if strings.Contains(msg, "paid at the cinema") || !strings.Contains(msg, "gift card, loyalty points or at the cinema") || !strings.Contains(msg, "cannot be changed online") {
		t.Fatalf("refusal does not give the real reason: %s", msg)
	}
}

// TestAreaRuleIsNamed: choosing seats in another seating area is refused naming the tickets' area,
// in the edit's seat change and in the seat swap.
func TestAreaRuleIsNamed(t *testing.T) {
	const want = "New seats must be in the same seating area (Standard) as the tickets"
	t.Run("edit", func(t *testing.T) {
		h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
		h.Find(bfftest.BkPaid1)
		h.StartEdit(t)
		resp, body := h.Post("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": {bfftest.Seat(1, 5, 12), bfftest.Seat(2, 0, 0)}})
		notice := strings.Join(strings.Fields(h.Doc(body).Find(`[data-testid="notice-error"]`).Text()), " ")
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(notice, want) || !strings.Contains(notice, "Row P, seat 1") || !strings.Contains(notice, "Premium") {
			t.Fatalf("%d: notice %q does not name the area rule", resp.StatusCode, notice)
		}
		if n := h.SB.Calls("SetSelectedSeats"); n != 0 {
			t.Errorf("%d SetSelectedSeats calls for seats the BFF could refuse", n)
		}
	})
	t.Run("swap", func(t *testing.T) {
		h := bfftest.SwapHarness(t, 100001)
		resp, doc := h.ReviewSwap(100001, []string{"1"}, []string{bfftest.Seat(2, 0, 0)})
		notice := strings.Join(strings.Fields(doc.Find(`[data-testid="notice-error"]`).Text()), " ")
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(notice, want) || !strings.Contains(notice, "Row P, seat 1") {
			t.Fatalf("%d: notice %q does not name the area rule", resp.StatusCode, notice)
		}
		if strings.Contains(notice, "for example") {
			t.Errorf("notice still vague: %q", notice)
		}
	})
}

// TestBuySeatsRefusesMoreSeatsThanTickets, without JavaScript: more seats than tickets are refused
// with what to do, the choice is shown again and the hint says how many to untick.
func TestBuySeatsRefusesMoreSeatsThanTickets(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	page := "/whats-on/0001/1113"
	resp, body := h.Post(page, page, bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	form := h.CheckedSeats()
	form.Add("seat", bfftest.Seat(1, 1, 2)) // B3, a third seat for two tickets
	resp, body = h.Post("/checkout/seats", "/checkout/seats", form)
	doc := h.Doc(body)
	notice := strings.Join(strings.Fields(doc.Find(`[data-testid="notice-error"]`).Text()), " ")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(notice, "You chose 3 seats for 2 tickets") || !strings.Contains(notice, "Untick 1 seat") {
		t.Fatalf("%d: notice %q", resp.StatusCode, notice)
	}
	if n := doc.Find(`[data-testid="seatmap"] input[name="seat"][checked]`).Length(); n != 3 {
		t.Errorf("%d seats ticked on the page shown again, want the 3 chosen", n)
	}
	hint := doc.Find(`[data-testid="seat-limit"]`)
	if _, hidden := hint.Attr("hidden"); hidden || !strings.Contains(hint.Text(), "3 seats chosen, only 2 needed. Untick 1.") {
		t.Errorf("limit hint hidden=%v %q", hidden, hint.Text())
	}
	if n := h.SB.Calls("SetSelectedSeats"); n != 0 {
		t.Errorf("%d SetSelectedSeats calls", n)
	}
}
