package i18n

import (
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/currency"
	"golang.org/x/text/message"
	"golang.org/x/text/number"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Money writes an amount in this language: the currency's symbol and minor digits
// (golang.org/x/text/currency), the language's digit grouping and decimal mark
// (golang.org/x/text/number) and its placement of the symbol (the catalog's "money.pattern"):
// "€13.25" in English, "13,25 €" in German.
func (l *Localizer) Money(m cinema.Money) string {
	if l == nil {
		return l.money(m)
	}
	return l.remember("\x00money\x00"+m.Currency+"\x00"+strconv.FormatInt(m.Cents, 10), func() string { return l.money(m) })
}

func (l *Localizer) money(m cinema.Money) string {
	unit, err := currency.ParseISO(m.Currency)
	code := strings.ToUpper(m.Currency)
	scale := cinema.MinorDigits(code)
	symbol := code
	if err == nil {
		scale, _ = currency.Standard.Rounding(unit)
		symbol = l.printer().Sprint(currency.NarrowSymbol(unit))
	}
	cents := m.Cents
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	// Whole and fraction from the integer minor units, so no float rounding can creep in.
	div := int64(1)
	for range scale {
		div *= 10
	}
	whole := l.printer().Sprint(number.Decimal(cents / div))
	amount := whole
	if scale > 0 {
		frac := strconv.FormatInt(cents%div, 10)
		amount += l.T("money.decimal_mark") + strings.Repeat("0", scale-len(frac)) + frac
	}
	return l.T("money.pattern", "Sign", sign, "Amount", amount, "Symbol", symbol)
}

func (l *Localizer) printer() *message.Printer {
	if l == nil {
		return message.NewPrinter(Languages[0])
	}
	return l.p
}

// Style is a way of writing a moment.
type Style int

const (
	Clock         Style = iota // 20:15
	DayShort                   // Wed 25 Nov · Mi., 25. Nov.
	DayLong                    // Wednesday 25 November · Mittwoch, 25. November
	DateTimeShort              // Wed 25 Nov, 20:15 · Mi., 25. Nov., 20:15
	DateTimeLong               // Wednesday 25 November 2026, 20:15 · Mittwoch, 25. November 2026, 20:15
	DayMonth                   // 25 November · 25. November
	// NightClock is a show after midnight listed under the evening before:
	// Night to Sat, 00:08 · Nacht zu Sa., 00:08
	NightClock
	// NightLong is such a show on its own: Saturday 28 November 2026, 00:08 (Friday night
	// into Saturday) · Samstag, 28. November 2026, 00:08 Uhr (Nacht von Freitag auf Samstag)
	NightLong
)

var styleIDs = map[Style]string{
	Clock: "time.clock", DayShort: "time.day_short", DayLong: "time.day_long",
	DateTimeShort: "time.datetime_short", DateTimeLong: "time.datetime_long", DayMonth: "time.day_month",
	NightClock: "time.night_clock", NightLong: "time.night_long",
}

// Time writes t in loc (the cinema's time zone; nil means t's own) in this language's way of
// the style. The patterns and the names of days and months are in the catalog.
func (l *Localizer) Time(t time.Time, loc *time.Location, style Style) string {
	if loc != nil {
		t = t.In(loc)
	}
	if l == nil {
		return l.time(t, style)
	}
	// The words depend on the date and the minute only.
	return l.remember("\x00time\x00"+styleIDs[style]+"\x00"+t.Format("2006-01-02 15:04"), func() string { return l.time(t, style) })
}

func (l *Localizer) time(t time.Time, style Style) string {
	wd := strings.ToLower(t.Weekday().String())
	eve := strings.ToLower(t.AddDate(0, 0, -1).Weekday().String())
	mo := strings.ToLower(t.Month().String())
	return l.T(styleIDs[style],
		"Clock", t.Format("15:04"),
		"Day", t.Day(),
		"Year", t.Year(),
		"Weekday", l.T("time.weekday."+wd),
		"Wkd", l.T("time.weekday_short."+wd),
		"Eve", l.T("time.weekday."+eve), // the day before, whose night it is
		"Month", l.T("time.month."+mo),
		"Mon", l.T("time.month_short."+mo),
	)
}

// Showtime writes when a show starts, in loc (the cinema's time zone) in this language's
// way: DateTimeLong, or NightLong for a show after midnight, which belongs to the evening
// before (cinema.Evening), so that it reads as the listing shows it.
func (l *Localizer) Showtime(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = t.Location()
	}
	if _, night := cinema.Evening(t, loc); night {
		return l.Time(t, loc, NightLong)
	}
	return l.Time(t, loc, DateTimeLong)
}

// Midnight is the start of t's calendar day in t's location.
func Midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// Day names the calendar day of t in loc as seen on the day of now: "Today", "Tomorrow", or
// the day written in style (DayShort, DayLong).
func (l *Localizer) Day(t, now time.Time, loc *time.Location, style Style) string {
	d, today := Midnight(t.In(loc)), Midnight(now.In(loc))
	switch {
	case d.Equal(today):
		return l.T("time.today")
	case d.Equal(today.AddDate(0, 0, 1)):
		return l.T("time.tomorrow")
	}
	return l.Time(d, loc, style)
}

// Duration writes a span in the largest unit that measures it whole: "24 hours", "90
// minutes", else seconds, rounded and at least one: "24 Stunden", "1 Sekunde".
func (l *Localizer) Duration(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return l.N("common.hours", int(d/time.Hour))
	case d >= time.Minute && d%time.Minute == 0:
		return l.N("common.minutes", int(d/time.Minute))
	}
	return l.N("common.seconds", int(max(d.Round(time.Second), time.Second)/time.Second))
}
