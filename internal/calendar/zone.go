package calendar

import (
	"fmt"
	"time"
)

// Go's time package does not expose a zone's rules, only what holds at an instant. The
// VTIMEZONE is therefore written from the zone's transitions themselves: one observance per
// change of offset from the start of the year before the event to the end of the year after
// it, each with the local time it begins (in the offset it ends), TZOFFSETFROM, TZOFFSETTO and
// the abbreviation, and one more for the offset in force when that span begins. A calendar
// needs the rules only around the event, and these are exact there, however the zone's rules
// changed in history. A zone without transitions gets one STANDARD observance.

// transition is a change of a zone's offset.
type transition struct {
	at       time.Time // the first instant of the new offset
	from, to int       // seconds east of UTC
	name     string    // abbreviation after the change
	dst      bool
}

// transitions lists the zone's changes of offset in [from, to).
func transitions(loc *time.Location, from, to time.Time) []transition {
	var out []transition
	const step = 24 * time.Hour // no zone changes its offset twice in a day
	prev := from
	_, prevOff := prev.In(loc).Zone()
	prevDST := prev.In(loc).IsDST()
	for t := from.Add(step); !prev.After(to); t = t.Add(step) {
		name, off := t.In(loc).Zone()
		dst := t.In(loc).IsDST()
		if off != prevOff || dst != prevDST {
			// The change lies in (prev, t]: find its first second.
			lo, hi := prev, t
			for hi.Sub(lo) > time.Second {
				mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
				if mid.Equal(lo) {
					break
				}
				_, o := mid.In(loc).Zone()
				if o == prevOff && mid.In(loc).IsDST() == prevDST {
					lo = mid
				} else {
					hi = mid
				}
			}
			if hi.Before(to) {
				out = append(out, transition{at: hi, from: prevOff, to: off, name: name, dst: dst})
			}
			prevOff, prevDST = off, dst
		}
		prev = t
	}
	return out
}

// writeZone writes the VTIMEZONE of loc for an event at around.
func writeZone(w *writer, loc *time.Location, around time.Time) {
	year := around.In(loc).Year()
	from := time.Date(year-1, time.January, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(year+2, time.January, 1, 0, 0, 0, 0, time.UTC)
	w.line("BEGIN:VTIMEZONE")
	w.line("TZID:" + loc.String())
	startName, startOff := from.In(loc).Zone()
	observance(w, from.In(loc).IsDST(), from, startOff, startOff, startName)
	for _, tr := range transitions(loc, from, to) {
		observance(w, tr.dst, tr.at, tr.from, tr.to, tr.name)
	}
	w.line("END:VTIMEZONE")
}

// observance writes one STANDARD or DAYLIGHT component that begins at instant at.
func observance(w *writer, dst bool, at time.Time, from, to int, name string) {
	kind := "STANDARD"
	if dst {
		kind = "DAYLIGHT"
	}
	w.line("BEGIN:" + kind)
	// DTSTART is the local time of the onset in the offset before it (RFC 5545 3.6.5).
	w.line("DTSTART:" + at.UTC().Add(time.Duration(from)*time.Second).Format(localLayout))
	w.line("TZOFFSETFROM:" + offset(from))
	w.line("TZOFFSETTO:" + offset(to))
	if name != "" {
		w.line("TZNAME:" + Escape(name))
	}
	w.line("END:" + kind)
}

// offset writes seconds east of UTC as a UTC-OFFSET: +HHMM, or +HHMMSS with seconds.
func offset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	h, m, s := sec/3600, sec/60%60, sec%60
	if s != 0 {
		return fmt.Sprintf("%s%02d%02d%02d", sign, h, m, s)
	}
	return fmt.Sprintf("%s%02d%02d", sign, h, m)
}
