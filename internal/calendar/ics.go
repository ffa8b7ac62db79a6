// Package calendar writes a booking as an iCalendar event (RFC 5545): one VCALENDAR with
// METHOD:PUBLISH, a VTIMEZONE for the cinema's zone and one VEVENT whose UID is stable per
// booking and whose SEQUENCE rises with each change, so a calendar that imported an earlier
// file replaces the event instead of adding a second one.
package calendar

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ProdID names this program in the files it writes.
const ProdID = "-//cinemabff//Booking calendar//EN"

// ContentType is the media type of a file Write makes, for a download and a mail attachment.
const ContentType = "text/calendar; charset=utf-8; method=PUBLISH"

// Event is one calendar entry. Start and End are instants; they are written as local times in
// Zone (with its VTIMEZONE), UTC when Zone is nil.
type Event struct {
	UID         string
	Sequence    int
	Stamp       time.Time // when the file was made (DTSTAMP, written in UTC)
	Start, End  time.Time
	Zone        *time.Location
	Summary     string
	Location    string
	Description string
}

// Write returns the VCALENDAR that publishes e: CRLF line endings, lines folded at 75 octets,
// TEXT values escaped.
func Write(e Event) []byte {
	zone := e.Zone
	if zone == nil {
		zone = time.UTC
	}
	var w writer
	w.line("BEGIN:VCALENDAR")
	w.line("PRODID:" + ProdID)
	w.line("VERSION:2.0")
	w.line("CALSCALE:GREGORIAN")
	w.line("METHOD:PUBLISH")
	tzid := zone.String()
	utc := zone == time.UTC || tzid == "UTC"
	if !utc {
		writeZone(&w, zone, e.Start)
	}
	w.line("BEGIN:VEVENT")
	w.line("UID:" + Escape(e.UID))
	w.line(fmt.Sprintf("SEQUENCE:%d", max(e.Sequence, 0)))
	w.line("DTSTAMP:" + e.Stamp.UTC().Format("20060102T150405Z"))
	if utc {
		w.line("DTSTART:" + e.Start.UTC().Format("20060102T150405Z"))
		w.line("DTEND:" + e.End.UTC().Format("20060102T150405Z"))
	} else {
		w.line("DTSTART;TZID=" + paramValue(tzid) + ":" + e.Start.In(zone).Format(localLayout))
		w.line("DTEND;TZID=" + paramValue(tzid) + ":" + e.End.In(zone).Format(localLayout))
	}
	w.line("SUMMARY:" + Escape(e.Summary))
	if e.Location != "" {
		w.line("LOCATION:" + Escape(e.Location))
	}
	if e.Description != "" {
		w.line("DESCRIPTION:" + Escape(e.Description))
	}
	w.line("STATUS:CONFIRMED")
	w.line("TRANSP:OPAQUE")
	w.line("END:VEVENT")
	w.line("END:VCALENDAR")
	return []byte(w.b.String())
}

const localLayout = "20060102T150405"

// paramValue quotes a parameter value that holds a character a bare one cannot (RFC 5545 3.1).
func paramValue(s string) string {
	if strings.ContainsAny(s, ":;,") {
		return `"` + strings.ReplaceAll(s, `"`, "") + `"`
	}
	return s
}

// Escape writes s as an iCalendar TEXT value: backslash, semicolon and comma escaped, line
// breaks as \n (RFC 5545 3.3.11).
func Escape(s string) string {
	var b strings.Builder
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case ';':
			b.WriteString(`\;`)
		case ',':
			b.WriteString(`\,`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\n`)
		default:
			if r < 0x20 && r != '\t' || r == 0x7f {
				continue // control characters are not allowed in TEXT
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// writer folds content lines at 75 octets, never inside a UTF-8 sequence, and ends each with
// CRLF (RFC 5545 3.1).
type writer struct{ b strings.Builder }

const maxOctets = 75

func (w *writer) line(s string) {
	limit := maxOctets
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.b.WriteString(s[:cut])
		w.b.WriteString("\r\n ")
		s = s[cut:]
		limit = maxOctets - 1 // the leading space of a continuation counts
	}
	w.b.WriteString(s)
	w.b.WriteString("\r\n")
}
