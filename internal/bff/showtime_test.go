package bff

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
)

// Changing the showtime of booking 100001: two adults at tomorrow's 20:30 show
// (session 1113) of "Otters of the Elbe" at cinema 0001. The sandbox (docs/sandbox.md) shows the
// film again at 1312 (same price), 1223 (€1.50 more a seat) and 1214 (a matinee, €3.00 less a
// seat).
const (
	showOriginal  = "1113"
	showSamePrice = "1312"
	showDearer    = "1223"
	showCheaper   = "1214"
)

// showtimeRows are the rows of the showtimes page by session id.
func showtimeRows(doc *goquery.Document) map[string]*goquery.Selection {
	out := map[string]*goquery.Selection{}
	doc.Find(`[data-testid="showtime"]`).Each(func(_ int, s *goquery.Selection) {
		out[s.AttrOr("data-session", "")] = s
	})
	return out
}

// moveTo chooses show session on the showtimes page and keeps the seats the ticketing system
// chose there; it returns the change page.
func (h *harness) moveTo(t *testing.T, session string) *goquery.Document {
	t.Helper()
	resp, seats := h.submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {session}})
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/booking/edit/seats" {
		t.Fatalf("choosing show %s: %d at %s: %s", session, resp.StatusCode, resp.Request.URL.Path, seats.Find("main").Text())
	}
	var chosen []string
	seats.Find(`[data-testid="seatmap"] input[name="seat"][checked]`).Each(func(_ int, s *goquery.Selection) {
		chosen = append(chosen, s.AttrOr("value", ""))
	})
	if len(chosen) != 2 {
		t.Fatalf("%d seats preselected on the new show's map, want 2", len(chosen))
	}
	resp, doc := h.submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": chosen})
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="move-shows"]`).Length() != 1 {
		t.Fatalf("keeping the preselected seats: %d: %s", resp.StatusCode, doc.Find("main").Text())
	}
	return doc
}

// seatStates reads the seats of a session's plan by label ("F11") from the ticketing system.
func (h *harness) seatsByLabel(t *testing.T, session string) map[string]cinema.SeatAvailability {
	t.Helper()
	plan, err := h.srv.Kernel.Ticketing.GetSeatPlan(context.Background(), "0001", session)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cinema.SeatAvailability{}
	for _, a := range plan.Areas {
		for _, r := range a.Rows {
			for _, s := range r.Seats {
				out[r.Label+s.Label] = s.Availability
			}
		}
	}
	return out
}

// bookedSeats are the session and seats of the booking's tickets, read from the ticketing
// system.
func (h *harness) bookedSeats(t *testing.T, number int64) (session string, seats []string) {
	t.Helper()
	b, err := h.srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", number)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range b.Tickets {
		session = tk.SessionID
		if tk.Seat != nil {
			seats = append(seats, tk.Seat.Name())
		}
	}
	return session, seats
}

func TestShowtimesListTheFilmsOtherShows(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	doc := h.find(bkPaid1)
	action := doc.Find(`[data-testid="action-showtime"] a`)
	if action.AttrOr("href", "") != "/booking/showtimes" {
		t.Fatalf("booking page has no Change showtime link: %s", doc.Find(`[data-testid="actions"]`).Text())
	}
	doc = h.page("/booking/showtimes", http.StatusOK)
	rows := showtimeRows(doc)
	for _, tc := range []struct {
		session, kind, words string
	}{
		{showSamePrice, "same", "Same price"},
		{showDearer, "more", "€3.00 more"},
		{showCheaper, "less", "€6.00 less"},
	} {
		row, ok := rows[tc.session]
		if !ok {
			t.Fatalf("show %s not listed: %v", tc.session, doc.Find("main").Text())
		}
		if row.AttrOr("data-diff", "") != tc.kind || strings.TrimSpace(row.Find(`[data-testid="difference"]`).Text()) != tc.words {
			t.Errorf("show %s: %s %q, want %s %q", tc.session, row.AttrOr("data-diff", ""), row.Find(`[data-testid="difference"]`).Text(), tc.kind, tc.words)
		}
		if !strings.Contains(row.Find(`[data-testid="free"]`).Text(), "seats free") || row.Find(`[data-testid="choose"]`).Length() != 1 {
			t.Errorf("show %s: no free seats or no Choose: %s", tc.session, row.Text())
		}
	}
	if own, ok := rows[showOriginal]; !ok || own.Find(`[data-testid="choose"]`).Length() != 0 || !strings.Contains(own.Text(), "Your show") {
		t.Errorf("the booking's own show is missing or offered: %v", ok)
	}
	if _, ok := rows["1028"]; ok {
		t.Errorf("a show inside its own change cut-off (1028) is offered")
	}
	sameFilm := len(rows)
	doc = h.page("/booking/showtimes?all=1", http.StatusOK)
	if all := len(showtimeRows(doc)); all <= sameFilm {
		t.Errorf("another film: %d shows, the film alone %d", all, sameFilm)
	}
}

func TestShowtimeMoveAtTheSamePrice(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid1)
	before := h.getCalendar(t, "/booking/calendar.ics", bkPaid1)
	h.page("/booking/showtimes", http.StatusOK)
	doc := h.moveTo(t, showSamePrice)
	if from, to := text(doc, "move-from"), text(doc, "move-to"); !strings.Contains(from, "20:30") || !strings.Contains(to, "17:30") {
		t.Fatalf("change page: from %q to %q", from, to)
	}
	if got := lineStates(doc); got["removed"] != 2 || got["added"] != 2 {
		t.Fatalf("change lines %v, want two removed and two added", got)
	}
	_, newSeats := h.orderSeats(t)
	_, doc = h.submit("/booking/edit/complete", "/booking/edit", nil)
	changes := doc.Find(`[data-testid="changes"]`).Text()
	if !strings.Contains(changes, "Moved from") || strings.Contains(changes, "Paid") || strings.Contains(changes, "Refunded") {
		t.Fatalf("booking page after the move: %q", changes)
	}
	session, seats := h.bookedSeats(t, bkPaid1)
	if session != showSamePrice || strings.Join(seats, ",") != strings.Join(newSeats, ",") {
		t.Fatalf("booking at %s on %v, want %s on %v", session, seats, showSamePrice, newSeats)
	}
	old := h.seatsByLabel(t, showOriginal)
	if old["F11"] != cinema.SeatFree || old["F12"] != cinema.SeatFree {
		t.Fatalf("the old seats are not free on the old show: F11 %v, F12 %v", old["F11"], old["F12"])
	}
	if es, _ := entries(t, h); len(es) != 0 {
		t.Fatalf("a move at the same price made ledger entries: %+v", es)
	}
	// A second person finding 100001 sees the new show.
	other := h.browser()
	doc = other.find(bkPaid1)
	if got := text(doc, "booking-summary"); !strings.Contains(got, "17:30") {
		t.Fatalf("another visit sees %q", got)
	}
	m := h.oneMail("edit")
	if !strings.Contains(m.Text, "Before: Otters of the Elbe") || !strings.Contains(m.Text, "Now: Otters of the Elbe") || !strings.Contains(m.Subject, "another showtime") {
		t.Fatalf("message about the move:\n%s\n%s", m.Subject, m.Text)
	}
	// The .ics of the message is the new show, in the cinema's zone, as an update of the event
	// the booking page served before; the page now serves the same.
	b, err := h.srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bkPaid1)
	if err != nil {
		t.Fatal(err)
	}
	b.Session.Showtime = h.showtimeOf(showSamePrice)
	ev := mailCalendar(t, m, bkPaid1)
	h.wantShow(t, ev, b)
	if ev["UID"] != before["UID"] || sequence(t, ev) <= sequence(t, before) {
		t.Fatalf("the update: UID %q SEQUENCE %d, before UID %q SEQUENCE %d", ev["UID"].Value, sequence(t, ev), before["UID"].Value, sequence(t, before))
	}
	if page := h.getCalendar(t, "/booking/calendar.ics", bkPaid1); page["UID"] != ev["UID"] || page["DTSTART"] != ev["DTSTART"] || page["SEQUENCE"] != ev["SEQUENCE"] {
		t.Fatalf("the booking page serves %v, the message carries %v", page, ev)
	}
}

// TestShowtimeMoveRefusedByTheTicketingSystem: a deployment that refuses tickets of another
// session in an edit. The person is told in words that the booking cannot be moved online; the
// edit is cancelled at once (no change is open, the held seats are free) and the booking is
// as it was.
func TestShowtimeMoveRefusedByTheTicketingSystem(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.sb.SetEditsStayInSession(true)
	h.find(bkPaid1)
	beforeSession, beforeSeats := h.bookedSeats(t, bkPaid1)
	freeBefore := h.seatsByLabel(t, showSamePrice)
	h.page("/booking/showtimes", http.StatusOK)
	resp, doc := h.submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showSamePrice}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(doc.Find("main").Text(), "This booking cannot be moved online") ||
		!strings.Contains(doc.Find("main").Text(), "Your booking has not changed") {
		t.Fatalf("refused move: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	session, seats := h.bookedSeats(t, bkPaid1)
	if session != beforeSession || strings.Join(seats, ",") != strings.Join(beforeSeats, ",") {
		t.Fatalf("after the refusal: %s %v, before %s %v", session, seats, beforeSession, beforeSeats)
	}
	if got := h.seatsByLabel(t, showSamePrice); fmt.Sprint(got) != fmt.Sprint(freeBefore) {
		t.Fatalf("seats of the new show changed by a refused move")
	}
	// No change is left open: the booking offers a fresh change, and the edit page has none.
	doc = h.page("/booking/current", http.StatusOK)
	if got := strings.TrimSpace(doc.Find(`[data-testid="action-edit"] button`).Text()); !strings.HasPrefix(got, "Change this booking") {
		t.Fatalf("booking page after the refusal offers %q", got)
	}
	if resp, _ := h.get("/booking/edit"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an edit is still open after the refusal: %d", resp.StatusCode)
	}
	// The booking can still be edited: the cancelled edit released it upstream.
	h.startEdit(t)
}

// orderSeats reads the edit's order: the seats its live (not removed) tickets hold now.
func (h *harness) orderSeats(t *testing.T) (session string, seats []string) {
	t.Helper()
	doc := h.page("/booking/edit", http.StatusOK)
	doc.Find(`[data-testid="line-added"] .ticket-seat`).Each(func(_ int, s *goquery.Selection) {
		seats = append(seats, strings.TrimSpace(s.Text()))
	})
	// "Row F, seat 12" → "F12"
	for i, s := range seats {
		var row, seat string
		if _, err := fmt.Sscanf(strings.NewReplacer(",", "").Replace(s), "Row %s seat %s", &row, &seat); err == nil {
			seats[i] = row + seat
		}
	}
	return "", seats
}

func TestShowtimeMovePaysTheDifference(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid1)
	h.page("/booking/showtimes", http.StatusOK)
	doc := h.moveTo(t, showDearer)
	if got := text(doc, "balance"); got != "€3.00" {
		t.Fatalf("to pay %q, want €3.00", got)
	}
	resp, body := h.post("/booking/edit/complete", "/booking/edit", nil)
	hosted := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.upURL+"/pay/checkout/") {
		t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
	}
	_, doc = h.payAtProvider(t, hosted, "pay")
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Moved from") || !strings.Contains(changes, "Paid €3.00") {
		t.Fatalf("booking page after paying: %q", changes)
	}
	if session, _ := h.bookedSeats(t, bkPaid1); session != showDearer {
		t.Fatalf("booking at %s, want %s", session, showDearer)
	}
	es, _ := entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateApplied || es[0].Kind != ledger.KindPayment || es[0].AmountCents != 300 {
		t.Fatalf("ledger: %+v", es)
	}
}

func TestShowtimeMoveRefundsTheDifference(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid1)
	h.page("/booking/showtimes", http.StatusOK)
	doc := h.moveTo(t, showCheaper)
	if got := text(doc, "balance"); got != "€6.00" || !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To refund") {
		t.Fatalf("refund %q: %s", got, doc.Find(`[data-testid="edit-money"]`).Text())
	}
	_, doc = h.submit("/booking/edit/complete", "/booking/edit", nil)
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Moved from") || !strings.Contains(changes, "Refunded €6.00") {
		t.Fatalf("booking page after the refund: %q", changes)
	}
	if session, _ := h.bookedSeats(t, bkPaid1); session != showCheaper {
		t.Fatalf("booking at %s, want %s", session, showCheaper)
	}
	p, ok := h.prov.Get(fmt.Sprintf("pi_seed%06d", bkPaid1))
	if !ok || p.RefundedInCents != 600 {
		t.Fatalf("the original payment was not refunded €6.00: %+v", p)
	}
}

func TestShowtimeMoveCancelledLeavesTheBooking(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPaid1)
	beforeSession, beforeSeats := h.bookedSeats(t, bkPaid1)
	h.page("/booking/showtimes", http.StatusOK)
	h.moveTo(t, showSamePrice)
	_, held := h.orderSeats(t)
	if st := h.seatsByLabel(t, showSamePrice); st[held[0]] == cinema.SeatFree {
		t.Fatalf("seat %s of the new show is not held during the change", held[0])
	}
	_, doc := h.submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if doc.Find(`[data-testid="booking-summary"]`).Length() == 0 {
		t.Fatalf("not back on the booking page: %s", doc.Find("main").Text())
	}
	session, seats := h.bookedSeats(t, bkPaid1)
	if session != beforeSession || strings.Join(seats, ",") != strings.Join(beforeSeats, ",") {
		t.Fatalf("after cancelling: %s %v, before %s %v", session, seats, beforeSession, beforeSeats)
	}
	if st := h.seatsByLabel(t, showSamePrice); st[held[0]] != cinema.SeatFree {
		t.Fatalf("seat %s of the new show still held after cancelling", held[0])
	}
	if h.deliveredMail("edit") != nil {
		t.Fatalf("a cancelled change sent a message")
	}
}

func TestShowtimeInsideTheCutoff(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	doc := h.findCutoff(bkSoon)
	if r := disabledWith(t, doc, "action-showtime"); !strings.Contains(r, "30 minutes before") {
		t.Fatalf("Change showtime inside the cut-off: %q", r)
	}
	resp, body := h.get("/booking/showtimes")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "30 minutes before") {
		t.Fatalf("showtimes page inside the cut-off: %d", resp.StatusCode)
	}
	// A replayed form (from a page opened before the cut-off).
	tok := h.csrfToken("/booking/current")
	resp, body = h.do("POST", "/booking/showtimes", url.Values{"_csrf": {tok}, "session": {showSamePrice}}, nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "30 minutes before") {
		t.Fatalf("replayed choice inside the cut-off: %d %s", resp.StatusCode, h.doc(body).Find("main").Text())
	}
	if session, _ := h.bookedSeats(t, bkSoon); session == showSamePrice {
		t.Fatalf("the booking moved inside its cut-off")
	}
}

// TestShowtimeMoveToAShowWithoutTheType: booking 100005 holds one premium adult (Saal 1); the
// OV show 1223 in Saal 2 sells no premium tickets. The showtimes page names the type; choosing
// the show asks for another type, and the move goes on with the one picked.
func TestShowtimeMoveToAShowWithoutTheType(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.find(bkPremium)
	doc := h.page("/booking/showtimes", http.StatusOK)
	row := showtimeRows(doc)[showDearer]
	if row == nil || !strings.Contains(row.Find(`[data-testid="missing"]`).Text(), "Adult Premium") {
		t.Fatalf("show %s does not name the type it does not sell: %v", showDearer, row)
	}
	resp, doc := h.submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showDearer}})
	choice := doc.Find(`select[name="type.0101"]`)
	if resp.StatusCode != http.StatusOK || choice.Length() != 1 || choice.Find(`option[value="0001"]`).Length() != 1 ||
		choice.Find(`option[value="0101"]`).Length() != 0 {
		t.Fatalf("type choice: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	if session, _ := h.bookedSeats(t, bkPremium); session != showOriginal {
		t.Fatalf("asking for a type changed the booking: %s", session)
	}
	// A type the show does not sell is asked for again.
	resp, doc = h.submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showDearer}, "type.0101": {"0101"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Find("main").Text(), "Please choose one of the ticket types this show sells") {
		t.Fatalf("an unsold pick: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	resp, doc = h.submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showDearer}, "type.0101": {"0001"}})
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/booking/edit/seats" {
		t.Fatalf("moving with an Adult instead: %d at %s: %s", resp.StatusCode, resp.Request.URL.Path, doc.Find("main").Text())
	}
	doc = h.page("/booking/edit", http.StatusOK)
	added := doc.Find(`[data-testid="line-added"] .ticket-name`).Text()
	if added != "Adult" || text(doc, "balance") != "€2.50" {
		t.Fatalf("change page: added %q, balance %q (an Adult at €14.00 for an Adult Premium at €16.50)", added, text(doc, "balance"))
	}
}
