package booking_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

func berlinClock(t *testing.T, at time.Time) string {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return at.In(loc).Format("15:04")
}

// berlinAt is a moment as the change window writes it at now: the clock time, and its day
// when that is not now's day in Berlin ("23:33 on Thursday 26 November", near midnight).
func berlinAt(t *testing.T, now, at time.Time) string {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if y, m, d := at.In(loc).Date(); words.SameDay(now.In(loc), y, m, d) {
		return berlinClock(t, at)
	}
	en, _ := webtest.Localizers(t)
	return berlinClock(t, at) + " on " + en.Time(at, loc, i18n.DayLong)
}

// disabledWith checks that the action is shown disabled, with no form or link, and returns
// its reason: its own words, or the words its button is described by (a reason shared by
// several actions is said once).
func disabledWith(t *testing.T, doc *goquery.Document, testid string) string {
	t.Helper()
	a := doc.Find(`[data-testid="` + testid + `"]`)
	if a.Length() != 1 || a.Find("form, a").Length() != 0 || a.Find("button[disabled]").Length() != 1 {
		t.Fatalf("%s is not shown disabled: %s", testid, a.Text())
	}
	if own := a.Find(".disabled-reason"); own.Length() > 0 {
		return strings.TrimSpace(own.Text())
	}
	if by := a.Find("button[disabled]").AttrOr("aria-describedby", ""); by != "" {
		return strings.Join(strings.Fields(doc.Find("#"+by).Text()), " ")
	}
	return ""
}

// refusedWithoutUpstream posts a change and checks it is refused (409) with the words, and
// that the operation never reached the ticketing system.
func refusedWithoutUpstream(t *testing.T, h *bfftest.Harness, path, tokenPage string, form url.Values, op string, words ...string) {
	t.Helper()
	before := h.SB.Calls(op)
	resp, body := h.Post(path, tokenPage, form)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("POST %s: status %d, want 409: %s", path, resp.StatusCode, h.Doc(body).Find("main").Text())
	}
	text := strings.Join(strings.Fields(h.Doc(body).Find("main").Text()), " ")
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Fatalf("POST %s: refusal does not say %q: %s", path, w, text)
		}
	}
	if n := h.SB.Calls(op) - before; n != 0 {
		t.Fatalf("POST %s: %d %s calls upstream after the cut-off", path, n, op)
	}
}

func TestCutoffSoonShowIsClosedForCustomers(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	show := h.ShowtimeOf("1028")
	closed := "Changes closed at " + berlinClock(t, show.Add(-30*time.Minute))
	tail := "30 minutes before the show. Please ask at the box office."

	doc := h.FindCutoff(bfftest.BkSoon)
	for _, id := range []string{"action-edit", "action-swap"} {
		if r := disabledWith(t, doc, id); !strings.HasPrefix(r, closed) || !strings.HasSuffix(r, tail) {
			t.Fatalf("%s reason %q, want %q … %q", id, r, closed, tail)
		}
	}
	if strings.Contains(doc.Text(), "Changes possible until") {
		t.Fatal("the page says changes are possible")
	}
	refusedWithoutUpstream(t, h, "/booking/edit/start", "/booking/current", nil, "EditBooking", closed, tail)
	// The swap page explains instead of offering the map; its form, replayed, is refused.
	swapPage := h.Page(bfftest.SwapPath(bfftest.BkSoon, ""), http.StatusOK)
	if !strings.Contains(swapPage.Text(), closed) || swapPage.Find(`input[name="seat"]`).Length() != 0 {
		t.Fatalf("swap page: %s", swapPage.Find("main").Text())
	}
	refusedWithoutUpstream(t, h, bfftest.SwapPath(bfftest.BkSoon, ""), "/booking/current", url.Values{"ticket": {"1"}, "seat": {bfftest.Seat(1, 4, 0)}}, "SwapSeats", closed, tail)
	if n := h.SB.Calls("EditBooking") + h.SB.Calls("SwapSeats"); n != 0 {
		t.Fatalf("%d change calls upstream", n)
	}
}

func TestCutoffStartedShowIsClosed(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	show := h.ShowtimeOf("1029")
	now := time.Now()
	want := fmt.Sprintf("Changes closed at %s, 30 minutes before the show, which started at %s.", berlinAt(t, now, show.Add(-30*time.Minute)), berlinAt(t, now, show))

	doc := h.FindCutoff(bfftest.BkStarted)
	for _, id := range []string{"action-edit", "action-swap"} {
		if r := disabledWith(t, doc, id); r != want {
			t.Fatalf("%s reason %q, want %q", id, r, want)
		}
	}
	refusedWithoutUpstream(t, h, "/booking/edit/start", "/booking/current", nil, "EditBooking", want)
	refusedWithoutUpstream(t, h, bfftest.SwapPath(bfftest.BkStarted, ""), "/booking/current", url.Values{"ticket": {"1"}, "seat": {bfftest.Seat(1, 4, 0)}}, "SwapSeats", want)
}

func TestCutoffFarAheadSaysUntilWhen(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	show := h.ShowtimeOf("1113") // tomorrow 20:30 local
	doc := h.FindCutoff(bfftest.BkPaid1)
	got := strings.TrimSpace(doc.Find(`[data-testid="change-window"]`).Text())
	if !regexp.MustCompile(`^Changes possible until \d\d:\d\d`).MatchString(got) || !strings.HasPrefix(got, "Changes possible until "+berlinClock(t, show.Add(-30*time.Minute))) ||
		!strings.HasSuffix(got, ", 30 minutes before the show.") {
		t.Fatalf("change window %q", got)
	}
	if doc.Find(`[data-testid="action-edit"] form`).Length() != 1 || doc.Find(`[data-testid="action-swap"] a`).Length() != 1 {
		t.Fatal("change actions not offered before the cut-off")
	}
}

// TestCutoffStaffMayChangeUntilTheShowStarts: staff signed in at an enrolled counter may
// change a booking until the show starts; signed in on an ordinary browser, the customers'
// cut-off applies to them too.
func TestCutoffStaffMayChangeUntilTheShowStarts(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	bfftest.SignInStaff(t, h)
	show := h.ShowtimeOf("1028")
	closed := "Changes closed at " + berlinClock(t, show.Add(-30*time.Minute))
	doc := h.FindCutoff(bfftest.BkSoon)
	if r := disabledWith(t, doc, "action-edit"); !strings.HasPrefix(r, closed) {
		t.Fatalf("staff on an ordinary browser: reason %q, want the customers' cut-off %q", r, closed)
	}
	refusedWithoutUpstream(t, h, "/booking/edit/start", "/booking/current", nil, "EditBooking", closed)

	h.Enrol(device.Counter)
	bfftest.SignInStaff(t, h)
	doc = h.FindCutoff(bfftest.BkSoon)
	if got, want := strings.TrimSpace(doc.Find(`[data-testid="change-window"]`).Text()), "Changes possible until "+berlinAt(t, time.Now(), show)+", when the show starts."; got != want {
		t.Fatalf("change window %q, want %q", got, want)
	}
	h.StartEdit(t)
	if n := h.SB.Calls("EditBooking"); n != 1 {
		t.Fatalf("%d EditBooking calls", n)
	}
	// Once the show has started, not even the counter can change it.
	started := h.ShowtimeOf("1029")
	doc = h.FindCutoff(bfftest.BkStarted)
	want := "Changes closed when the show started at " + berlinAt(t, time.Now(), started) + "."
	if r := disabledWith(t, doc, "action-edit"); r != want {
		t.Fatalf("staff reason %q, want %q", r, want)
	}
	refusedWithoutUpstream(t, h, "/booking/edit/start", "/booking/current", nil, "EditBooking", want)
}

// TestCutoffRefusesReplayedChanges opens an edit and a checked swap before the cut-off, then
// lets the clock pass it: every change is refused with the words and nothing goes upstream,
// but cancelling the edit still works and restores the booking.
func TestCutoffRefusesReplayedChanges(t *testing.T) {
	var offset atomic.Int64
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	show := h.ShowtimeOf("1113")
	h.FindCutoff(bfftest.BkPaid1)
	h.StartEdit(t)
	offset.Store(int64(time.Until(show.Add(-20 * time.Minute))))
	closed := "Changes closed at " + berlinClock(t, show.Add(-30*time.Minute))

	edit := h.Page("/booking/edit", http.StatusOK)
	if !strings.Contains(edit.Text(), closed) {
		t.Fatalf("the edit page does not say changes closed: %s", edit.Find("main").Text())
	}
	refusedWithoutUpstream(t, h, "/booking/edit/tickets", "/booking/edit", url.Values{"type": {"0001"}, "qty": {"1"}}, "AddTickets", closed)
	refusedWithoutUpstream(t, h, "/booking/edit/tickets/remove", "/booking/edit", url.Values{"ticket": {"1"}}, "RemoveTickets", closed)
	refusedWithoutUpstream(t, h, "/booking/edit/seats", "/booking/edit", url.Values{"seat": {bfftest.Seat(1, 5, 2), bfftest.Seat(1, 5, 3)}}, "SetSelectedSeats", closed)
	refusedWithoutUpstream(t, h, "/booking/edit/extend", "/booking/edit", nil, "ResetOrderExpiry", closed)
	refusedWithoutUpstream(t, h, "/booking/edit/complete", "/booking/edit", nil, "CompleteEditBooking", closed)
	resp, doc := h.Submit("/booking/edit/cancel", "/booking/edit", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Text(), "Your changes were cancelled") || h.SB.Calls("CancelOrder") != 1 {
		t.Fatalf("cancel after the cut-off: %d %s", resp.StatusCode, doc.Find("main").Text())
	}

	// A swap checked before the cut-off and confirmed after it.
	offset.Store(0)
	h.FindCutoff(bfftest.BkPaid2)
	if resp, doc := h.ReviewSwap(bfftest.BkPaid2, []string{"1"}, []string{bfftest.Seat(1, 5, 2)}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("review: %d %s", resp.StatusCode, doc.Find(".notice").Text())
	}
	offset.Store(int64(time.Until(show.Add(-20 * time.Minute))))
	refusedWithoutUpstream(t, h, bfftest.SwapPath(bfftest.BkPaid2, "/confirm"), "/booking/current", nil, "SwapSeats", closed)
}

func TestCutoffWords(t *testing.T) {
	en, de := webtest.Localizers(t)
	for d, want := range map[time.Duration]string{
		30 * time.Minute: "30 minutes", time.Minute: "1 minute", time.Hour: "1 hour", 2 * time.Hour: "2 hours",
		90 * time.Minute: "1 hour 30 minutes", 45 * time.Second: "45 seconds", 2*time.Hour + 90*time.Second: "2 hours 1 minute",
	} {
		if got := words.Cutoff(en, d); got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		30 * time.Minute: "30 Minuten", time.Minute: "1 Minute", time.Hour: "1 Stunde", 90 * time.Minute: "1 Stunde 30 Minuten",
		1 * time.Second: "1 Sekunde", 2*time.Hour + 90*time.Second: "2 Stunden 1 Minute",
	} {
		if got := words.Cutoff(de, d); got != want {
			t.Errorf("German %s: %q, want %q", d, got, want)
		}
	}
}

func TestSessionStartedRefusalInWords(t *testing.T) {
	want := "This showing has already started, so the booking can no longer be changed."
	if got := words.EditRestriction(bfftest.EnglishLocalizer(t), upstream.EditSessionStarted); got != want {
		t.Errorf("edit: %q", got)
	}
	if got := words.SwapRestriction(bfftest.EnglishLocalizer(t), upstream.SwapSessionStarted); got != want {
		t.Errorf("swap: %q", got)
	}
}
