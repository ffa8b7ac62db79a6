// Package admission is the fair line in front of the purchase: when more people start a
// purchase than the ticketing system can take, they wait in line and are let in at the site's
// rate, first come first served; those who came before a showtime's sales opened are put in
// random order at the opening, so nobody wins by refreshing. Memory keeps the line in one
// process (embedded defaults); Redis shares one line between every replica.
package admission

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"time"
)

// Visitor is who holds a place: the visit (a stable id kept in its server session) and the
// client key of the rate limits. Either finds the place, so a second tab of the visit and a
// second visit of the same client share it: opening many visits gains nothing.
type Visitor struct {
	Visit  string
	Client string
}

// State is where a visitor stands.
type State int

const (
	// Admitted: the visitor may go on to the purchase.
	Admitted State = iota
	// InLine: the visitor waits; Status.Place says how many are ahead, plus one.
	InLine
	// BeforeOpening: the showtime's sales have not opened; the visitor is put into line, in
	// random order with everyone else who came before, at the opening.
	BeforeOpening
)

// Status is a visitor's state in the line of a showtime.
type Status struct {
	State State
	Place int           // in line: 1 is next
	Wait  time.Duration // in line: the estimated wait (0: unknown, it depends on purchases ending)
	Opens time.Time     // before opening: when sales open
	// Let are the waits in line of everyone this call let in (this visitor or those ahead),
	// each counted once across the replicas: what the metrics count.
	Let []time.Duration
}

// MaxPerMinute is the highest rate a line keeps: the Redis line counts the interval between
// admissions in whole milliseconds (6,000 a minute: one every 10 ms).
const MaxPerMinute = 6000

// Limits are the admission's limits. Zero values mean no limit.
type Limits struct {
	PerMinute int // new purchases per minute, the site's
	Active    int // purchases open at once
}

// On reports whether a line is needed at all.
func (l Limits) On() bool { return l.PerMinute > 0 || l.Active > 0 }

// every is the interval between admissions at the rate (0: no rate).
func (l Limits) every() time.Duration {
	if l.PerMinute <= 0 {
		return 0
	}
	return time.Minute / time.Duration(l.PerMinute)
}

// tolerance lets a small burst through at once: two seconds' worth of the rate (at least one),
// so that over any window the admissions stay within the rate plus that burst.
func (l Limits) tolerance() time.Duration {
	burst := max(1, l.PerMinute/30)
	return time.Duration(burst-1) * l.every()
}

// Options configure a queue.
type Options struct {
	Limits Limits
	// Lifetime is how long an admission lasts when its purchase's end is never seen (the
	// purchase's end releases it sooner).
	Lifetime time.Duration
	// Abandoned is how long a place is kept for a visitor who has not asked about it (the
	// queue page asks every few seconds): longer, and the place is given up.
	Abandoned time.Duration
	// Away is how long the head of the line may go without asking before its turn is given
	// in its absence. At a rate a turn is otherwise taken when its visitor asks: a visitor let
	// in while away starts buying only when it comes back, and such late starts would bunch up
	// at the ticketing system beyond the rate. The queue page asks at least every 10 s.
	Away time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Lifetime <= 0 {
		o.Lifetime = 20 * time.Minute
	}
	if o.Abandoned <= 0 {
		o.Abandoned = 2 * time.Minute
	}
	if o.Away <= 0 {
		o.Away = 15 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Line is one showtime's line as the staff see it.
type Line struct {
	Show     string
	Waiting  int // in line
	Early    int // before the opening
	Admitted int // purchases let in and not yet ended
}

// Queue is the admission line of every showtime.
type Queue interface {
	// Enter finds the visitor's place for show, or gives them one (joining the line, or
	// admitting them at once when nobody waits and the limits allow it). opens is when the
	// show's sales open (zero: open).
	Enter(ctx context.Context, show string, opens time.Time, v Visitor) (Status, error)
	// Leave gives up the visitor's place for show or ends their admission (the purchase
	// ended). Leaving without a place does nothing.
	Leave(ctx context.Context, show string, v Visitor) error
	// Lines are the lines of every showtime with anyone in them.
	Lines(ctx context.Context) ([]Line, error)
	// SetLimits changes the limits until the given time (a supervisor's change for the day);
	// then the configured ones apply again. The new rate starts at once.
	SetLimits(ctx context.Context, l Limits, until time.Time) error
	// Limits are the limits that apply now.
	Limits(ctx context.Context) (Limits, error)
	// Totals are the site's line: everyone waiting or before an opening, and the admissions.
	Totals(ctx context.Context) (Line, error)
}

// ErrNoVisitor is returned for a visitor with neither a visit nor a client key.
var ErrNoVisitor = errors.New("admission: a visitor needs a visit id or a client key")

// statusOf is the Status of a visitor in state: in line at place (1 is next), its wait
// estimated at the limits; before opening, when sales open; let are the waits of those the
// call let in.
func statusOf(state State, place int, opens time.Time, l Limits, let []time.Duration) Status {
	switch state {
	case Admitted:
		return Status{State: Admitted, Let: let}
	case BeforeOpening:
		return Status{State: BeforeOpening, Opens: opens, Let: let}
	}
	return Status{State: InLine, Place: place, Wait: estimate(place, l), Let: let}
}

// estimate is the wait of place at the limits: the places ahead at the rate (0 without one).
func estimate(place int, l Limits) time.Duration {
	return time.Duration(place) * l.every()
}

// newID is a random id for an entry.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewVisitID is a random id for a visit, kept in its session.
func NewVisitID() string { return newID() }

// shuffleKey is an early arrival's random key: the order at the opening.
func shuffleKey() float64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return float64(binary.BigEndian.Uint64(b[:])>>11) / (1 << 53)
}
