package admission

import (
	"fmt"
	"strings"
	"time"
)

// Openings are the times the operator set for showtimes' sales to open, by session id
// ("1011", any cinema's) or by cinema and session ("0001-1011").
type Openings map[string]time.Time

// ParseOpenings reads "SESSION=TIME" pairs, comma-separated, each time in RFC 3339 with its
// offset (1011=2026-12-24T10:00:00+01:00); "" is none.
func ParseOpenings(s string) (Openings, error) {
	out := Openings{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		id, at, ok := strings.Cut(pair, "=")
		id, at = strings.TrimSpace(id), strings.TrimSpace(at)
		if !ok || id == "" || strings.ContainsAny(id, " \t") {
			return nil, fmt.Errorf("sales opening %q: want SESSION=TIME, e.g. 1011=2026-12-24T10:00:00+01:00", pair)
		}
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return nil, fmt.Errorf("sales opening of %s: %q is no time with its offset, e.g. 2026-12-24T10:00:00+01:00", id, at)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("sales opening of %s given twice", id)
		}
		out[id] = t
	}
	return out, nil
}

// Of is when the sales of a cinema's session open (zero: open, no time set).
func (o Openings) Of(cinemaID, sessionID string) time.Time {
	if t, ok := o[cinemaID+"-"+sessionID]; ok {
		return t
	}
	return o[sessionID]
}
