package kiosk_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// TestKioskPrintsOnlyCurrentPaidTickets: a kiosk checks a scanned ticket against the booking
// as it is now. The code of a ticket removed by a change (100004's Child ticket) or of one whose
// seat was swapped prints nothing and says the ticket was changed; the unpaid reservation 100010
// prints nothing, by number and e-mail or by code, and sends the guest to the box office; a
// current ticket's code still prints at once.
func TestKioskPrintsOnlyCurrentPaidTickets(t *testing.T) {
	h := bfftest.KioskHarness(t, bfftest.HarnessOpts{})
	ctx := context.Background()
	before := bfftest.TicketCodes(t, h, bfftest.BkPaid4)
	b, err := h.Srv.Visits.ReadBooking(ctx, "0001", bfftest.BkPaid4)
	if err != nil {
		t.Fatal(err)
	}
	var childCode, swappedCode, keptCode string
	var swapped cinema.BookedTicket
	for i, tk := range b.Tickets {
		switch {
		case strings.Contains(tk.Description, "Child"):
			childCode = before[i]
		case swappedCode == "":
			swappedCode, swapped = before[i], tk
		default:
			keptCode = before[i]
		}
	}
	if childCode == "" || keptCode == "" {
		t.Fatalf("100004 has no Child ticket and two others: %+v", b.Tickets)
	}

	// The guest changes the booking at the kiosk: the Child ticket goes, refunded.
	h.Find(bfftest.BkPaid4)
	doc := h.StartEdit(t)
	child := doc.Find(`[data-testid="line-kept"][data-ticket]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "Child")
	}).AttrOr("data-ticket", "")
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {child}})
	if _, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil); !strings.Contains(doc.Find(`[data-testid="changes"]`).Text(), "Refunded") {
		t.Fatalf("removing the Child ticket: %s", doc.Find("main").Text())
	}
	// Another ticket moves to a free seat of its area.
	plan, err := h.Srv.Kernel.Ticketing.GetSeatPlan(ctx, "0001", swapped.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var to *cinema.Seat
	for _, a := range plan.Areas {
		for _, r := range a.Rows {
			for i, st := range r.Seats {
				if to == nil && st.Availability == cinema.SeatFree && st.AreaCategoryCode == swapped.Seat.AreaCategoryCode && st.SofaGroup == nil {
					to = &r.Seats[i]
				}
			}
		}
	}
	if to == nil {
		t.Fatal("no free seat to swap to")
	}
	if err := h.Srv.Kernel.Ticketing.SwapSeats(ctx, "0001", b.ID, []upstream.SeatSwap{{TicketSequenceNumber: swapped.Seq, NewSeat: to.Position}}); err != nil {
		t.Fatal(err)
	}
	h.Post("/visit/reset", "/", nil) // the guest leaves; the next one holds up old codes

	const changed = "This ticket was changed"
	h.CollectRefused(t, url.Values{"code": {childCode + "\r\n"}}, changed)
	h.CollectRefused(t, url.Values{"code": {swappedCode + "\r\n"}}, changed)

	const unpaid = "not paid yet"
	h.CollectRefused(t, url.Values{"cinema": {"0001"}, "number": {"100010"}, "email": {"unpaid@example.com"}}, unpaid)
	h.CollectRefused(t, url.Values{"code": {bfftest.TicketCodes(t, h, bfftest.BkUnpaid)[0] + "\r\n"}}, unpaid)

	resp, body := h.Post("/kiosk/collect", "/kiosk/collect", url.Values{"code": {keptCode + "\r\n"}})
	bfftest.ExpectRedirect(t, resp, body, "/kiosk/collect/tickets")
	if doc := h.Page("/kiosk/collect/tickets", http.StatusOK); doc.Find(`[data-testid="ticket-card"]`).Length() != 2 {
		t.Errorf("the current ticket's code printed %d tickets, want the booking's two left", doc.Find(`[data-testid="ticket-card"]`).Length())
	}
}
