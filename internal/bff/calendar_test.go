package bff

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/mail"
)

// icsEvent reads the VEVENT of a calendar file: each property by name, with its parameters
// ("TZID=Europe/Berlin") and its value. Lines are unfolded first; every physical line must end
// in CRLF and hold at most 75 octets.
type icsProp struct{ Params, Value string }

func icsEvent(t *testing.T, data []byte) map[string]icsProp {
	t.Helper()
	s := string(data)
	if !strings.HasPrefix(s, "BEGIN:VCALENDAR\r\n") || !strings.HasSuffix(s, "END:VCALENDAR\r\n") {
		t.Fatalf("not a VCALENDAR:\n%s", s)
	}
	var lines []string
	for _, ln := range strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n") {
		if len(ln) > 75 || strings.ContainsAny(ln, "\r\n") {
			t.Errorf("bad physical line %q", ln)
		}
		if strings.HasPrefix(ln, " ") && len(lines) > 0 {
			lines[len(lines)-1] += ln[1:]
			continue
		}
		lines = append(lines, ln)
	}
	out := map[string]icsProp{}
	in := false
	for _, ln := range lines {
		switch ln {
		case "BEGIN:VEVENT":
			in = true
			continue
		case "END:VEVENT":
			in = false
		}
		if !in {
			continue
		}
		head, value, ok := strings.Cut(ln, ":")
		if !ok {
			t.Fatalf("line without a value: %q", ln)
		}
		name, params, _ := strings.Cut(head, ";")
		out[name] = icsProp{Params: params, Value: value}
	}
	if len(out) == 0 {
		t.Fatalf("no VEVENT:\n%s", s)
	}
	return out
}

// getCalendar downloads a calendar file and checks that it is one.
func (h *harness) getCalendar(t *testing.T, path string, number int64) map[string]icsProp {
	t.Helper()
	resp, body := h.get(path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "text/calendar" || params["method"] != "PUBLISH" {
		t.Errorf("Content-Type = %q", resp.Header.Get("Content-Type"))
	}
	if disp, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err != nil || disp != "attachment" ||
		params["filename"] != "booking-"+strconv.FormatInt(number, 10)+".ics" {
		t.Errorf("Content-Disposition = %q", resp.Header.Get("Content-Disposition"))
	}
	return icsEvent(t, []byte(body))
}

// mailCalendar is the .ics a message carries.
func mailCalendar(t *testing.T, m mail.StoredMessage, number int64) map[string]icsProp {
	t.Helper()
	if len(m.Attachments) != 1 {
		t.Fatalf("the %s message has %d attachments, want the .ics", m.Kind, len(m.Attachments))
	}
	a := m.Attachments[0]
	mt, params, err := mime.ParseMediaType(a.ContentType)
	if err != nil || mt != "text/calendar" || params["method"] != "PUBLISH" || params["charset"] != "utf-8" || a.Filename != "booking-"+strconv.FormatInt(number, 10)+".ics" {
		t.Errorf("attachment %q of type %q", a.Filename, a.ContentType)
	}
	return icsEvent(t, a.Data)
}

func sequence(t *testing.T, ev map[string]icsProp) int {
	t.Helper()
	n, err := strconv.Atoi(ev["SEQUENCE"].Value)
	if err != nil {
		t.Fatalf("SEQUENCE %q: %v", ev["SEQUENCE"].Value, err)
	}
	return n
}

// wantShow checks that the event starts at the booking's show, in the cinema's zone, and lasts
// the film's running time.
func (h *harness) wantShow(t *testing.T, ev map[string]icsProp, b cinema.Booking) {
	t.Helper()
	ctx := context.Background()
	loc := h.srv.Visits.CinemaByID(ctx, b.CinemaID).Location()
	if loc == time.UTC {
		t.Fatalf("cinema %s has no zone", b.CinemaID)
	}
	start := b.Session.Showtime.In(loc)
	if got := ev["DTSTART"]; got.Params != "TZID="+loc.String() || got.Value != start.Format("20060102T150405") {
		t.Errorf("DTSTART;%s:%s, want the show's local start TZID=%s:%s", got.Params, got.Value, loc, start.Format("20060102T150405"))
	}
	sess, err := h.srv.Kernel.Ticketing.FindSession(ctx, b.CinemaID, b.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	films, err := h.srv.Kernel.Ticketing.ListFilms(ctx, b.CinemaID)
	if err != nil {
		t.Fatal(err)
	}
	var run time.Duration
	for _, f := range films {
		if f.ID == sess.FilmID {
			run = f.RunTime
		}
	}
	if run == 0 {
		t.Fatalf("film %s has no running time in the sandbox", sess.FilmID)
	}
	if got := ev["DTEND"]; got.Value != start.Add(run).In(loc).Format("20060102T150405") {
		t.Errorf("DTEND = %s, want the start + %v", got.Value, run)
	}
	if !strings.Contains(ev["DESCRIPTION"].Value, strconv.FormatInt(b.Number, 10)) {
		t.Errorf("DESCRIPTION %q does not name the booking", ev["DESCRIPTION"].Value)
	}
}

// TestBookingCalendar: the booking page offers the booking's event; it starts at the show in
// the cinema's zone. A cancelled edit sends nothing and leaves the event as it was; an edit that
// completes sends a message whose .ics has the same UID and a higher SEQUENCE, and the page
// then serves that same event.
func TestBookingCalendar(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	ctx := context.Background()

	// Nobody gets a booking's event without finding the booking first.
	if resp, _ := h.get("/booking/calendar.ics"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unbound visit's calendar: %d", resp.StatusCode)
	}

	doc := h.find(bkPaid2)
	link := doc.Find(`[data-testid="add-to-calendar"]`)
	if href := link.AttrOr("href", ""); href != "/booking/calendar.ics" || strings.TrimSpace(link.Text()) != "Add to calendar" {
		t.Fatalf("Add to calendar link %q %q", href, link.Text())
	}
	before := h.getCalendar(t, "/booking/calendar.ics", bkPaid2)
	b, err := h.srv.Visits.ReadBooking(ctx, "0001", bkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	h.wantShow(t, before, b)
	if uid := before["UID"].Value; !strings.HasPrefix(uid, "booking-0001-100002@") {
		t.Errorf("UID = %s", uid)
	}
	if sequence(t, before) != 0 {
		t.Errorf("SEQUENCE of an unchanged booking = %d", sequence(t, before))
	}

	// A cancelled edit: nothing is sent, the event stays as it was.
	edit := h.startEdit(t)
	typ := edit.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	_, doc = h.submit("/booking/edit/cancel", "/booking/edit/cancel", nil)
	if !strings.Contains(doc.Text(), "exactly as it was") {
		t.Fatalf("cancel not confirmed: %s", doc.Text())
	}
	if msgs := h.deliveredMail("edit"); len(msgs) != 0 {
		t.Fatalf("a cancelled edit sent %d messages", len(msgs))
	}
	if again := h.getCalendar(t, "/booking/calendar.ics", bkPaid2); again["UID"] != before["UID"] || sequence(t, again) != sequence(t, before) {
		t.Errorf("after a cancelled edit the event is %v/%d, was %v/%d", again["UID"], sequence(t, again), before["UID"], sequence(t, before))
	}

	// An edit that completes: other seats for the same tickets, no money.
	h.startEdit(t)
	seats := h.page("/booking/edit/seats", http.StatusOK)
	booked := seats.Find(`[data-testid="seatmap"] input[name="seat"][checked]`).Length()
	var free []string
	seats.Find(`[data-testid="seatmap"] input[name="seat"]:not([disabled])`).Each(func(_ int, s *goquerySel) {
		if _, checked := s.Attr("checked"); !checked && len(free) < booked {
			free = append(free, s.AttrOr("value", ""))
		}
	})
	if booked == 0 || len(free) != booked {
		t.Fatalf("%d booked seats, %d free ones to move to", booked, len(free))
	}
	if _, doc = h.submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": free}); !strings.Contains(doc.Text(), "Your seats were changed.") {
		t.Fatalf("seat change not confirmed: %s", doc.Text())
	}
	if _, doc = h.submit("/booking/edit/complete", "/booking/edit", nil); doc.Find(`[data-testid="changes"]`).Length() != 1 {
		t.Fatalf("no change summary: %s", doc.Text())
	}
	m := h.oneMail("edit")
	sent := mailCalendar(t, m, bkPaid2)
	if sent["UID"] != before["UID"] {
		t.Errorf("the update's UID %v, the page served %v", sent["UID"], before["UID"])
	}
	if sequence(t, sent) <= sequence(t, before) {
		t.Errorf("the update's SEQUENCE %d is not above the page's %d", sequence(t, sent), sequence(t, before))
	}
	after, err := h.srv.Visits.ReadBooking(ctx, "0001", bkPaid2)
	if err != nil {
		t.Fatal(err)
	}
	h.wantShow(t, sent, after)
	// The page now serves the event of the last e-mail.
	now := h.getCalendar(t, "/booking/calendar.ics", bkPaid2)
	if now["UID"] != sent["UID"] || sequence(t, now) != sequence(t, sent) || now["DTSTART"] != sent["DTSTART"] {
		t.Errorf("the page serves %v, the e-mail carried %v", now, sent)
	}
}

// TestPurchaseCalendar: the purchase's e-mail carries the event and its confirmation page
// offers it, to the visit that bought it only.
func TestPurchaseCalendar(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	h.buyUpToSummary("1113", twoAdults())
	ret := h.actAtProvider(h.pressPay(), "pay")
	doc := h.doc(h.waitForConfirmation(ret, 5*time.Second))
	number, err := strconv.ParseInt(strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text()), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	href := doc.Find(`[data-testid="add-to-calendar"]`).AttrOr("href", "")
	if !strings.HasPrefix(href, "/checkout/payments/") || !strings.HasSuffix(href, "/calendar.ics") {
		t.Fatalf("Add to calendar link %q", href)
	}
	page := h.getCalendar(t, href, number)
	b, err := h.srv.Visits.ReadBooking(context.Background(), "0001", number)
	if err != nil {
		t.Fatal(err)
	}
	h.wantShow(t, page, b)
	sent := mailCalendar(t, h.oneMail("purchase"), number)
	if sent["UID"] != page["UID"] || sequence(t, sent) != 0 || sequence(t, page) != 0 {
		t.Errorf("the e-mail's event %v/%d, the page's %v/%d", sent["UID"], sequence(t, sent), page["UID"], sequence(t, page))
	}

	// Another visit, with the same link, gets nothing.
	resp, err := http.Get(h.ts.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("another visit's download of the purchase's event: %d", resp.StatusCode)
	}
	if resp, _ := h.get("/checkout/payments/" + strings.Repeat("0", 32) + "/calendar.ics"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a guessed reference: %d", resp.StatusCode)
	}
}

// TestSwapCalendar: a seat swap's message carries the update: the same UID as the page served
// before, a higher SEQUENCE, the new seats.
func TestSwapCalendar(t *testing.T) {
	h := swapHarness(t, bkPaid4) // J10, J11, J12: tickets 1, 2, 3
	before := h.getCalendar(t, "/booking/calendar.ics", bkPaid4)
	swapThrough(t, h, bkPaid4, []string{"1", "2"}, []string{seat(1, 2, 3), seat(1, 2, 4)})
	sent := mailCalendar(t, h.oneMail("swap"), bkPaid4)
	if sent["UID"] != before["UID"] || sequence(t, sent) != sequence(t, before)+1 {
		t.Errorf("the swap's event %v/%d, before %v/%d", sent["UID"], sequence(t, sent), before["UID"], sequence(t, before))
	}
	if d := sent["DESCRIPTION"].Value; !strings.Contains(d, `Row C\, seat 4`) || strings.Contains(d, `Row J\, seat 10`) {
		t.Errorf("the swap's event names the seats %q", d)
	}
}
