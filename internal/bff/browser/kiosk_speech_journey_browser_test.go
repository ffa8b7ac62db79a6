package browser_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/browsertest"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// readerAsking waits up to 10 s for the sandbox's reader to ask for a card.
func readerAsking(t *testing.T, h *bfftest.Harness) payprovider.TerminalReader {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, r := range h.Prov.Readers() {
			if r.Action != nil && r.Action.Status == payprovider.ActionInProgress {
				return r
			}
		}
	}
	t.Fatal("the reader never asked for a card")
	return payprovider.TerminalReader{}
}

// ear is a blind guest at the kiosk: it presses keys and listens, and reads nothing from the
// screen. Every utterance it hears is kept (across pages) for the test's log.
type ear struct {
	t     *testing.T
	p     *browsertest.Page
	heard []string
	on    string // what the item the arrows last reached said
}

// key presses k and returns the first new utterance: on the same page, or the announcement
// of the page the key led to (a new document starts its own record).
func (e *ear) key(k string) string {
	e.t.Helper()
	var before int
	e.read(`(window.__mark = 1, window.__speech.said.length)`, &before)
	e.p.Do(chromedp.KeyEvent(k))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(30 * time.Millisecond) {
		var got struct {
			Same bool     `json:"same"`
			Said []string `json:"said"`
		}
		e.read(`({same: window.__mark === 1, said: (window.__speech ? window.__speech.said : []).map(function (u) { return u.text; })})`, &got)
		from := 0
		if got.Same {
			from = before
		} else {
			e.on = "" // a new page: the arrows start again
		}
		if len(got.Said) > from {
			e.heard = append(e.heard, got.Said[from:]...)
			return got.Said[len(got.Said)-1]
		}
	}
	e.t.Fatalf("nothing said after %q; heard so far %q", k, e.heard)
	return ""
}

// read evaluates js into v. A key that leads to another page may leave the browser between
// two documents for a moment (the page asked goes away under the question, or the next has
// no script context or speech record yet), which is not the kiosk's failure: read asks again
// until the next document answers, up to 10 s. Any other error ends the test.
func (e *ear) read(js string, v any) {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(30 * time.Millisecond) {
		raw, err := chromedp.Run(e.p.Ctx, chromedp.Evaluate[[]byte](js))
		switch {
		case err == nil:
			if err := json.Unmarshal(raw, v); err != nil {
				e.t.Fatalf("decode %s: %v", raw, err)
			}
			return
		case !betweenDocuments(err):
			e.t.Fatalf("evaluate: %v", err)
		case time.Now().After(deadline):
			e.t.Fatalf("the page never answered: %v; heard so far %q", err, e.heard)
		}
	}
}

// betweenDocuments is true of the errors DevTools gives for a question asked while one
// document is replaced by the next.
func betweenDocuments(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Inspected target navigated or closed", "Execution context was destroyed", "Cannot find context with specified id", "Cannot read properties of undefined"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// settle listens until the kiosk has said nothing new for 300 ms (a page's own answer to a
// key, such as the seat map's to a seat taken, comes a moment after the key's) and keeps
// what it heard.
func (e *ear) settle() {
	e.t.Helper()
	var n int
	e.read(`window.__speech.said.length`, &n)
	quietSince := time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Since(quietSince) < 300*time.Millisecond; time.Sleep(30 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("the kiosk never fell silent; heard so far %q", e.heard)
		}
		var said []string
		if e.read(`window.__speech.said.map(function (u) { return u.text; })`, &said); len(said) > n {
			e.heard = append(e.heard, said[n:]...)
			n, quietSince = len(said), time.Now()
		}
	}
}

// downTo moves through the screen's items until what is said matches re: down to the last
// item (which repeats itself), then up to the first.
func (e *ear) downTo(re string) string {
	e.t.Helper()
	m := regexp.MustCompile(re)
	if m.MatchString(e.on) {
		return e.on // the item the guest is on already (a key pressed twice)
	}
	var said []string
	for _, k := range []string{kb.ArrowDown, kb.ArrowUp} {
		last := ""
		for range 40 {
			u := e.key(k)
			if m.MatchString(u) {
				e.on = u
				return u
			}
			said = append(said, u)
			if u == last {
				break // the end of the screen's items
			}
			last = u
		}
	}
	e.t.Fatalf("the arrows never reached %q; said %q", re, said)
	return ""
}

// speakingKiosk is an enrolled kiosk at 1080×1920 with touch, its speech recorded (with an
// English and a German voice).
func speakingKiosk(t *testing.T) (*bfftest.Harness, *browsertest.Page) {
	t.Helper()
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	p := browsertest.NewPage(t, browsertest.Options{Width: 1080, Height: 1920})
	browserEnrol(t, p, h, device.Kiosk)
	p.Do(chromedp.EmulateViewport(1080, 1920, chromedp.EmulateTouch))
	p.Do(recordSpeech(true))
	return h, p
}

// listen is a guest listening at page p; a failing test logs all it heard.
func listen(t *testing.T, p *browsertest.Page) *ear {
	g := &ear{t: t, p: p}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("heard: %q", g.heard)
		}
	})
	return g
}

// begin starts a visit from the attract screen: F9 (speech), F10 (the privacy curtain, in the
// kiosk's own language until the guest chooses), Start, and the language the guest hears
// language in (choose: it is not the kiosk's own, so Enter takes it).
func (e *ear) begin(language string, choose bool) {
	e.t.Helper()
	e.key(kb.F9)
	if u := e.key(kb.F10); !strings.HasPrefix(u, "Screen hidden.") {
		e.t.Fatalf("F10 said %q", u)
	}
	e.downTo(`(?i)start`)
	e.key(kb.Enter)
	if e.downTo(language); choose {
		e.key(kb.Enter)
	}
}

// itemPlace reads an item's name and place from what it said: "q, 27 of 61".
var itemPlace = regexp.MustCompile(`^(.*), (\d+) (?:of|von) (\d+)$`)

// spokenSymbols are the characters a guest knows by the words the kiosk names their keys
// with, in English and German (a voice may skip a bare "@").
var spokenSymbols = map[string]string{"at sign": "@", "At-Zeichen": "@", "dot": ".", "Punkt": ".",
	"hyphen": "-", "Bindestrich": "-", "underscore": "_", "Unterstrich": "_"}

// typeOn types text on the on-screen keypad after the field the guest is on (its name was
// the last item said), by ear: it first listens through the keypad's keys (each says its
// character, or a symbol's name, and its place) up to the item matching until, then moves to
// each character's key and presses Enter, and checks the kiosk says the field now holds what
// was typed so far, each character as its key was named.
func (e *ear) typeOn(text, until string) {
	e.t.Helper()
	stop := regexp.MustCompile(until)
	keys := map[string]int{}
	names := map[string]string{} // a character -> its key's name as said
	place := 0
	for range 80 {
		u := e.key(kb.ArrowDown)
		m := itemPlace.FindStringSubmatch(u)
		if m == nil {
			e.t.Fatalf("an item that does not say its place: %q", u)
		}
		last := place
		if place = mustInt(e.t, m[2]); stop.MatchString(u) || place == last {
			break // the next field, or the end of the screen's items
		}
		if len(m[1]) == 1 && strings.Contains("@.-_", m[1]) {
			e.t.Errorf("a key is said as the bare symbol %q, which a voice may skip", m[1])
		}
		ch := m[1]
		if c, ok := spokenSymbols[ch]; ok {
			ch = c
		}
		if _, seen := keys[ch]; !seen {
			keys[ch], names[ch] = place, m[1]
		}
	}
	var sofar []string
	for _, c := range text {
		to, ok := keys[string(c)]
		if !ok {
			e.t.Fatalf("the keypad has no key %q: %v", c, keys)
		}
		k := kb.ArrowDown
		if to < place {
			k = kb.ArrowUp
		}
		for ; place != to; place += map[string]int{kb.ArrowDown: 1, kb.ArrowUp: -1}[k] {
			e.key(k)
		}
		sofar = append(sofar, names[string(c)])
		if u := e.key(kb.Enter); !strings.HasSuffix(u, ": "+strings.Join(sofar, " ")) {
			e.t.Fatalf("after typing %q the kiosk said %q", strings.Join(sofar, " "), u)
		}
	}
	e.on = ""
}

func mustInt(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// onTheDay fills in what a guest knows of showing 1113's day ({EN_LONG} "Tuesday 8 December",
// {EN_LONGY} with the year, {D} the day of the month, {Y} the year) and the listing's item
// that names its day ({EN_DAY}, {DE_DAY}). The sandbox's showings are calendar days from now,
// so the words depend on the date; in the small hours the cinema's today is still the evening
// before (cinema.Evening), and the sandbox's "tomorrow" is then two evenings on.
func onTheDay(h *bfftest.Harness, re string) string {
	h.T.Helper()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		h.T.Fatal(err)
	}
	at := h.ShowtimeOf("1113").In(berlin)
	enDay, deDay := at.Format("Mon 2 Jan"), `\S+ `+strconv.Itoa(at.Day())+`\. \S+`
	today, _ := cinema.Evening(time.Now(), berlin)
	switch evening, _ := cinema.Evening(at, berlin); {
	case evening.Equal(today):
		enDay, deDay = "Today", "Heute"
	case evening.Equal(today.AddDate(0, 0, 1)):
		enDay, deDay = "Tomorrow", "Morgen"
	}
	return strings.NewReplacer("{EN_DAY}", enDay, "{DE_DAY}", deDay,
		"{EN_LONGY}", at.Format("Monday 2 January 2006"),
		"{EN_LONG}", at.Format("Monday 2 January"), "{D}", strconv.Itoa(at.Day()), "{Y}", strconv.Itoa(at.Year())).Replace(re)
}

// byEar is what a guest listens for, in one language, on the way through a purchase.
type byEar struct {
	lang                                    string
	language, buy, day, adult               string // regular expressions of the items chosen
	twoAdults, toSeats, onward, pay, paying string
	section, inSection                      string // the closed gift card section as an item; a field inside it
	order                                   string // what the last step says on arriving
	summary                                 string // the confirmation's first words
}

// TestBrowserKioskBuysByEar: a blind guest at an enrolled kiosk (1080×1920) buys two adult
// tickets for a named film and showtime with the navigator's keys alone, deciding from what
// the kiosk says (nothing is read from the screen, nothing clicked): F9 on the attract screen,
// the language, the day, the showing (its film named), two Adults, the suggested seats, Pay on
// the reader (the sandbox's tap), and the confirmation says the film, the time, the screen,
// both seats and the amount paid, in the guest's language.
func TestBrowserKioskBuysByEar(t *testing.T) {
	t.Parallel()
	for _, c := range []byEar{
		{lang: "en", language: `^English, current page`, buy: `^Buy tickets`, day: `^{EN_DAY},`, adult: `^Adult,`,
			twoAdults: "Adult, 2 chosen", toSeats: `^Continue to seats`, onward: `^Continue`, pay: `^Pay €26\.50`, paying: "You are on: Pay by card",
			section: `^Pay part with a gift card or loyalty points, closed, \d+ of \d+$`, inSection: "Gift card number",
			order:   `^You are on: Check and pay\. .*Otters of the Elbe, .*20:30, Saal 1\. Your seats: Row [A-Z], seat \d+; Row [A-Z], seat \d+\. To pay: €26\.50\. Arrow down to Pay`,
			summary: `^You are on: .*You're booked\. Otters of the Elbe, {EN_LONGY}, 20:30, Saal 1\. Your seats: Row [A-Z], seat \d+; Row [A-Z], seat \d+\. Paid: €26\.50\. Booking number: (\d )+\d\.`},
		{lang: "de", language: `^Deutsch`, buy: `^Tickets kaufen`, day: `^{DE_DAY},`, adult: `^Erwachsen`,
			twoAdults: ", 2 gewählt", toSeats: `^Weiter`, onward: `^Weiter`, pay: `^26,50[\x{00a0} ]€ mit Karte bezahlen`, paying: "Sie sind hier: Mit Karte bezahlen",
			section: `^Teilweise mit Geschenkkarte oder Bonuspunkten bezahlen, geschlossen, \d+ von \d+$`, inSection: "Nummer der Geschenkkarte",
			order:   `^Sie sind hier: .+\. Otters of the Elbe, .*20:30.*, Saal 1\. Ihre Plätze: Reihe [A-Z], Platz \d+; Reihe [A-Z], Platz \d+\. Zu zahlen: 26,50[\x{00a0} ]€\. Pfeil nach unten zu Bezahlen`,
			summary: `^Sie sind hier: .*Ihre Buchung ist bestätigt\. Otters of the Elbe, \S+, {D}\. \S+ {Y}, 20:30 Uhr, Saal 1\. Ihre Plätze: Reihe [A-Z], Platz \d+; Reihe [A-Z], Platz \d+\. Bezahlt: 26,50[\x{00a0} ]€\. Buchungsnummer: (\d )+\d\.`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			buyByEar(t, c)
		})
	}
}

// toTheTicketsByEar starts a visit at a speaking kiosk in the guest's language (a regular
// expression of its item; choose: not the kiosk's own) and goes by ear to the ticket step of
// showing 1113: Buy tickets (buy), its day (day, see onTheDay), the showing.
func toTheTicketsByEar(t *testing.T, language string, choose bool, buy, day string) (*bfftest.Harness, *browsertest.Page, *ear) {
	t.Helper()
	h, p := speakingKiosk(t)
	p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	g := listen(t, p)
	g.begin(language, choose)
	for _, step := range []string{buy, onTheDay(h, day), `^Otters of the Elbe, 20:30`} {
		g.downTo(step)
		g.key(kb.Enter)
	}
	return h, p, g
}

func buyByEar(t *testing.T, c byEar) {
	h, p, g := toTheTicketsByEar(t, c.language, c.lang != "en", c.buy, c.day)
	if !curtainUp(t, p) {
		t.Fatal("the privacy curtain is not over the ticket step")
	}
	g.downTo(c.adult)
	g.key(kb.ArrowRight)
	if u := g.key(kb.ArrowRight); !strings.HasSuffix(u, c.twoAdults) {
		t.Fatalf("the second ArrowRight on the adult tickets said %q", u)
	}
	for _, step := range []string{c.toSeats, c.onward} {
		g.downTo(step)
		g.key(kb.Enter)
	}
	// The last step says what is bought and what is to pay before anything else.
	if u := g.heard[len(g.heard)-1]; !regexp.MustCompile(c.order).MatchString(u) {
		t.Errorf("the last step said %q, want the film, the time, the screen, both seats and what is to pay", u)
	}
	// The gift card section is closed: one item (Enter would open it), none of its fields.
	from := len(g.heard)
	g.downTo(c.section)
	g.downTo(c.pay)
	for _, u := range g.heard[from:] {
		if strings.HasPrefix(u, c.inSection) {
			t.Errorf("a field of the closed gift card section was an item: %q", u)
		}
	}
	arrival := g.key(kb.Enter)
	if !strings.HasPrefix(arrival, c.paying) {
		t.Fatalf("Pay led to a page that says %q", arrival)
	}
	// The reader's page asks again every second: what it arrived with is said once, not
	// again at a refresh.
	said := len(spoken(t, p))
	time.Sleep(2500 * time.Millisecond)
	for _, u := range spoken(t, p)[said:] {
		if strings.Contains(arrival, strings.TrimSuffix(u.Text, ".")) {
			t.Errorf("the card reader's page, left alone, said again %q", u.Text)
		}
	}
	reader := readerAsking(t, h)
	if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
		t.Fatal(err)
	}
	p.Do(chromedp.WaitVisible(`[data-testid="kiosk-done"]`))
	summary := arrivalSaid(t, p)
	if !regexp.MustCompile(onTheDay(h, c.summary)).MatchString(summary) {
		t.Errorf("the confirmation said %q, want the film, the time, the screen, both seats and the amount paid", summary)
	}
	if !curtainUp(t, p) {
		t.Error("the privacy curtain is not over the confirmation")
	}
	// Done ends the visit: the next guest finds the screen shown, speech off, and nothing of
	// this guest in the tab (the tickets printed are remembered only for this visit).
	var kept []string
	browserEval(t, p, `Object.keys(sessionStorage)`, &kept)
	if !slices.ContainsFunc(kept, func(k string) bool { return strings.HasPrefix(k, "printed:") }) {
		t.Errorf("the confirmation kept %q in the tab, want which tickets were printed", kept)
	}
	g.downTo(`^(Done|Fertig)`)
	p.Do(chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
	if curtainUp(t, p) {
		t.Error("the privacy curtain outlived the visit")
	}
	browserEval(t, p, `Object.keys(sessionStorage)`, &kept)
	if len(kept) != 0 {
		t.Errorf("the next guest's tab holds %q of the guest before (speech on, tickets printed)", kept)
	}
}

// curtainUp reports whether the privacy curtain covers the middle of the screen.
func curtainUp(t *testing.T, p *browsertest.Page) bool {
	t.Helper()
	var up bool
	browserEval(t, p, `(() => { const el = document.elementFromPoint(innerWidth / 2, innerHeight / 2); return !!el && el.matches('[data-testid="speech-curtain"]'); })()`, &up)
	return up
}

// TestBrowserKioskCollectsByEar: a blind guest collects booking 100003 by its number with the
// navigator's keys alone, under the privacy curtain, in English and in German: the number on
// the on-screen keypad's digits and the e-mail on its letters, each key confirmed by the field
// read back, then Collect tickets; the kiosk says the film, the time, the screen and both
// seats, and that the tickets print.
func TestBrowserKioskCollectsByEar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, language, collect, number, email, submit, said string
	}{
		{"en", `^English, current page`, `^Collect tickets`, `^Booking number`, `^E-mail`, `^Collect tickets, \d+ of \d+$`,
			`^You are on: Your tickets for booking 100003\. Otters of the Elbe, {EN_LONG}, 20:30, Saal 1\. Your seats: Row G, seat 11; Row G, seat 12\. Your tickets are being printed\.`},
		{"de", `^Deutsch`, `^Tickets abholen`, `^Buchungsnummer`, `^E-Mail`, `^Tickets abholen, \d+ von \d+$`,
			`^Sie sind hier: Ihre Tickets für Buchung 100003\. Otters of the Elbe, \S+, {D}\. \S+, 20:30( Uhr)?, Saal 1\. Ihre Plätze: Reihe G, Platz 11; Reihe G, Platz 12\. Ihre Tickets werden gedruckt\.`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			h, p := speakingKiosk(t)
			p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
			g := listen(t, p)
			g.begin(c.language, c.lang != "en")
			g.downTo(c.collect)
			g.key(kb.Enter)
			// The form's hidden default button (for a scanner's Enter) is no item: the first
			// is the scan field, and the screen's only submit is the one after the keypads.
			if first := g.key(kb.ArrowDown); regexp.MustCompile(c.submit).MatchString(first) {
				t.Errorf("the collect screen's first item is %q, the hidden default button", first)
			}
			g.downTo(c.number)
			g.typeOn("100003", c.email)
			g.typeOn("paid3@example.com", c.submit)
			g.downTo(c.submit)
			if u := g.key(kb.Enter); !regexp.MustCompile(onTheDay(h, c.said)).MatchString(u) {
				t.Errorf("after collecting the kiosk said %q, want the film, the time, the screen and both seats", u)
			}
			if !curtainUp(t, p) {
				t.Error("the privacy curtain is not over the collected tickets")
			}
		})
	}
}

// TestBrowserKioskAddsATicketByEar: a blind guest adds an adult ticket to booking 100001 with
// the navigator's keys alone, under the privacy curtain, in English and in German: the booking
// found by number and e-mail on the keypads, Change this booking, one more Adult, the
// difference paid on the reader (the sandbox's tap); the kiosk says what changed, what was
// paid and the three seats.
func TestBrowserKioskAddsATicketByEar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lang, language, change, number, email, find, edit, add, added, pay, said string
	}{
		{"en", `^English, current page`, `^Change my booking`, `^Booking number`, `^E-mail`, `^Find booking, \d+ of \d+$`, `^Change this booking, `,
			`Add one Adult ticket`, "Added 1 × Adult", `^Pay €13\.25 and confirm`,
			`^You are on: Tickets for booking 100001\. .*Adult.*€13\.25.* Otters of the Elbe, .*, Saal 1\. Your seats: Row F, seat 11; Row F, seat 12; Row [A-Z], seat \d+\. Your tickets are being printed\.`},
		{"de", `^Deutsch`, `^Meine Buchung ändern`, `^Buchungsnummer`, `^E-Mail`, `^Buchung finden, \d+ von \d+$`, `^Diese Buchung ändern, `,
			`Ein Ticket Erwachsen\S* hinzufügen`, "1 × Erwachsen", `^13,25[\x{00a0} ]€ bezahlen und bestätigen`,
			`^Sie sind hier: Tickets für Buchung 100001\. .*Erwachsen.*13,25[\x{00a0} ]€.* Otters of the Elbe, .*, Saal 1\. Ihre Plätze: Reihe F, Platz 11; Reihe F, Platz 12; Reihe [A-Z], Platz \d+\. Ihre Tickets werden gedruckt\.`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			h, p := speakingKiosk(t)
			p.Do(chromedp.Navigate(h.TS.URL+"/"), chromedp.WaitVisible(`[data-testid="kiosk-attract"]`))
			g := listen(t, p)
			g.begin(c.language, c.lang != "en")
			g.downTo(c.change)
			g.key(kb.Enter)
			g.downTo(c.number)
			g.typeOn("100001", c.email)
			g.typeOn("paid1@example.com", c.find)
			g.downTo(c.find)
			g.key(kb.Enter)
			g.downTo(c.edit)
			g.key(kb.Enter)
			g.downTo(c.add)
			if u := g.key(kb.Enter); !strings.Contains(u, c.added) {
				t.Fatalf("adding an Adult said %q", u)
			}
			g.downTo(c.pay)
			g.key(kb.Enter)
			reader := readerAsking(t, h)
			if err := h.Prov.PresentPaymentMethod(reader.ID, "4242424242424242"); err != nil {
				t.Fatal(err)
			}
			p.Do(chromedp.WaitVisible(`[data-testid="changes"]`))
			var said string
			for deadline := time.Now().Add(5 * time.Second); said == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if u := spoken(t, p); len(u) > 0 {
					said = u[0].Text
				}
			}
			if !regexp.MustCompile(c.said).MatchString(said) {
				t.Errorf("after the change was paid the kiosk said %q, want what changed, what was paid and the three seats", said)
			}
			if !curtainUp(t, p) {
				t.Error("the privacy curtain is not over the tickets")
			}
		})
	}
}

// TestBrowserKioskSpeechAnswersEveryKeyFast: at a 4× slowed CPU, every key of a walk through
// the ticket step and the seat map (items, a stepper, repeat, help, the map's seats) is
// answered by speech that starts within 200 ms of the key, and each answer cancels what was
// being said before it. The best of up to three rounds counts: a machine busy with other work
// slows the browser, not the page. Run alone (QUIET_TESTS in the Makefile).
func TestBrowserKioskSpeechAnswersEveryKeyFast(t *testing.T) {
	h, p := speakingKiosk(t)
	kioskTouchToStart(p, h.TS.URL)
	p.Do(chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`),
		chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	g := listen(t, p)
	g.key(kb.F9)
	p.Do(slowCPU(4))
	defer p.Do(slowCPU(1))
	walk := []string{kb.ArrowDown, kb.ArrowDown, kb.ArrowRight, kb.ArrowRight, kb.ArrowLeft, kb.F2, kb.F1, kb.ArrowUp, kb.F4, kb.F3}
	var worst []float64
	for round := range 3 {
		slowest := 0.0
		for _, k := range walk {
			slowest = max(slowest, answerTime(t, p, k))
		}
		worst = append(worst, slowest)
		if slowest <= 200 {
			t.Logf("round %d: every key answered within %.0f ms (rounds so far %v)", round+1, slowest, worst)
			return
		}
	}
	t.Fatalf("the slowest key's answer per round took %v ms at a 4× slowed CPU, want within 200 ms", worst)
}

// answerTime presses k and returns how long after the key went down speech was started, in
// milliseconds; it checks the speech before was cancelled first.
func answerTime(t *testing.T, p *browsertest.Page, k string) float64 {
	t.Helper()
	var before int
	browserEval(t, p, `window.__speech.said.length`, &before)
	p.Do(chromedp.KeyEvent(k))
	var got struct {
		Key, Said float64
		Cancelled bool
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		browserEval(t, p, `(() => { const s = window.__speech, k = s.keys[s.keys.length - 1], u = s.said[`+strconv.Itoa(before)+`];
			return u ? {key: k.at, said: u.at, cancelled: s.log[s.log.lastIndexOf('speak') - 1] === 'cancel'} : null; })()`, &got)
		if got.Said > 0 {
			if !got.Cancelled {
				t.Errorf("key %q: speech started without cancelling what was said before", k)
			}
			return got.Said - got.Key
		}
	}
	t.Fatalf("key %q: nothing said", k)
	return 0
}

// TestBrowserKioskSpeaksTheMessageAPageArrivesWith: Continue without a ticket brings the ticket
// step back with its error; with speech on, the page's arrival says where the guest is and the
// error, before what they can do.
func TestBrowserKioskSpeaksTheMessageAPageArrivesWith(t *testing.T) {
	t.Parallel()
	h, p := speakingKiosk(t)
	kioskTouchToStart(p, h.TS.URL)
	p.Do(chromedp.Click(`[data-testid="kiosk-buy"]`), chromedp.WaitVisible(`[data-testid="session-link"]`),
		chromedp.Click(`[data-testid="session-link"]`), chromedp.WaitVisible(`[data-testid="tickets-form"]`))
	g := listen(t, p)
	g.key(kb.F9)
	g.downTo(`^Continue to seats`)
	if u := g.key(kb.Enter); !regexp.MustCompile(`^You are on: [^.]+\. .*Please choose at least one ticket.* Arrow down to a ticket type`).MatchString(u) {
		t.Errorf("the ticket step sent back without a ticket said %q, want where, the error, then what to do", u)
	}
}
