package bff_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// TestBookingCalendar: the booking page offers the booking's event; it starts at the show in
// the cinema's zone. A cancelled edit sends nothing and leaves the event as it was; an edit that
// completes sends a message whose .ics has the same UID and a higher SEQUENCE, and the page
// then serves that same event.
func TestBookingCalendar(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	ctx := context.Background()

	// Nobody gets a booking's event without finding the booking first.
	if resp, _ := h.Get("/booking/calendar.ics"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unbound visit's calendar: %d", resp.StatusCode)
	}

	doc := h.Find(bfftest.BkPaid2)
	link := doc.Find(`[data-testid="add-to-calendar"]`)
	if href := link.AttrOr("href", ""); href != "/booking/calendar.ics" || strings.TrimSpace(link.Text()) != "Add to calendar" {
		t.Fatalf("Add to calendar link %q %q", href, link.Text())
	}
	before := h.GetCalendar(t, "/booking/calendar.ics", bfftest.BkPaid2)
	b, err := h.Srv.Visits.ReadBooking(ctx, "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	h.WantShow(t, before, b)
	if uid := before["UID"].Value; !strings.HasPrefix(uid, "booking-0001-100002@") {
		t.Errorf("UID = %s", uid)
	}
	if bfftest.Sequence(t, before) != 0 {
		t.Errorf("SEQUENCE of an unchanged booking = %d", bfftest.Sequence(t, before))
	}

	// A cancelled edit: nothing is sent, the event stays as it was.
	edit := h.StartEdit(t)
	typ := edit.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	_, doc = h.Submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if !strings.Contains(doc.Text(), "exactly as it was") {
		t.Fatalf("cancel not confirmed: %s", doc.Text())
	}
	if msgs := h.DeliveredMail("edit"); len(msgs) != 0 {
		t.Fatalf("a cancelled edit sent %d messages", len(msgs))
	}
	if again := h.GetCalendar(t, "/booking/calendar.ics", bfftest.BkPaid2); again["UID"] != before["UID"] || bfftest.Sequence(t, again) != bfftest.Sequence(t, before) {
		t.Errorf("after a cancelled edit the event is %v/%d, was %v/%d", again["UID"], bfftest.Sequence(t, again), before["UID"], bfftest.Sequence(t, before))
	}

	// An edit that completes: other seats for the same tickets, no money.
	h.StartEdit(t)
	seats := h.Page("/booking/edit/seats", http.StatusOK)
	booked := seats.Find(`[data-testid="seatmap"] input[name="seat"][checked]`).Length()
	var free []string
	seats.Find(`[data-testid="seatmap"] input[name="seat"]:not([disabled])`).Each(func(_ int, s *bfftest.GoquerySel) {
		if _, checked := s.Attr("checked"); !checked && len(free) < booked {
			free = append(free, s.AttrOr("value", ""))
		}
	})
	if booked == 0 || len(free) != booked {
		t.Fatalf("%d booked seats, %d free ones to move to", booked, len(free))
	}
	if _, doc = h.Submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": free}); !strings.Contains(doc.Text(), "Your seats were changed.") {
		t.Fatalf("seat change not confirmed: %s", doc.Text())
	}
	if _, doc = h.Submit("/booking/edit/complete", "/booking/edit", nil); doc.Find(`[data-testid="changes"]`).Length() != 1 {
		t.Fatalf("no change summary: %s", doc.Text())
	}
	m := h.OneMail("edit")
	sent := bfftest.MailCalendar(t, m, bfftest.BkPaid2)
	if sent["UID"] != before["UID"] {
		t.Errorf("the update's UID %v, the page served %v", sent["UID"], before["UID"])
	}
	if bfftest.Sequence(t, sent) <= bfftest.Sequence(t, before) {
		t.Errorf("the update's SEQUENCE %d is not above the page's %d", bfftest.Sequence(t, sent), bfftest.Sequence(t, before))
	}
	after, err := h.Srv.Visits.ReadBooking(ctx, "0001", bfftest.BkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	h.WantShow(t, sent, after)
	// The page now serves the event of the last e-mail.
	now := h.GetCalendar(t, "/booking/calendar.ics", bfftest.BkPaid2)
	if now["UID"] != sent["UID"] || bfftest.Sequence(t, now) != bfftest.Sequence(t, sent) || now["DTSTART"] != sent["DTSTART"] {
		t.Errorf("the page serves %v, the e-mail carried %v", now, sent)
	}
}

// TestPurchaseCalendar: the purchase's e-mail carries the event and its confirmation page
// offers it, to the visit that bought it only.
func TestPurchaseCalendar(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	doc := h.Doc(h.WaitForConfirmation(ret, 5*time.Second))
	number, err := strconv.ParseInt(strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text()), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	href := doc.Find(`[data-testid="add-to-calendar"]`).AttrOr("href", "")
	if !strings.HasPrefix(href, "/checkout/payments/") || !strings.HasSuffix(href, "/calendar.ics") {
		t.Fatalf("Add to calendar link %q", href)
	}
	page := h.GetCalendar(t, href, number)
	b, err := h.Srv.Visits.ReadBooking(context.Background(), "0001", number)
	if err != nil {
		t.Fatal(err)
	}
	h.WantShow(t, page, b)
	sent := bfftest.MailCalendar(t, h.OneMail("purchase"), number)
	if sent["UID"] != page["UID"] || bfftest.Sequence(t, sent) != 0 || bfftest.Sequence(t, page) != 0 {
		t.Errorf("the e-mail's event %v/%d, the page's %v/%d", sent["UID"], bfftest.Sequence(t, sent), page["UID"], bfftest.Sequence(t, page))
	}

	// Another visit, with the same link, gets nothing.
	resp, err := http.Get(h.TS.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("another visit's download of the purchase's event: %d", resp.StatusCode)
	}
	if resp, _ := h.Get("/checkout/payments/" + strings.Repeat("0", 32) + "/calendar.ics"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a guessed reference: %d", resp.StatusCode)
	}
}

// TestSwapCalendar: a seat swap's message carries the update: the same UID as the page served
// before, a higher SEQUENCE, the new seats.
func TestSwapCalendar(t *testing.T) {
	h := bfftest.SwapHarness(t, bfftest.BkPaid4) // J10, J11, J12: tickets 1, 2, 3
	before := h.GetCalendar(t, "/booking/calendar.ics", bfftest.BkPaid4)
	bfftest.SwapThrough(t, h, bfftest.BkPaid4, []string{"1", "2"}, []string{bfftest.Seat(1, 2, 3), bfftest.Seat(1, 2, 4)})
	sent := bfftest.MailCalendar(t, h.OneMail("swap"), bfftest.BkPaid4)
	if sent["UID"] != before["UID"] || bfftest.Sequence(t, sent) != bfftest.Sequence(t, before)+1 {
		t.Errorf("the swap's event %v/%d, before %v/%d", sent["UID"], bfftest.Sequence(t, sent), before["UID"], bfftest.Sequence(t, before))
	}
	if d := sent["DESCRIPTION"].Value; !strings.Contains(d, `Row C\, seat 4`) || strings.Contains(d, `Row J\, seat 10`) {
		t.Errorf("the swap's event names the seats %q", d)
	}
}
