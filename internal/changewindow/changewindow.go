// Package changewindow owns the rule of when a booking may still be changed: a customer may
// change, refund or swap until a cut-off before the show (30 minutes unless configured, with
// an override per cinema); staff at the counter may go on until the show starts.
//
// Times are compared as instants, so the rule does not depend on any time zone; pages show the
// closing time in the cinema's own zone. A showtime that is not known (the zero time) never
// closes the window here: the ticketing system, which refuses a change once the session has
// started, then has the last word.
package changewindow

import (
	"fmt"
	"strings"
	"time"
)

// DefaultCutoff is how long before the show customers' changes close when nothing else is
// configured.
const DefaultCutoff = 30 * time.Minute

// Policy is the cut-off before the show, for every cinema (Default) or for some
// (PerCinema, by cinema id). The zero Policy closes changes when the show starts.
type Policy struct {
	Default   time.Duration
	PerCinema map[string]time.Duration
}

// Default is the policy without configuration: DefaultCutoff everywhere.
func Default() Policy { return Policy{Default: DefaultCutoff} }

// Cutoff is how long before a show of cinemaID customers' changes close.
func (p Policy) Cutoff(cinemaID string) time.Duration {
	if d, ok := p.PerCinema[cinemaID]; ok {
		return d
	}
	return p.Default
}

// Closes is the instant changes to a booking of a show at showtime close: the cut-off before
// it, or for staff the showtime itself. It is the zero time when showtime is.
func (p Policy) Closes(cinemaID string, showtime time.Time, staff bool) time.Time {
	if showtime.IsZero() {
		return time.Time{}
	}
	if staff {
		return showtime
	}
	return showtime.Add(-p.Cutoff(cinemaID))
}

// Open reports whether changes are still possible at now: strictly before the closing
// instant. An unknown showtime (zero) is open.
func (p Policy) Open(now time.Time, cinemaID string, showtime time.Time, staff bool) bool {
	if showtime.IsZero() {
		return true
	}
	return now.Before(p.Closes(cinemaID, showtime, staff))
}

// Validate reports a negative cut-off, the default's or a cinema's.
func (p Policy) Validate() error {
	if p.Default < 0 {
		return fmt.Errorf("change cut-off %s is negative: give how long before the show changes close, e.g. 30m", p.Default)
	}
	for id, d := range p.PerCinema {
		if d < 0 {
			return fmt.Errorf("change cut-off of cinema %s is negative (%s): give how long before the show changes close, e.g. %s=2h", id, d, id)
		}
	}
	return nil
}

// ParsePerCinema reads per-cinema cut-offs written as "0001=2h,0002=45m" (cinema id, "=", a Go
// duration; entries separated by commas, spaces around them ignored). An empty string is no
// override. A malformed entry, an empty id, a negative duration or a cinema named twice is an
// error that names the entry.
func ParsePerCinema(s string) (map[string]time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]time.Duration{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, dur, ok := strings.Cut(entry, "=")
		id, dur = strings.TrimSpace(id), strings.TrimSpace(dur)
		if !ok || id == "" || dur == "" {
			return nil, fmt.Errorf("per-cinema change cut-off %q: want CINEMA=DURATION, e.g. 0001=2h", entry)
		}
		d, err := time.ParseDuration(dur)
		if err != nil {
			return nil, fmt.Errorf("per-cinema change cut-off %q: %q is not a duration (e.g. 45m, 2h)", entry, dur)
		}
		if d < 0 {
			return nil, fmt.Errorf("per-cinema change cut-off %q: the duration must not be negative", entry)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("per-cinema change cut-off: cinema %s is named twice", id)
		}
		out[id] = d
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
