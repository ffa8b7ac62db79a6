package booking_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
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

func TestShowtimesListTheFilmsOtherShows(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	doc := h.Find(bfftest.BkPaid1)
	action := doc.Find(`[data-testid="action-showtime"] a`)
	if action.AttrOr("href", "") != "/booking/showtimes" {
		t.Fatalf("booking page has no Change showtime link: %s", doc.Find(`[data-testid="actions"]`).Text())
	}
	doc = h.Page("/booking/showtimes", http.StatusOK)
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
	doc = h.Page("/booking/showtimes?all=1", http.StatusOK)
	if all := len(showtimeRows(doc)); all <= sameFilm {
		t.Errorf("another film: %d shows, the film alone %d", all, sameFilm)
	}
}

func TestShowtimeMoveAtTheSamePrice(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	before := h.GetCalendar(t, "/booking/calendar.ics", bfftest.BkPaid1)
	h.Page("/booking/showtimes", http.StatusOK)
	doc := h.MoveTo(t, showSamePrice)
	if from, to := bfftest.Text(doc, "move-from"), bfftest.Text(doc, "move-to"); !strings.Contains(from, "20:30") || !strings.Contains(to, "17:30") {
		t.Fatalf("change page: from %q to %q", from, to)
	}
	if got := bfftest.LineStates(doc); got["removed"] != 2 || got["added"] != 2 {
		t.Fatalf("change lines %v, want two removed and two added", got)
	}
	_, newSeats := h.OrderSeats(t)
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	changes := doc.Find(`[data-testid="changes"]`).Text()
	if !strings.Contains(changes, "Moved from") || strings.Contains(changes, "Paid") || strings.Contains(changes, "Refunded") {
		t.Fatalf("booking page after the move: %q", changes)
	}
	session, seats := h.BookedSeats(t, bfftest.BkPaid1)
	if session != showSamePrice || strings.Join(seats, ",") != strings.Join(newSeats, ",") {
		t.Fatalf("booking at %s on %v, want %s on %v", session, seats, showSamePrice, newSeats)
	}
	old := h.SeatsByLabel(t, showOriginal)
	if old["F11"] != cinema.SeatFree || old["F12"] != cinema.SeatFree {
		t.Fatalf("the old seats are not free on the old show: F11 %v, F12 %v", old["F11"], old["F12"])
	}
	if es, _ := bfftest.Entries(t, h); len(es) != 0 {
		t.Fatalf("a move at the same price made ledger entries: %+v", es)
	}
	// A second person finding 100001 sees the new show.
	other := h.Browser()
	doc = other.Find(bfftest.BkPaid1)
	if got := bfftest.Text(doc, "booking-summary"); !strings.Contains(got, "17:30") {
		t.Fatalf("another visit sees %q", got)
	}
	m := h.OneMail("edit")
	if !strings.Contains(m.Text, "Before: Otters of the Elbe") || !strings.Contains(m.Text, "Now: Otters of the Elbe") || !strings.Contains(m.Subject, "another showtime") {
		t.Fatalf("message about the move:\n%s\n%s", m.Subject, m.Text)
	}
	// The .ics of the message is the new show, in the cinema's zone, as an update of the event
	// the booking page served before; the page now serves the same.
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", bfftest.BkPaid1)
	if err != nil {
		t.Fatal(err)
	}
	b.Session.Showtime = h.ShowtimeOf(showSamePrice)
	ev := bfftest.MailCalendar(t, m, bfftest.BkPaid1)
	h.WantShow(t, ev, b)
	if ev["UID"] != before["UID"] || bfftest.Sequence(t, ev) <= bfftest.Sequence(t, before) {
		t.Fatalf("the update: UID %q SEQUENCE %d, before UID %q SEQUENCE %d", ev["UID"].Value, bfftest.Sequence(t, ev), before["UID"].Value, bfftest.Sequence(t, before))
	}
	if page := h.GetCalendar(t, "/booking/calendar.ics", bfftest.BkPaid1); page["UID"] != ev["UID"] || page["DTSTART"] != ev["DTSTART"] || page["SEQUENCE"] != ev["SEQUENCE"] {
		t.Fatalf("the booking page serves %v, the message carries %v", page, ev)
	}
}

// TestShowtimeMoveRefusedByTheTicketingSystem: a deployment that refuses tickets of another
// session in an edit. The person is told in words that the booking cannot be moved online; the
// edit is cancelled at once (no change is open, the held seats are free) and the booking is
// as it was.
func TestShowtimeMoveRefusedByTheTicketingSystem(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.SB.SetEditsStayInSession(true)
	h.Find(bfftest.BkPaid1)
	beforeSession, beforeSeats := h.BookedSeats(t, bfftest.BkPaid1)
	freeBefore := h.SeatsByLabel(t, showSamePrice)
	h.Page("/booking/showtimes", http.StatusOK)
	resp, doc := h.Submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showSamePrice}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(doc.Find("main").Text(), "This booking cannot be moved online") ||
		!strings.Contains(doc.Find("main").Text(), "Your booking has not changed") {
		t.Fatalf("refused move: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	session, seats := h.BookedSeats(t, bfftest.BkPaid1)
	if session != beforeSession || strings.Join(seats, ",") != strings.Join(beforeSeats, ",") {
		t.Fatalf("after the refusal: %s %v, before %s %v", session, seats, beforeSession, beforeSeats)
	}
	if got := h.SeatsByLabel(t, showSamePrice); fmt.Sprint(got) != fmt.Sprint(freeBefore) {
		t.Fatalf("seats of the new show changed by a refused move")
	}
	// No change is left open: the booking offers a fresh change, and the edit page has none.
	doc = h.Page("/booking/current", http.StatusOK)
	if got := strings.TrimSpace(doc.Find(`[data-testid="action-edit"] button`).Text()); !strings.HasPrefix(got, "Change this booking") {
		t.Fatalf("booking page after the refusal offers %q", got)
	}
	if resp, _ := h.Get("/booking/edit"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an edit is still open after the refusal: %d", resp.StatusCode)
	}
	// The booking can still be edited: the cancelled edit released it upstream.
	h.StartEdit(t)
}

func TestShowtimeMovePaysTheDifference(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	h.Page("/booking/showtimes", http.StatusOK)
	doc := h.MoveTo(t, showDearer)
	if got := bfftest.Text(doc, "balance"); got != "€3.00" {
		t.Fatalf("to pay %q, want €3.00", got)
	}
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	hosted := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.UpstreamURL+"/pay/checkout/") {
		t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
	}
	_, doc = h.PayAtProvider(t, hosted, "pay")
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Moved from") || !strings.Contains(changes, "Paid €3.00") {
		t.Fatalf("booking page after paying: %q", changes)
	}
	if session, _ := h.BookedSeats(t, bfftest.BkPaid1); session != showDearer {
		t.Fatalf("booking at %s, want %s", session, showDearer)
	}
	es, _ := bfftest.Entries(t, h)
	if len(es) != 1 || es[0].State != ledger.StateApplied || es[0].Kind != ledger.KindPayment || es[0].AmountCents != 300 {
		t.Fatalf("ledger: %+v", es)
	}
}

func TestShowtimeMoveRefundsTheDifference(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	h.Page("/booking/showtimes", http.StatusOK)
	doc := h.MoveTo(t, showCheaper)
	if got := bfftest.Text(doc, "balance"); got != "€6.00" || !strings.Contains(doc.Find(`[data-testid="edit-money"]`).Text(), "To refund") {
		t.Fatalf("refund %q: %s", got, doc.Find(`[data-testid="edit-money"]`).Text())
	}
	_, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil)
	if changes := doc.Find(`[data-testid="changes"]`).Text(); !strings.Contains(changes, "Moved from") || !strings.Contains(changes, "Refunded €6.00") {
		t.Fatalf("booking page after the refund: %q", changes)
	}
	if session, _ := h.BookedSeats(t, bfftest.BkPaid1); session != showCheaper {
		t.Fatalf("booking at %s, want %s", session, showCheaper)
	}
	p, ok := h.Prov.Get(fmt.Sprintf("pi_seed%06d", bfftest.BkPaid1))
	if !ok || p.RefundedInCents != 600 {
		t.Fatalf("the original payment was not refunded €6.00: %+v", p)
	}
}

func TestShowtimeMoveCancelledLeavesTheBooking(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPaid1)
	beforeSession, beforeSeats := h.BookedSeats(t, bfftest.BkPaid1)
	h.Page("/booking/showtimes", http.StatusOK)
	h.MoveTo(t, showSamePrice)
	_, held := h.OrderSeats(t)
	if st := h.SeatsByLabel(t, showSamePrice); st[held[0]] == cinema.SeatFree {
		t.Fatalf("seat %s of the new show is not held during the change", held[0])
	}
	_, doc := h.Submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if doc.Find(`[data-testid="booking-summary"]`).Length() == 0 {
		t.Fatalf("not back on the booking page: %s", doc.Find("main").Text())
	}
	session, seats := h.BookedSeats(t, bfftest.BkPaid1)
	if session != beforeSession || strings.Join(seats, ",") != strings.Join(beforeSeats, ",") {
		t.Fatalf("after cancelling: %s %v, before %s %v", session, seats, beforeSession, beforeSeats)
	}
	if st := h.SeatsByLabel(t, showSamePrice); st[held[0]] != cinema.SeatFree {
		t.Fatalf("seat %s of the new show still held after cancelling", held[0])
	}
	if h.DeliveredMail("edit") != nil {
		t.Fatalf("a cancelled change sent a message")
	}
}

func TestShowtimeInsideTheCutoff(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	doc := h.FindCutoff(bfftest.BkSoon)
	if r := disabledWith(t, doc, "action-showtime"); !strings.Contains(r, "30 minutes before") {
		t.Fatalf("Change showtime inside the cut-off: %q", r)
	}
	resp, body := h.Get("/booking/showtimes")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "30 minutes before") {
		t.Fatalf("showtimes page inside the cut-off: %d", resp.StatusCode)
	}
	// A replayed form (from a page opened before the cut-off).
	tok := h.CSRFToken("/booking/current")
	resp, body = h.Do("POST", "/booking/showtimes", url.Values{"_csrf": {tok}, "session": {showSamePrice}}, nil)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "30 minutes before") {
		t.Fatalf("replayed choice inside the cut-off: %d %s", resp.StatusCode, h.Doc(body).Find("main").Text())
	}
	if session, _ := h.BookedSeats(t, bfftest.BkSoon); session == showSamePrice {
		t.Fatalf("the booking moved inside its cut-off")
	}
}

// TestShowtimeMoveToAShowWithoutTheType: booking 100005 holds one premium adult (Saal 1); the
// OV show 1223 in Saal 2 sells no premium tickets. The showtimes page names the type; choosing
// the show asks for another type, and the move goes on with the one picked.
func TestShowtimeMoveToAShowWithoutTheType(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.Find(bfftest.BkPremium)
	doc := h.Page("/booking/showtimes", http.StatusOK)
	row := showtimeRows(doc)[showDearer]
	if row == nil || !strings.Contains(row.Find(`[data-testid="missing"]`).Text(), "Adult Premium") {
		t.Fatalf("show %s does not name the type it does not sell: %v", showDearer, row)
	}
	resp, doc := h.Submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showDearer}})
	choice := doc.Find(`select[name="type.0101"]`)
	if resp.StatusCode != http.StatusOK || choice.Length() != 1 || choice.Find(`option[value="0001"]`).Length() != 1 ||
		choice.Find(`option[value="0101"]`).Length() != 0 {
		t.Fatalf("type choice: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	if session, _ := h.BookedSeats(t, bfftest.BkPremium); session != showOriginal {
		t.Fatalf("asking for a type changed the booking: %s", session)
	}
	// A type the show does not sell is asked for again.
	resp, doc = h.Submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showDearer}, "type.0101": {"0101"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Find("main").Text(), "Please choose one of the ticket types this show sells") {
		t.Fatalf("an unsold pick: %d %s", resp.StatusCode, doc.Find("main").Text())
	}
	resp, doc = h.Submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showDearer}, "type.0101": {"0001"}})
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/booking/edit/seats" {
		t.Fatalf("moving with an Adult instead: %d at %s: %s", resp.StatusCode, resp.Request.URL.Path, doc.Find("main").Text())
	}
	doc = h.Page("/booking/edit", http.StatusOK)
	added := doc.Find(`[data-testid="line-added"] .ticket-name`).Text()
	if added != "Adult" || bfftest.Text(doc, "balance") != "€2.50" {
		t.Fatalf("change page: added %q, balance %q (an Adult at €14.00 for an Adult Premium at €16.50)", added, bfftest.Text(doc, "balance"))
	}
}

// TestShowtimeNotYetOnSaleIsNoMove: a show whose ticket sales open later (-sales-open) is not
// offered to move booking 100001 to, and a form naming it (an old tab) is refused in words:
// a customer cannot reach a release's seats through a change before its sales open.
func TestShowtimeNotYetOnSaleIsNoMove(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Configure: func(c *bff.Config) {
		c.SalesOpen = admission.Openings{"0001-" + showSamePrice: time.Now().Add(time.Hour)}
	}})
	h.Find(bfftest.BkPaid1)
	rows := showtimeRows(h.Page("/booking/showtimes", http.StatusOK))
	if _, ok := rows[showSamePrice]; ok {
		t.Fatalf("show %s offered before its sales open", showSamePrice)
	}
	if _, ok := rows[showDearer]; !ok {
		t.Fatalf("show %s, on sale, not offered", showDearer)
	}
	resp, doc := h.Submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {showSamePrice}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(doc.Find("main").Text(), "have not opened yet") {
		t.Fatalf("moving to show %s before its sales open: %d %s", showSamePrice, resp.StatusCode, bfftest.Squash(doc.Find("main").Text()))
	}
}
