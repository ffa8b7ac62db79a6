package bfftest

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// Entries lists every ledger entry. (SQLite has one connection: the id rows are read and
// closed before the per-edit queries.)
func Entries(t *testing.T, h *Harness) ([]ledger.Entry, bool) {
	t.Helper()
	rows, err := h.DB.SQL.QueryContext(context.Background(), "SELECT DISTINCT edit_session_id FROM ledger_entries")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	var out []ledger.Entry
	for _, id := range ids {
		es, err := h.Srv.Ledger.ForEdit(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, es...)
	}
	return out, true
}

// Ready-made sandbox bookings (docs/sandbox.md), all cinema 0001.
const (
	BkPaid1       = 100001
	BkPaid2       = 100002
	BkPaid3       = 100003
	BkPaid4       = 100004
	BkPremium     = 100005 // one premium adult in Saal 1
	BkUnpaid      = 100010
	BkConcessions = 100011
	BkPackage     = 100012
	BkLoyalty     = 100013
	BkVoucher     = 100014
	BkPartner     = 100015
	BkInternal    = 100016
	BkInSeat      = 100017
	BkFeeChange   = 100018
)

var BookingEmails = map[int]string{
	BkPaid1: "paid1@example.com", BkPaid2: "paid2@example.com", BkPaid3: "paid3@example.com", BkPaid4: "paid4@example.com",
	BkUnpaid: "unpaid@example.com", BkConcessions: "concessions@example.com", BkPackage: "package@example.com",
	BkLoyalty: "loyalty@example.com", BkVoucher: "voucher@example.com", BkPartner: "partner@example.com",
	BkInternal: "internal@example.com", BkInSeat: "inseat@example.com", BkFeeChange: "feechange@example.com",
	BkPremium: "paid5@example.com",
}

// Find looks a booking up and returns the booking page.
func (h *Harness) Find(number int) *goquery.Document {
	h.T.Helper()
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(number)}, "email": {BookingEmails[number]}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("find %d: status %d: %s", number, resp.StatusCode, body)
	}
	return h.Page("/booking/current", http.StatusOK)
}

// Page GETs a page and checks its status.
func (h *Harness) Page(path string, want int) *goquery.Document {
	h.T.Helper()
	resp, body := h.Get(path)
	if resp.StatusCode != want {
		h.T.Fatalf("GET %s: status %d, want %d: %s", path, resp.StatusCode, want, body)
	}
	return h.Doc(body)
}

// Submit POSTs a form scraped from tokenPage and follows redirects within the site to the
// final page; it returns that page and its status.
func (h *Harness) Submit(path, tokenPage string, form url.Values) (*http.Response, *goquery.Document) {
	h.T.Helper()
	resp, body := h.Post(path, tokenPage, form)
	return h.Follow(resp, body)
}

// Follow follows 303/302 redirects (also to the payment provider) and returns the last answer.
func (h *Harness) Follow(resp *http.Response, body string) (*http.Response, *goquery.Document) {
	h.T.Helper()
	for i := 0; i < 10 && (resp.StatusCode == http.StatusSeeOther || resp.StatusCode == http.StatusFound); i++ {
		loc, err := resp.Location()
		if err != nil {
			h.T.Fatal(err)
		}
		resp, body = h.GetURL(loc.String())
	}
	return resp, h.Doc(body)
}

// GetURL GETs an absolute URL (our site or the provider's page) with the visit's cookies.
func (h *Harness) GetURL(u string) (*http.Response, string) {
	h.T.Helper()
	resp, err := h.Client.Get(u)
	if err != nil {
		h.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// AddOneTicket starts a change of the visit's booking and adds one ticket of the first type the
// edit page offers; it returns the edit page after it.
func (h *Harness) AddOneTicket(t testing.TB) *goquery.Document {
	t.Helper()
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	_, doc = h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	return doc
}

// CompleteToProvider presses Complete on a change with more to pay and returns the provider's
// page it is sent to.
func (h *Harness) CompleteToProvider(t testing.TB) string {
	t.Helper()
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	hosted := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(hosted, h.UpstreamURL+"/pay/checkout/") {
		t.Fatalf("complete did not send to the provider: %d %q %s", resp.StatusCode, hosted, body)
	}
	return hosted
}

// PostGivenUp sends a form from a browser that gives the request up when ctx ends (a second
// press, a closed tab). It returns the answer's status, or 0 when the browser gave up first.
func (h *Harness) PostGivenUp(ctx context.Context, path string, form url.Values) int {
	h.T.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.TS.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		h.T.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := h.Client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// StartEdit starts an edit from the booking page and returns the edit page.
func (h *Harness) StartEdit(t testing.TB) *goquery.Document {
	t.Helper()
	resp, doc := h.Submit("/booking/edit/start", "/booking/current", nil)
	if resp.StatusCode != http.StatusOK || doc.Find("#edit-title").Length() == 0 {
		t.Fatalf("start edit: status %d: %s", resp.StatusCode, doc.Text())
	}
	return doc
}

// PayAtProvider answers the provider's hosted page at hostedURL with action (pay, decline,
// cancel) and follows the way back to our site.
func (h *Harness) PayAtProvider(t *testing.T, hostedURL, action string) (*http.Response, *goquery.Document) {
	t.Helper()
	resp, body := h.GetURL(hostedURL)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Sandbox payment") {
		t.Fatalf("provider page %s: %d %s", hostedURL, resp.StatusCode, body)
	}
	if action == "decline" {
		// A declined card keeps the customer on the provider's page (Stripe Checkout); they
		// then turn back to us.
		r, err := h.Client.PostForm(hostedURL, url.Values{"action": {"decline"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(b)), "declined") {
			t.Fatalf("declined card: %d %s", r.StatusCode, b)
		}
		action = "cancel"
	}
	r, err := h.Client.PostForm(hostedURL, url.Values{"action": {action}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return h.Follow(r, string(b))
}

func LineStates(doc *goquery.Document) map[string]int {
	out := map[string]int{}
	doc.Find(`[data-testid="edit-lines"] li`).Each(func(_ int, s *goquery.Selection) {
		out[strings.TrimPrefix(s.AttrOr("data-testid", ""), "line-")]++
	})
	return out
}

func Text(doc *goquery.Document, testid string) string {
	return strings.TrimSpace(doc.Find(`[data-testid="` + testid + `"]`).First().Text())
}

// ContainsAmount reports whether text has prefix followed by the amount of cents euros, in
// English or German ("Paid: €13.25", "Paid: 13,25 €"): e-mails are written in the language of
// their booking, pages in the visitor's.
func ContainsAmount(t testing.TB, text, prefix string, cents int64) bool {
	t.Helper()
	en, de := webtest.Localizers(t)
	m := cinema.Money{Cents: cents, Currency: "EUR"}
	return strings.Contains(text, prefix+en.Money(m)) || strings.Contains(text, prefix+de.Money(m))
}

func MustFault(h *Harness, f sandbox.Fault) {
	h.T.Helper()
	if err := h.SB.Faults().Set(f); err != nil {
		h.T.Fatal(err)
	}
}

// InGerman fails unless the page says it is German.
func InGerman(t *testing.T, doc *goquery.Document, what string) {
	t.Helper()
	if lang, _ := doc.Find("html").Attr("lang"); lang != "de" {
		t.Fatalf("%s: <html lang=%q>, want \"de\": %s", what, lang, Squash(doc.Find("main").Text()))
	}
}

// WantContains fails unless the selection's text (white space folded) contains every want.
func WantContains(t *testing.T, doc *goquery.Document, sel string, want ...string) {
	t.Helper()
	got := Squash(doc.Find(sel).Text())
	for _, w := range want {
		if !strings.Contains(got, Squash(w)) {
			t.Errorf("%s lacks %q: %q", sel, w, got)
		}
	}
}

// A refund's approval depends on who makes it and how much, never on the device.

const (
	ApprovalLimit  = 500 // 5,00: removing one adult ticket of 100003 refunds more
	ApprovalBook   = "100003"
	ApprovalPayRef = "pi_seed100003" // the provider payment a refund of 100003 goes back to
)

// RemoveOneTicket looks the approval booking up by number (staff), starts an edit, removes one
// ticket and returns the refund the edit page shows.
func (h *Harness) RemoveOneTicket() string {
	h.T.Helper()
	h.CounterFind(ApprovalBook)
	doc := h.StartEdit(h.T)
	id := doc.Find(`[data-testid="line-kept"][data-ticket]`).First().AttrOr("data-ticket", "")
	_, doc = h.Submit("/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {id}})
	return Text(doc, "balance")
}

// FreshBrowser is another browser on the same site: no cookies of this visit.
func (h *Harness) FreshBrowser() *Harness {
	jar, _ := cookiejar.New(nil)
	b := *h
	b.Client = &http.Client{Jar: jar, CheckRedirect: h.Client.CheckRedirect}
	return &b
}

// MoveTo chooses show session on the showtimes page and keeps the seats the ticketing system
// chose there; it returns the change page.
func (h *Harness) MoveTo(t *testing.T, session string) *goquery.Document {
	t.Helper()
	resp, seats := h.Submit("/booking/showtimes", "/booking/showtimes", url.Values{"session": {session}})
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
	resp, doc := h.Submit("/booking/edit/seats", "/booking/edit/seats", url.Values{"seat": chosen})
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid="move-shows"]`).Length() != 1 {
		t.Fatalf("keeping the preselected seats: %d: %s", resp.StatusCode, doc.Find("main").Text())
	}
	return doc
}

// SeatsByLabel reads the seats of a session's plan by label ("F11") from the ticketing system.
func (h *Harness) SeatsByLabel(t *testing.T, session string) map[string]cinema.SeatAvailability {
	t.Helper()
	plan, err := h.Srv.Kernel.Ticketing.GetSeatPlan(context.Background(), "0001", session)
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

// BookedSeats are the session and seats of the booking's tickets, read from the ticketing
// system.
func (h *Harness) BookedSeats(t *testing.T, number int64) (session string, seats []string) {
	t.Helper()
	b, err := h.Srv.Kernel.Ticketing.GetSingleBooking(context.Background(), "0001", number)
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

// OrderSeats reads the edit's order: the seats its live (not removed) tickets hold now.
func (h *Harness) OrderSeats(t *testing.T) (session string, seats []string) {
	t.Helper()
	doc := h.Page("/booking/edit", http.StatusOK)
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

// Ready-made bookings of the change cut-off (docs/sandbox.md), cinema 0001.
const (
	BkSoon    = 100019 // its show starts 20 minutes after start-up: inside the 30-minute cut-off
	BkStarted = 100021 // its show started 10 minutes before start-up
)

var CutoffEmails = map[int]string{BkSoon: "soon@example.com", BkStarted: "started@example.com", BkPaid1: "paid1@example.com", BkPaid2: "paid2@example.com"}

// FindCutoff looks a booking of the cut-off tests up and returns its page.
func (h *Harness) FindCutoff(number int) *goquery.Document {
	h.T.Helper()
	resp, body := h.Post("/booking", "/booking", url.Values{"cinema": {"0001"}, "number": {fmt.Sprint(number)}, "email": {CutoffEmails[number]}})
	if resp.StatusCode != http.StatusSeeOther {
		h.T.Fatalf("find %d: status %d: %s", number, resp.StatusCode, body)
	}
	return h.Page("/booking/current", http.StatusOK)
}

// ShowtimeOf is a session's start as the ticketing system lists it.
func (h *Harness) ShowtimeOf(sessionID string) time.Time {
	h.T.Helper()
	s, err := h.Srv.Kernel.Ticketing.FindSession(context.Background(), "0001", sessionID)
	if err != nil || s.Showtime.IsZero() {
		h.T.Fatalf("session %s: %v %v", sessionID, s, err)
	}
	return s.Showtime
}

func SignInStaff(t *testing.T, h *Harness) {
	t.Helper()
	if err := h.Srv.Staff.Put(context.Background(), "anna", "Anna Box", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := h.Post("/staff/sign-in", "/staff/sign-in", url.Values{"username": {"anna"}, "password": {"correct horse battery"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: %d", resp.StatusCode)
	}
}

// IcsProp is one property of a calendar file's VEVENT: its parameters ("TZID=Europe/Berlin")
// and its value.
type IcsProp struct{ Params, Value string }

// IcsEvent reads the VEVENT of a calendar file, each property by name. Lines are unfolded first;
// every physical line must end in CRLF and hold at most 75 octets.
func IcsEvent(t *testing.T, data []byte) map[string]IcsProp {
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
	out := map[string]IcsProp{}
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
		out[name] = IcsProp{Params: params, Value: value}
	}
	if len(out) == 0 {
		t.Fatalf("no VEVENT:\n%s", s)
	}
	return out
}

// GetCalendar downloads a calendar file and checks that it is one.
func (h *Harness) GetCalendar(t *testing.T, path string, number int64) map[string]IcsProp {
	t.Helper()
	resp, body := h.Get(path)
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
	return IcsEvent(t, []byte(body))
}

// MailCalendar is the .ics a message carries.
func MailCalendar(t *testing.T, m mail.StoredMessage, number int64) map[string]IcsProp {
	t.Helper()
	if len(m.Attachments) != 1 {
		t.Fatalf("the %s message has %d attachments, want the .ics", m.Kind, len(m.Attachments))
	}
	a := m.Attachments[0]
	mt, params, err := mime.ParseMediaType(a.ContentType)
	if err != nil || mt != "text/calendar" || params["method"] != "PUBLISH" || params["charset"] != "utf-8" || a.Filename != "booking-"+strconv.FormatInt(number, 10)+".ics" {
		t.Errorf("attachment %q of type %q", a.Filename, a.ContentType)
	}
	return IcsEvent(t, a.Data)
}

func Sequence(t *testing.T, ev map[string]IcsProp) int {
	t.Helper()
	n, err := strconv.Atoi(ev["SEQUENCE"].Value)
	if err != nil {
		t.Fatalf("SEQUENCE %q: %v", ev["SEQUENCE"].Value, err)
	}
	return n
}

// WantShow checks that the event starts at the booking's show, in the cinema's zone, and lasts
// the film's running time.
func (h *Harness) WantShow(t *testing.T, ev map[string]IcsProp, b cinema.Booking) {
	t.Helper()
	ctx := context.Background()
	loc := h.Srv.Visits.CinemaByID(ctx, b.CinemaID).Location()
	if loc == time.UTC {
		t.Fatalf("cinema %s has no zone", b.CinemaID)
	}
	start := b.Session.Showtime.In(loc)
	if got := ev["DTSTART"]; got.Params != "TZID="+loc.String() || got.Value != start.Format("20060102T150405") {
		t.Errorf("DTSTART;%s:%s, want the show's local start TZID=%s:%s", got.Params, got.Value, loc, start.Format("20060102T150405"))
	}
	sess, err := h.Srv.Kernel.Ticketing.FindSession(ctx, b.CinemaID, b.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	films, err := h.Srv.Kernel.Ticketing.ListFilms(ctx, b.CinemaID)
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

// StartPaidEdit adds a ticket to bkPaid2 and returns the provider's checkout page of the
// difference.
func StartPaidEdit(t *testing.T, h *Harness) string {
	t.Helper()
	h.Find(BkPaid2)
	doc := h.StartEdit(t)
	typ := doc.Find(`[data-testid="stepper"] input[name="type"]`).First().AttrOr("value", "")
	h.Submit("/booking/edit/tickets", "/booking/edit", url.Values{"type": {typ}, "qty": {"1"}})
	resp, body := h.Post("/booking/edit/complete", "/booking/edit", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}
