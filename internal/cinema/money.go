package cinema

import (
	"strconv"
	"strings"
)

// Money is an amount in the minor unit of a currency (cents for EUR).
// Amounts are never floating point.
type Money struct {
	Cents    int64
	Currency string // ISO 4217 code, e.g. "EUR"
}

// NewMoney returns cents in currency.
func NewMoney(cents int64, currency string) Money { return Money{Cents: cents, Currency: currency} }

// IsZero reports whether the amount is zero.
func (m Money) IsZero() bool { return m.Cents == 0 }

// IsNegative reports whether the amount is below zero.
func (m Money) IsNegative() bool { return m.Cents < 0 }

// IsPositive reports whether the amount is above zero.
func (m Money) IsPositive() bool { return m.Cents > 0 }

// Neg returns the amount with its sign flipped.
func (m Money) Neg() Money { return Money{Cents: -m.Cents, Currency: m.Currency} }

// Abs returns the amount without its sign.
func (m Money) Abs() Money {
	if m.Cents < 0 {
		return m.Neg()
	}
	return m
}

// Add returns m+o. The currency of m wins when o has none; amounts of two
// different currencies are never mixed by the upstream, so no check is made.
func (m Money) Add(o Money) Money {
	cur := m.Currency
	if cur == "" {
		cur = o.Currency
	}
	return Money{Cents: m.Cents + o.Cents, Currency: cur}
}

// Sub returns m-o.
func (m Money) Sub(o Money) Money { return m.Add(o.Neg()) }

// Mul returns m times n (n tickets of one price).
func (m Money) Mul(n int64) Money { return Money{Cents: m.Cents * n, Currency: m.Currency} }

// currencyFormat says how a currency is written when no locale is given.
type currencyFormat struct {
	symbol   string
	digits   int  // minor unit digits
	suffix   bool // symbol after the number ("12,50 €")
	decimal  string
	grouping string
}

var currencyFormats = map[string]currencyFormat{
	"EUR": {symbol: "€", digits: 2, suffix: true, decimal: ",", grouping: "."},
	"USD": {symbol: "$", digits: 2, decimal: ".", grouping: ","},
	"GBP": {symbol: "£", digits: 2, decimal: ".", grouping: ","},
	"AUD": {symbol: "A$", digits: 2, decimal: ".", grouping: ","},
	"NZD": {symbol: "NZ$", digits: 2, decimal: ".", grouping: ","},
	"CAD": {symbol: "CA$", digits: 2, decimal: ".", grouping: ","},
	"CHF": {symbol: "CHF", digits: 2, suffix: true, decimal: ".", grouping: "’"},
	"SEK": {symbol: "kr", digits: 2, suffix: true, decimal: ",", grouping: " "},
	"NOK": {symbol: "kr", digits: 2, suffix: true, decimal: ",", grouping: " "},
	"DKK": {symbol: "kr.", digits: 2, suffix: true, decimal: ",", grouping: "."},
	"PLN": {symbol: "zł", digits: 2, suffix: true, decimal: ",", grouping: " "},
	"JPY": {symbol: "¥", digits: 0, decimal: ".", grouping: ","},
	"KRW": {symbol: "₩", digits: 0, decimal: ".", grouping: ","},
}

// localeSeparators overrides the decimal and grouping separators (and the
// symbol position) for a locale, so "EUR" reads "€12.50" in en-IE and
// "12,50 €" in de-DE.
var localeSeparators = map[string]struct {
	decimal, grouping string
	suffix            bool
}{
	"en": {".", ",", false},
	"de": {",", ".", true},
	"fr": {",", " ", true},
	"es": {",", ".", true},
	"it": {",", ".", true},
	"nl": {",", ".", false},
	"pt": {",", ".", true},
	"fi": {",", " ", true},
	"sv": {",", " ", true},
	"da": {",", ".", true},
	"nb": {",", " ", true},
	"pl": {",", " ", true},
	"ja": {".", ",", false},
}

// MinorDigits returns the number of minor unit digits of the currency (2 for
// EUR, 0 for JPY). Unknown currencies are assumed to have 2.
func MinorDigits(currency string) int {
	if f, ok := currencyFormats[strings.ToUpper(currency)]; ok {
		return f.digits
	}
	return 2
}

// String formats the amount for its currency with the currency's usual
// conventions, e.g. "12,50 €", "£12.50", "-$3.00", "¥1,250". An unknown
// currency reads "12.50 XYZ".
func (m Money) String() string { return m.Format("") }

// Format formats the amount for its currency in locale (a BCP 47 tag such as
// "de-DE" or "en-GB"; only the language part is used). An empty or unknown
// locale uses the currency's usual conventions.
func (m Money) Format(locale string) string {
	cur := strings.ToUpper(m.Currency)
	f, known := currencyFormats[cur]
	if !known {
		f = currencyFormat{symbol: cur, digits: 2, suffix: true, decimal: ".", grouping: ","}
	}
	if locale != "" {
		lang, _, _ := strings.Cut(strings.ToLower(strings.ReplaceAll(locale, "_", "-")), "-")
		if s, ok := localeSeparators[lang]; ok {
			f.decimal, f.grouping = s.decimal, s.grouping
			if known {
				f.suffix = s.suffix
			}
		}
	}
	num := formatNumber(m.Cents, f.digits, f.decimal, f.grouping)
	sign := ""
	if m.Cents < 0 {
		sign = "-"
	}
	switch {
	case f.symbol == "":
		return sign + num
	case f.suffix:
		return sign + num + "\u00a0" + f.symbol
	default:
		return sign + f.symbol + num
	}
}

// formatNumber writes |cents| with digits minor digits.
func formatNumber(cents int64, digits int, decimal, grouping string) string {
	u := uint64(cents)
	if cents < 0 {
		u = uint64(-(cents + 1)) + 1 // safe for math.MinInt64
	}
	s := strconv.FormatUint(u, 10)
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	intPart, frac := s[:len(s)-digits], s[len(s)-digits:]
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteString(grouping)
		}
		b.WriteRune(r)
	}
	if digits > 0 {
		b.WriteString(decimal)
		b.WriteString(frac)
	}
	return b.String()
}
