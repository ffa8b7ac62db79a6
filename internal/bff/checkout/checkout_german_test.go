package checkout_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/cinema"
)

// total26 is the two adult tickets' total (2 × 12,50 + 2 × 0,75 fees) in German.
const total26 = "26,50\u00a0€"

// germanDayShort writes a day as the German short style does ("Mi., 25. Nov."), spelled out
// here rather than asked of the catalog, so a wrong catalog entry shows.
func germanDayShort(d time.Time) string {
	days := []string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."}
	months := []string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."}
	return fmt.Sprintf("%s, %d. %s", days[d.Weekday()], d.Day(), months[d.Month()-1])
}

// germanVisit speaks to the site as a browser that asks for German.
type germanVisit struct{ h *bfftest.Harness }

var acceptGerman = http.Header{"Accept-Language": {"de-DE,de;q=0.9"}}

func (g germanVisit) get(path string) (*http.Response, string) {
	g.h.T.Helper()
	return g.h.Do("GET", path, nil, acceptGerman)
}

func (g germanVisit) post(path, tokenPage string, form url.Values) (*http.Response, string) {
	g.h.T.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", g.h.CSRFToken(tokenPage))
	return g.h.Do("POST", path, form, acceptGerman)
}

// page gets path in German and checks it is a German page.
func (g germanVisit) page(t *testing.T, path string) *bfftest.GoquerySel {
	t.Helper()
	resp, body := g.get(path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s in German: %d: %s", path, resp.StatusCode, body)
	}
	doc := g.h.Doc(body)
	if lang, _ := doc.Find("html").Attr("lang"); lang != "de" {
		t.Fatalf("GET %s: <html lang=%q>, want de", path, lang)
	}
	return doc.Selection
}

// TestCheckoutInGerman buys two tickets with a browser that asks for German: the listing has
// German day names and dates in the cinema's time zone, the ticket step German words and
// prices, and the return page and the confirmation are German, with German money.
func TestCheckoutInGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	g := germanVisit{h}
	berlin := bfftest.MustLoc(t, "Europe/Berlin") // the sandbox cinema 0001's time zone

	// What's on: today, tomorrow, then German short dates of the cinema's days.
	doc := g.page(t, "/whats-on?cinema=0001")
	if got := bfftest.Squash(doc.Find("h1").Text()); got != "Programm" {
		t.Errorf("What's on heading %q, want Programm", got)
	}
	now := time.Now().In(berlin)
	today, _ := cinema.Evening(now, berlin) // until the night ends, today is the evening before
	var days []string
	doc.Find(`[data-testid="days"] a`).Each(func(_ int, s *bfftest.GoquerySel) { days = append(days, bfftest.Squash(s.Text())) })
	want := []string{"Heute", "Morgen", germanDayShort(today.AddDate(0, 0, 2)), germanDayShort(today.AddDate(0, 0, 3))}
	if strings.Join(days, "|") != strings.Join(want, "|") {
		t.Errorf("days %q, want %q", days, want)
	}
	if label, _ := doc.Find(`[data-testid="days"]`).Parent().Attr("aria-label"); label != "Tage" {
		t.Errorf("days navigation label %q", label)
	}

	// Tomorrow's listing: session times in the cinema's time zone, seats free in German. The
	// sandbox's session 1113 is on the calendar day after start-up, which in the small hours
	// is two evenings on.
	tomorrow := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, berlin)
	tomorrowLabel := "Morgen"
	if !tomorrow.Equal(today.AddDate(0, 0, 1)) {
		tomorrowLabel = germanDayShort(tomorrow)
	}
	doc = g.page(t, "/whats-on?cinema=0001&day="+tomorrow.Format("2006-01-02"))
	link := doc.Find(`a[href="/whats-on/0001/1113"]`)
	if link.Length() != 1 {
		t.Fatalf("session 1113 not listed tomorrow")
	}
	iso, _ := link.Find("time").Attr("datetime")
	at, err := time.Parse(time.RFC3339, iso)
	if err != nil {
		t.Fatalf("session time %q: %v", iso, err)
	}
	if got := link.Find("time").Text(); got != at.In(berlin).Format("15:04") {
		t.Errorf("session time %q, want %q (Berlin time of %s)", got, at.In(berlin).Format("15:04"), iso)
	}
	if hidden := link.Find(".visually-hidden").Text(); !strings.Contains(hidden, "Plätze frei") {
		t.Errorf("session link says %q, want the free seats in German", hidden)
	}
	if h2 := bfftest.Squash(doc.Find("h2").First().Text()); !strings.HasSuffix(h2, ", "+tomorrowLabel) {
		t.Errorf("day heading %q", h2)
	}

	// The ticket step: German words, the showing's date in German, German prices.
	doc = g.page(t, "/whats-on/0001/1113")
	if got := bfftest.Squash(doc.Find("h1").Text()); got != "Wählen Sie Ihre Tickets" {
		t.Errorf("ticket step heading %q", got)
	}
	if got := bfftest.Squash(doc.Find("legend").Text()); got != "Tickets (bis zu 10 pro Buchung)" {
		t.Errorf("legend %q", got)
	}
	header := bfftest.Squash(doc.Find(`[data-testid="session-header"]`).Text())
	wantDay := fmt.Sprintf("%d. ", tomorrow.Day())
	if !strings.Contains(header, wantDay) || !strings.Contains(header, at.In(berlin).Format("15:04")+" Uhr") {
		t.Errorf("session header %q lacks the German date (%q) and Berlin time", header, wantDay)
	}
	prices := doc.Find(`[data-testid="tickets-form"] .amount`)
	if prices.Length() == 0 {
		t.Fatal("no prices on the ticket step")
	}
	prices.Each(func(_ int, s *bfftest.GoquerySel) {
		if p := s.Text(); !bfftest.GermanMoney.MatchString(p) {
			t.Errorf("price %q is not German money", p)
		}
	})
	if got := doc.Find(`[data-testid="steps"] [aria-current="step"]`).Text(); got != "Tickets" {
		t.Errorf("current step %q", got)
	}
	if got := bfftest.Squash(doc.Find(`[data-testid="tickets-form"] button[type="submit"]`).Text()); got != "Weiter zur Platzwahl" {
		t.Errorf("continue button %q", got)
	}

	// Too many tickets: the limit in German, its plural included.
	resp, body := g.post("/whats-on/0001/1113", "/whats-on/0001/1113", url.Values{"qty-0001": {"8"}, "qty-0002": {"5"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("13 tickets: %d", resp.StatusCode)
	}
	notice := bfftest.Squash(h.Doc(body).Find(`[data-testid="notice-error"]`).Text())
	if !strings.Contains(notice, "Höchstens 10 Plätze gleichzeitig") || !strings.Contains(notice, "höchstens 10 Plätze gleichzeitig reservieren und haben 13 gewählt") {
		t.Errorf("limit notice %q not in German", notice)
	}

	// Through the steps in German to the summary.
	resp, body = g.post("/whats-on/0001/1113", "/whats-on/0001/1113", bfftest.TwoAdults())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/seats")
	doc = g.page(t, "/checkout/seats")
	if got := bfftest.Squash(doc.Find("h1").Text()); got != "Plätze wählen" {
		t.Errorf("seat step heading %q", got)
	}
	resp, body = g.post("/checkout/seats", "/checkout/seats", h.CheckedSeats())
	bfftest.ExpectRedirect(t, resp, body, "/checkout/details")
	resp, body = g.post("/checkout/details", "/checkout/details", url.Values{"name": {"Ada Lovelace"}, "email": {"ada@example.com"}})
	bfftest.ExpectRedirect(t, resp, body, "/checkout")
	doc = g.page(t, "/checkout")
	if got := doc.Find(`[data-testid="total"]`).Text(); got != total26 {
		t.Errorf("summary total %q, want %q", got, total26)
	}
	if got := bfftest.Squash(doc.Find(`[data-testid="pay"]`).Text()); got != "26,50 € sicher bezahlen" {
		t.Errorf("pay button %q", got)
	}
	if seats := doc.Find(`[data-testid="tickets"] .ticket-seat`).First().Text(); !strings.HasPrefix(seats, "Reihe ") || !strings.Contains(seats, ", Platz ") {
		t.Errorf("seat %q not in German", seats)
	}

	// Pay, and come back from the provider: the return page and the confirmation in German.
	resp, body = g.post("/checkout/pay", "/checkout", nil)
	hosted := bfftest.ExpectRedirect(t, resp, body, h.UpstreamURL+"/pay/checkout/")
	ret := h.ActAtProvider(hosted, "pay")
	deadline := time.Now().Add(5 * time.Second)
	for {
		doc = g.page(t, ret)
		if doc.Find(`[data-testid="confirmation"]`).Length() == 1 {
			break
		}
		if got := bfftest.Squash(doc.Find("h1").Text()); got != "Ihre Zahlung wird bestätigt" {
			t.Fatalf("return page heading %q, want the German waiting page", got)
		}
		if time.Now().After(deadline) {
			t.Fatal("no confirmation within 5 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := bfftest.Squash(doc.Find("h1").Text()); !strings.HasSuffix(got, "Ihre Buchung ist bestätigt") {
		t.Errorf("confirmation heading %q", got)
	}
	if got := bfftest.Squash(doc.Find("#booking-number-label").Text()); got != "Buchungsnummer" {
		t.Errorf("booking number label %q", got)
	}
	if got := doc.Find(`[data-testid="confirmation"] [data-testid="total"]`).Text(); got != total26 {
		t.Errorf("confirmation total %q, want %q", got, total26)
	}
	pay := doc.Find(`[data-testid="payment"]`).Text()
	if !strings.Contains(pay, "Kartenzahlung") || !strings.Contains(pay, total26) {
		t.Errorf("payment line %q", pay)
	}
	if got := bfftest.Squash(doc.Find(`[data-testid="showtime"]`).Text()); !strings.Contains(got, fmt.Sprintf("%d. ", tomorrow.Day())) || !strings.HasSuffix(got, " Uhr") {
		t.Errorf("showtime %q not in German", got)
	}
	if seat := doc.Find(`[data-testid="seat"]`).First().Text(); !strings.HasPrefix(seat, "Reihe ") {
		t.Errorf("confirmation seat %q not in German", seat)
	}
	if got := bfftest.Squash(doc.Find(`[data-testid="print"]`).Text()); got != "Tickets drucken" {
		t.Errorf("print button %q", got)
	}
	if title := doc.Find("title").Text(); !strings.HasPrefix(title, "Buchung ") {
		t.Errorf("title %q", title)
	}
}
