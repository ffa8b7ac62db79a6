package i18n

import (
	"context"
	"testing"
	"time"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

func load(t *testing.T) *Catalog {
	t.Helper()
	c, err := Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMatch(t *testing.T) {
	c := load(t)
	for _, tc := range []struct{ header, want string }{
		{"de", "de"},
		{"de-AT,de;q=0.9,en;q=0.5", "de"},
		{"en-GB,en;q=0.9", "en"},
		{"fr-FR,de;q=0.8", "de"},
		{"fr-FR", "en"},
		{"", "en"},
		{"%%%garbage", "en"},
		{"en;q=0.2,de;q=0.9", "de"},
	} {
		if got := c.Match(tc.header).String(); got != tc.want {
			t.Errorf("Match(%q) = %s, want %s", tc.header, got, tc.want)
		}
	}
	de, err := Load(language.German)
	if err != nil {
		t.Fatal(err)
	}
	if got := de.Match("fr").String(); got != "de" {
		t.Errorf("with German as the fallback, Match(fr) = %s, want de", got)
	}
	if _, err := Load(language.French); err == nil {
		t.Error("Load accepted French as the fallback, which has no catalog")
	}
}

func TestParse(t *testing.T) {
	c := load(t)
	for _, tc := range []struct {
		code string
		want string
		ok   bool
	}{{"de", "de", true}, {"DE-at", "de", true}, {"en", "en", true}, {"fr", "und", false}, {"", "und", false}, {"<script>", "und", false}} {
		got, ok := c.Parse(tc.code)
		if got.String() != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %s, %v; want %s, %v", tc.code, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPluralsAndPlaceholders(t *testing.T) {
	c := load(t)
	en, de := c.For(language.English), c.For(language.German)
	for _, tc := range []struct {
		l    *Localizer
		id   string
		n    int
		want string
	}{
		{en, "common.tickets", 1, "1 ticket"},
		{en, "common.tickets", 2, "2 tickets"},
		{de, "common.tickets", 1, "1 Ticket"},
		{de, "common.tickets", 2, "2 Tickets"},
		{de, "common.minutes_left", 1, "noch 1 Minute"},
		{de, "common.minutes_left", 5, "noch 5 Minuten"},
		{en, "common.minutes_left", 0, "0 minutes left"},
	} {
		if got := tc.l.N(tc.id, tc.n); got != tc.want {
			t.Errorf("%s N(%s, %d) = %q, want %q", tc.l.Lang(), tc.id, tc.n, got, tc.want)
		}
	}
	if got := de.T("layout.staff_badge", "Name", "anna"); got != "Personal: anna" {
		t.Errorf("placeholder: %q", got)
	}
	if got := de.T("no.such.message"); got != "no.such.message" {
		t.Errorf("a missing message reads %q, want its id", got)
	}
	before, after := de.Around("layout.idle_text", "Seconds")
	if before != "Dieser Bildschirm beginnt in " || after[:9] != " Sekunden" {
		t.Errorf("Around: %q | %q", before, after)
	}
	var none *Localizer
	if got := none.T("layout.sign_out"); got != "layout.sign_out" {
		t.Errorf("nil localizer: %q", got)
	}
	ctx := NewContext(context.Background(), de)
	if got := T(ctx, "layout.sign_out"); got != "Abmelden" {
		t.Errorf("from context: %q", got)
	}
}

func TestMoney(t *testing.T) {
	c := load(t)
	en, de := c.For(language.English), c.For(language.German)
	for _, tc := range []struct {
		l    *Localizer
		m    cinema.Money
		want string
	}{
		{en, cinema.Money{Cents: 1325, Currency: "EUR"}, "€13.25"},
		{de, cinema.Money{Cents: 1325, Currency: "EUR"}, "13,25\u00a0€"},
		{en, cinema.Money{Cents: -300, Currency: "GBP"}, "-£3.00"},
		{de, cinema.Money{Cents: -300, Currency: "GBP"}, "-3,00\u00a0£"},
		{en, cinema.Money{Cents: 123456789, Currency: "EUR"}, "€1,234,567.89"},
		{de, cinema.Money{Cents: 123456789, Currency: "EUR"}, "1.234.567,89\u00a0€"},
		{en, cinema.Money{Cents: 1250, Currency: "JPY"}, "¥1,250"},
		{en, cinema.Money{Cents: 5, Currency: "EUR"}, "€0.05"},
		{en, cinema.Money{Cents: 0, Currency: "EUR"}, "€0.00"},
		{en, cinema.Money{Cents: 1000, Currency: "XYZ"}, "XYZ10.00"},
	} {
		if got := tc.l.Money(tc.m); got != tc.want {
			t.Errorf("%s Money(%v) = %q, want %q", tc.l.Lang(), tc.m, got, tc.want)
		}
	}
}

func TestTime(t *testing.T) {
	c := load(t)
	en, de := c.For(language.English), c.For(language.German)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 25, 19, 15, 0, 0, time.UTC) // 20:15 in Berlin
	for _, tc := range []struct {
		l     *Localizer
		style Style
		want  string
	}{
		{en, Clock, "20:15"},
		{en, DayShort, "Wed 25 Nov"},
		{de, DayShort, "Mi., 25. Nov."},
		{en, DateTimeLong, "Wednesday 25 November 2026, 20:15"},
		{de, DateTimeLong, "Mittwoch, 25. November 2026, 20:15 Uhr"},
		{de, DayMonth, "25. November"},
		{de, DateTimeShort, "Mi., 25. Nov., 20:15"},
	} {
		if got := tc.l.Time(at, berlin, tc.style); got != tc.want {
			t.Errorf("%s Time(%d) = %q, want %q", tc.l.Lang(), tc.style, got, tc.want)
		}
	}
}

// TestShowtimeAfterMidnight: a show after midnight is written as the night of the evening
// before, so that it reads as What's on lists it; other shows as DateTimeLong.
func TestShowtimeAfterMidnight(t *testing.T) {
	c := load(t)
	en, de := c.For(language.English), c.For(language.German)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	late := time.Date(2026, 11, 27, 23, 8, 0, 0, time.UTC) // 00:08 on Saturday in Berlin
	evening := time.Date(2026, 11, 27, 19, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		l    *Localizer
		at   time.Time
		want string
	}{
		{en, late, "Saturday 28 November 2026, 00:08 (Friday night into Saturday)"},
		{de, late, "Samstag, 28. November 2026, 00:08 Uhr (Nacht von Freitag auf Samstag)"},
		{de, evening, "Freitag, 27. November 2026, 20:30 Uhr"},
		{en, late.Add(6 * time.Hour), "Saturday 28 November 2026, 06:08"},
	} {
		if got := tc.l.Showtime(tc.at, berlin); got != tc.want {
			t.Errorf("%s Showtime(%v) = %q, want %q", tc.l.Lang(), tc.at, got, tc.want)
		}
	}
	if got := de.Time(late, berlin, NightClock); got != "Nacht zum Sa., 00:08" {
		t.Errorf("de NightClock %q", got)
	}
	if got := en.Time(late, berlin, NightClock); got != "Night to Sat, 00:08" {
		t.Errorf("en NightClock %q", got)
	}
}

func TestDuration(t *testing.T) {
	c := load(t)
	en, de := c.For(language.English), c.For(language.German)
	for _, tc := range []struct {
		l    *Localizer
		d    time.Duration
		want string
	}{
		{en, 24 * time.Hour, "24 hours"},
		{de, time.Hour, "1 Stunde"},
		{en, 90 * time.Minute, "90 minutes"},
		{de, 15 * time.Minute, "15 Minuten"},
		{en, 90 * time.Second, "90 seconds"},
		{en, 1500 * time.Millisecond, "2 seconds"},
		{de, 0, "1 Sekunde"},
	} {
		if got := tc.l.Duration(tc.d); got != tc.want {
			t.Errorf("%s Duration(%v) = %q, want %q", tc.l.Lang(), tc.d, got, tc.want)
		}
	}
}

func TestDay(t *testing.T) {
	c := load(t)
	en, de := c.For(language.English), c.For(language.German)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 22, 30, 0, 0, time.UTC) // 23:30 on Wednesday in Berlin
	for _, tc := range []struct {
		name  string
		l     *Localizer
		t     time.Time
		style Style
		want  string
	}{
		{"same day, later", en, time.Date(2026, 11, 25, 22, 50, 0, 0, time.UTC), DayShort, "Today"},
		{"next day in Berlin, same day in UTC", en, time.Date(2026, 11, 25, 23, 10, 0, 0, time.UTC), DayShort, "Tomorrow"},
		{"German tomorrow", de, time.Date(2026, 11, 26, 19, 0, 0, 0, time.UTC), DayLong, "Morgen"},
		{"the day after", en, time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC), DayLong, "Friday 27 November"},
		{"the day after, short", de, time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC), DayShort, "Fr., 27. Nov."},
		{"yesterday is a date", en, time.Date(2026, 11, 24, 19, 0, 0, 0, time.UTC), DayShort, "Tue 24 Nov"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.Day(tc.t, now, berlin, tc.style); got != tc.want {
				t.Errorf("Day = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAudienceVariants: a counter's localizer writes a message's @counter variant where the
// catalog has one, in each language, and the message itself elsewhere; the customer's
// localizer never writes the variant.
func TestAudienceVariants(t *testing.T) {
	c := load(t)
	for _, tc := range []struct {
		tag             language.Tag
		id              string
		customer, clerk string
	}{
		{language.German, "checkout.confirmation_title", "Ihre Buchung ist bestätigt", "Die Buchung ist bestätigt"},
		{language.English, "booking.money_to_refund", "To refund to you", "Refund to the customer"},
		{language.German, "checkout.continue", "Weiter", "Weiter"},
	} {
		if got := c.For(tc.tag).T(tc.id); got != tc.customer {
			t.Errorf("%s %s for the customer: %q, want %q", tc.tag, tc.id, got, tc.customer)
		}
		if got := c.ForAudience(tc.tag, "counter").T(tc.id); got != tc.clerk {
			t.Errorf("%s %s for the clerk: %q, want %q", tc.tag, tc.id, got, tc.clerk)
		}
	}
	first, again := c.ForAudience(language.German, "counter"), c.ForAudience(language.German, "counter")
	if first != again || c.ForAudience(language.German, "") != c.For(language.German) {
		t.Error("audience localizers are not made once per language and audience")
	}
}
