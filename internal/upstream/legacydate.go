package upstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// errLegacyDate is returned for a value that is not a legacy date.
var errLegacyDate = errors.New("upstream: not a legacy date")

// ParseLegacyDate parses the WCF JSON date form "/Date(<ms>[±hhmm])/"
// (milliseconds since the Unix epoch, then an optional UTC offset). The
// instant is the milliseconds; the offset only sets the returned time's
// location. Without an offset the time is in UTC.
func ParseLegacyDate(s string) (time.Time, error) {
	inner, ok := strings.CutPrefix(s, "/Date(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")/")
	}
	if !ok || inner == "" {
		return time.Time{}, fmt.Errorf("%w: %q", errLegacyDate, s)
	}
	// The offset sign is the first '+' or '-' after the first character
	// (the first may be the sign of a negative millisecond count).
	msPart, offPart := inner, ""
	if i := strings.IndexAny(inner[1:], "+-"); i >= 0 {
		msPart, offPart = inner[:i+1], inner[i+1:]
	}
	if !isDigits(strings.TrimPrefix(msPart, "-")) {
		return time.Time{}, fmt.Errorf("%w: %q", errLegacyDate, s)
	}
	ms, err := strconv.ParseInt(msPart, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q", errLegacyDate, s)
	}
	t := time.UnixMilli(ms).UTC()
	if offPart == "" {
		return t, nil
	}
	if len(offPart) != 5 || !isDigits(offPart[1:]) {
		return time.Time{}, fmt.Errorf("%w: bad offset in %q", errLegacyDate, s)
	}
	hh, _ := strconv.Atoi(offPart[1:3])
	mm, _ := strconv.Atoi(offPart[3:5])
	if hh > 23 || mm > 59 {
		return time.Time{}, fmt.Errorf("%w: bad offset in %q", errLegacyDate, s)
	}
	secs := hh*3600 + mm*60
	if offPart[0] == '-' {
		secs = -secs
	}
	return t.In(time.FixedZone("", secs)), nil
}

// FormatLegacyDate writes t in the legacy form with unescaped slashes. A time
// in time.UTC has no offset; any other location gets its offset, so a value
// parsed by ParseLegacyDate formats back to the same text.
func FormatLegacyDate(t time.Time) string {
	var b strings.Builder
	b.WriteString("/Date(")
	b.WriteString(strconv.FormatInt(t.UnixMilli(), 10))
	if t.Location() != time.UTC {
		_, off := t.Zone()
		sign := byte('+')
		if off < 0 {
			sign, off = '-', -off
		}
		b.WriteByte(sign)
		fmt.Fprintf(&b, "%02d%02d", off/3600, off%3600/60)
	}
	b.WriteString(")/")
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// legacyDate is a wire field in the legacy date form. JSON null and "" decode
// to the zero time; the zero time encodes to null.
type legacyDate struct{ time.Time }

func (d *legacyDate) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		d.Time = time.Time{}
		return nil
	}
	var s string
	if err := jsonUnmarshalString(b, &s); err != nil {
		return typeErr(b, reflect.TypeFor[legacyDate]())
	}
	if s == "" {
		d.Time = time.Time{}
		return nil
	}
	t, err := ParseLegacyDate(s)
	if err != nil {
		// Some deployments write ISO 8601 where the contract shows the
		// legacy form: accept it rather than lose the value.
		var iso isoTime
		if iso.UnmarshalJSON(b) == nil {
			d.Time = iso.Time
			return nil
		}
		return typeErr(b, reflect.TypeFor[legacyDate]())
	}
	d.Time = t
	return nil
}

// MarshalJSON writes the date with escaped slashes ("\/Date(...)\/"), as the
// upstream does.
func (d legacyDate) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	s := FormatLegacyDate(d.Time)
	return []byte(`"` + strings.ReplaceAll(s, "/", `\/`) + `"`), nil
}

// isoTime is a wire field holding an ISO 8601 timestamp. A value without a
// zone is taken as UTC (some deployments omit the "Z"). null and "" decode to
// the zero time.
type isoTime struct{ time.Time }

var isoLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02"}

func (t *isoTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := jsonUnmarshalString(b, &s); err != nil {
		return typeErr(b, reflect.TypeFor[isoTime]())
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	for _, l := range isoLayouts {
		if v, err := time.Parse(l, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	if lt, err := ParseLegacyDate(s); err == nil {
		t.Time = lt.UTC()
		return nil
	}
	return typeErr(b, reflect.TypeFor[isoTime]())
}

// localTime is a wall-clock time as the listings send it: the cinema's local
// time without an offset ("2019-02-26T20:00:00"). It keeps the text until the
// cinema's zone is known; in resolves it. A value with an offset or "Z", or
// in the legacy form, names its instant itself.
type localTime struct {
	raw string
}

func (t *localTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.raw = ""
		return nil
	}
	var s string
	if err := jsonUnmarshalString(b, &s); err != nil {
		return typeErr(b, reflect.TypeFor[localTime]())
	}
	if _, ok := parseLocal(s, time.UTC); !ok && s != "" {
		return typeErr(b, reflect.TypeFor[localTime]())
	}
	t.raw = s
	return nil
}

// in returns the time in loc (zero when absent).
func (t localTime) in(loc *time.Location) time.Time {
	v, _ := parseLocal(t.raw, loc)
	return v
}

var localLayouts = []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

func parseLocal(s string, loc *time.Location) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return v.In(loc), true
	}
	if v, err := ParseLegacyDate(s); err == nil {
		return v.In(loc), true
	}
	for _, l := range localLayouts {
		if v, err := time.ParseInLocation(l, s, loc); err == nil {
			return v, true
		}
	}
	return time.Time{}, false
}

// typeErr reports a value a decoder refused as a *json.UnmarshalTypeError,
// so that encoding/json adds the path of the field (Booking.Tickets.SeatNumber).
func typeErr(b []byte, t reflect.Type) error {
	return &json.UnmarshalTypeError{Value: "value " + truncate(string(b), 40), Type: t}
}

func (t isoTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.UTC().Format(time.RFC3339Nano) + `"`), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
