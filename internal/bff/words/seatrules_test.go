package words

import (
	"errors"
	"strconv"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/seatrules"
)

func TestSeatRuleNotice(t *testing.T) {
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	en, de := c.For(language.English), c.For(language.German)
	f := func(labels ...int) []cinema.Seat {
		var out []cinema.Seat
		for _, n := range labels {
			out = append(out, cinema.Seat{Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: n + 1}, RowLabel: "F", Label: strconv.Itoa(n)})
		}
		return out
	}
	lone := &seatrules.LoneSeatError{Row: "F", Chosen: f(11, 12), Lone: f(13), Suggestions: [][]cinema.Seat{f(12, 13), f(10, 11)}}
	two := &seatrules.LoneSeatError{Row: "F", Chosen: f(9), Lone: f(8, 10), Suggestions: [][]cinema.Seat{f(8)}}
	companion := &seatrules.CompanionError{Seats: f(2)}
	for _, tc := range []struct {
		l             *i18n.Localizer
		err           error
		heading, body string
	}{
		{en, lone, "Please don’t leave a single seat empty",
			"Seats F11–F12 would leave seat F13 empty on its own. A single seat between others usually stays empty. Choose F12–F13 instead, or F10–F11."},
		{de, lone, "Bitte lassen Sie keinen einzelnen Platz frei",
			"Mit den Plätzen F11–F12 bliebe Platz F13 allein frei. Ein einzelner Platz zwischen anderen bleibt meist leer. Wählen Sie stattdessen F12–F13 oder F10–F11."},
		{en, two, "Please don’t leave a single seat empty",
			"Seat F9 would leave seats F8 and F10 empty, each on its own. A single seat between others usually stays empty. Choose F8 instead."},
		{de, two, "Bitte lassen Sie keinen einzelnen Platz frei",
			"Mit Platz F9 blieben die Plätze F8 und F10 jeweils allein frei. Ein einzelner Platz zwischen anderen bleibt meist leer. Wählen Sie stattdessen F8."},
		{en, companion, "A companion seat goes with a wheelchair space",
			"Seat F2 is a companion seat, for someone accompanying a wheelchair user. Book it together with a wheelchair space, or choose another seat."},
		{de, companion, "Ein Begleitplatz gehört zu einem Rollstuhlplatz",
			"Platz F2 ist ein Begleitplatz, gedacht für die Begleitperson eines Menschen im Rollstuhl. Buchen Sie ihn zusammen mit einem Rollstuhlplatz oder wählen Sie einen anderen Platz."},
	} {
		n := SeatRuleNotice(tc.l, tc.err)
		if n == nil || n.Heading != tc.heading || n.Body != tc.body {
			t.Errorf("%s %v:\n got %+v\nwant %q / %q", tc.l.Lang(), tc.err, n, tc.heading, tc.body)
		}
	}
	if n := SeatRuleNotice(en, nil); n != nil {
		t.Errorf("no refusal, notice %+v", n)
	}
	if n := SeatRuleNotice(en, errors.New("seats unavailable")); n != nil {
		t.Errorf("another error, notice %+v", n)
	}
}
