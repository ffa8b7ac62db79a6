package browser_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// seatsByEar is what a guest listens for in the seat map, in one language.
type seatsByEar struct {
	lang, language, buy, day, adult, oneAdult, toSeats, onward string
	mapItem, mapIntro                                          string // the map as an item; what entering it says
	seat                                                       string // a seat's words: row, number, state
	passed, edge                                               string // seats an arrow went past; an arrow that moved nothing
	free, chosen                                               string // a seat's state
	refusal                                                    string // the seat step sent back: the rule and a better seat
}

// TestBrowserKioskSeatMapByEar: a blind guest at an enrolled kiosk (1080×1920) explores the
// seat map by keys alone: entering it says the screen, the rows and where the free seats
// are; every arrow press says the seat it lands on (row, number, state); Enter takes the
// second seat of a row whose first is free, and Continue is refused in words that name the
// single seat it would leave and a better seat to choose.
func TestBrowserKioskSeatMapByEar(t *testing.T) {
	t.Parallel()
	for _, c := range []seatsByEar{
		{lang: "en", language: `^English, current page`, buy: `^Buy tickets`, day: `^{EN_DAY},`, adult: `^Adult,`, oneAdult: "Adult, 1 chosen",
			toSeats: `^Continue to seats`, onward: `^Continue`, mapItem: `press Enter to explore it`,
			mapIntro: `^Seat map of Saal 1, 18 rows; free seats in rows A to N[;,]`, seat: `^Row ([A-Z]), seat (\d+), [^,]+, (free|taken|not available|chosen)`,
			free: "free", chosen: "chosen", passed: `\. Passed: seat \d+, [^;]+(; seat \d+, [^;]+)*\.$`, edge: "No seat further that way. ",
			refusal: `Please don’t leave a single seat empty\. .*Seat ([A-Z])2 would leave seat ([A-Z])1 empty on its own\. .*Choose ([A-Z]\d+[^.]*) instead`},
		{lang: "de", language: `^Deutsch`, buy: `^Tickets kaufen`, day: `^{DE_DAY},`, adult: `^Erwachsen`, oneAdult: ", 1 gewählt",
			toSeats: `^Weiter`, onward: `^Weiter`, mapItem: `Eingabe zum Erkunden`,
			mapIntro: `^Sitzplan von Saal 1, 18 Reihen; freie Plätze in den Reihen A bis N[;,]`, seat: `^Reihe ([A-Z]), Platz (\d+), [^,]+, (frei|belegt|nicht verfügbar|gewählt)`,
			free: "frei", chosen: "gewählt", passed: `\. Übersprungen: Platz \d+, [^;]+(; Platz \d+, [^;]+)*\.$`, edge: "In dieser Richtung kein Platz mehr. ",
			refusal: `Bitte lassen Sie keinen einzelnen Platz frei\. .*Mit Platz ([A-Z])2 bliebe Platz ([A-Z])1 allein frei\. .*Wählen Sie stattdessen ([A-Z]\d+[^.]*)\.`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			seatMapByEar(t, c)
		})
	}
}

func seatMapByEar(t *testing.T, c seatsByEar) {
	_, _, g := toTheTicketsByEar(t, c.language, c.lang != "en", c.buy, c.day)
	g.downTo(c.adult)
	if u := g.key(kb.ArrowRight); !strings.HasSuffix(u, c.oneAdult) {
		t.Fatalf("ArrowRight on the adult tickets said %q", u)
	}
	g.downTo(c.toSeats)
	g.key(kb.Enter)

	g.downTo(c.mapItem)
	intro := g.key(kb.Enter)
	if !regexp.MustCompile(c.mapIntro).MatchString(intro) {
		t.Fatalf("entering the seat map said %q, want the screen, the rows and where the seats are free", intro)
	}
	seat, passed := regexp.MustCompile(c.seat), regexp.MustCompile(c.passed)
	// The introduction ends with the seat the guest starts on.
	starts := regexp.MustCompile(`(?:Row|Reihe) ([A-Z]), (?:seat|Platz) (\d+)`).FindAllStringSubmatch(intro, -1)
	if len(starts) == 0 {
		t.Fatalf("entering the seat map said %q, want the seat the guest starts on at its end", intro)
	}
	lastRow, lastNumber := starts[len(starts)-1][1], starts[len(starts)-1][2]
	at := func(k string) (row, number, said string) {
		t.Helper()
		u := g.key(k)
		m := seat.FindStringSubmatch(strings.TrimPrefix(u, c.edge))
		if m == nil {
			t.Fatalf("%s in the seat map said %q, want a seat's row, number and state", k, u)
		}
		// An arrow along a row that lands beyond the next number went past seats that cannot
		// be had: it names them.
		if skipped := m[1] == lastRow && abs(mustInt(t, m[2])-mustInt(t, lastNumber)) > 1; skipped != passed.MatchString(u) {
			t.Errorf("%s from seat %s%s to %s%s said %q: seats passed named %v, want %v", k, lastRow, lastNumber, m[1], m[2], u, !skipped, skipped)
		}
		lastRow, lastNumber = m[1], m[2]
		return m[1], m[2], u
	}
	// To the first seat of a row whose first two seats are free, seat by seat and row by row.
	row, number, said := at(kb.ArrowLeft)
	for tries := 0; ; tries++ {
		for number != "1" {
			last := number
			if row, number, said = at(kb.ArrowLeft); number == last {
				t.Fatalf("ArrowLeft stopped at %q, not a row's first seat", said)
			}
		}
		if _, n, u := at(kb.ArrowLeft); n != "1" || !strings.HasPrefix(u, c.edge) {
			t.Fatalf("ArrowLeft at the first seat of the row said %q, want that no seat is further, and the seat again", u)
		}
		_, _, second := at(kb.ArrowRight)
		if strings.HasSuffix(said, c.free) && strings.HasSuffix(second, c.free) {
			break
		}
		if tries == 5 {
			t.Fatalf("no row of six with its first two seats free: %q, %q", said, second)
		}
		row, number, said = at(kb.ArrowUp)
	}
	if u := g.key(kb.Enter); !strings.Contains(u, c.chosen) {
		t.Fatalf("Enter on seat %s2 said %q, want it chosen", row, u)
	}
	g.settle() // the map's own answer: the seat chosen instead of the one suggested
	g.key(kb.Escape)
	g.downTo(c.onward)
	u := g.key(kb.Enter)
	m := regexp.MustCompile(c.refusal).FindStringSubmatch(u)
	if m == nil {
		t.Fatalf("Continue with seat %s2 said %q, want the seat it would leave single and a better one", row, u)
	}
	if m[1] != row || m[2] != row {
		t.Errorf("the refusal names rows %s and %s, the guest chose in row %s: %q", m[1], m[2], row, u)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
