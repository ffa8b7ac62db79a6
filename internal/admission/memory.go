package admission

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Memory is the line in this process's memory: one replica's (embedded defaults, tests).
type Memory struct {
	o Options

	mu       sync.Mutex
	seq      int64
	entries  map[string]*entry
	byVisit  map[string]string // show + visit → entry id
	byClient map[string]string // show + client → entry id
	line     []*entry          // in order of their numbers
	adm      map[string]*entry // the admissions, by entry id
	early    map[string][]*entry
	tat      time.Time // the rate's theoretical arrival time
	override *override
}

type entry struct {
	id, show      string
	visit, client string
	state         State
	number        int64     // in line: the order
	key           float64   // before the opening: the random order at the opening
	seen          time.Time // when the visitor last asked
	joined        time.Time // when it was put into line
	until         time.Time // admitted: when the admission ends at the latest
	// claimed: the visitor has asked since it was let in. One let in while away holds its
	// admission only as long as its place would have been kept (Options.Abandoned): a visitor
	// who closed the tab near the head holds no purchase's room for a whole lifetime.
	claimed bool
}

type override struct {
	limits Limits
	until  time.Time
}

// NewMemory returns an empty line.
func NewMemory(o Options) *Memory {
	return &Memory{o: o.withDefaults(), entries: map[string]*entry{}, byVisit: map[string]string{}, byClient: map[string]string{},
		early: map[string][]*entry{}, adm: map[string]*entry{}}
}

// Enter implements Queue.
func (m *Memory) Enter(_ context.Context, show string, opens time.Time, v Visitor) (Status, error) {
	if v.Visit == "" && v.Client == "" {
		return Status{}, ErrNoVisitor
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.o.Now()
	limits := m.limitsAt(now)
	m.open(show, opens, now)
	e := m.find(show, v, now)
	if e == nil {
		e = &entry{id: newID(), show: show}
		m.entries[e.id] = e
		if now.Before(opens) {
			e.state, e.key = BeforeOpening, shuffleKey()
			m.early[show] = append(m.early[show], e)
		} else {
			m.join(e, now)
		}
	}
	e.seen = now
	if e.state == Admitted && !e.claimed {
		e.claimed, e.until = true, now.Add(m.o.Lifetime)
	}
	if v.Visit != "" {
		e.visit, m.byVisit[show+"\x00"+v.Visit] = v.Visit, e.id
	}
	if v.Client != "" {
		e.client, m.byClient[show+"\x00"+v.Client] = v.Client, e.id
	}
	let := m.admit(now, limits, e)
	place := 0
	if e.state == InLine {
		place = slices.Index(m.line, e) + 1 // a scan of the line: only for those in it
	}
	return statusOf(e.state, place, opens, limits, let), nil
}

// find is the visitor's entry for show (nil: none, or its admission has ended).
func (m *Memory) find(show string, v Visitor, now time.Time) *entry {
	for _, id := range []string{m.byVisit[show+"\x00"+v.Visit], m.byClient[show+"\x00"+v.Client]} {
		e, ok := m.entries[id]
		if !ok {
			continue
		}
		if e.state == Admitted && !now.Before(e.until) {
			m.drop(e)
			continue
		}
		return e
	}
	return nil
}

// join puts e at the end of the line.
func (m *Memory) join(e *entry, now time.Time) {
	m.seq++
	e.state, e.number, e.joined = InLine, m.seq, now
	m.line = append(m.line, e)
}

// open puts those who came before show's opening into line in random order, once it is open.
func (m *Memory) open(show string, opens, now time.Time) {
	early := m.early[show]
	if len(early) == 0 || now.Before(opens) {
		return
	}
	delete(m.early, show)
	slices.SortFunc(early, func(a, b *entry) int { return cmp.Compare(a.key, b.key) })
	for _, e := range early {
		if m.entries[e.id] == e {
			m.join(e, now)
		}
	}
}

// admit lets in from the head of the line what the limits allow. At a rate the head is let in
// when it is the one asking or has been away too long (Options.Away): one let in while it is
// not there starts buying only when it asks, and such late starts would bunch up beyond the
// rate. Without a rate (purchases open at once only, or no limits left) a room that comes free
// goes to the head at once, whoever asks, and a line whose limits were lifted goes in whole.
// Places nobody has asked about for too long are given up on the way. It returns the waits of
// those it let in.
func (m *Memory) admit(now time.Time, l Limits, asking *entry) (let []time.Duration) {
	for len(m.line) > 0 {
		head := m.line[0]
		if now.Sub(head.seen) > m.o.Abandoned {
			m.drop(head)
			continue
		}
		if head != asking && now.Sub(head.seen) < m.o.Away && l.every() > 0 {
			return let // at a rate, its turn is taken when it asks, within a second or two
		}
		if l.Active > 0 && m.admitted(now) >= l.Active {
			return let
		}
		if every := l.every(); every > 0 {
			start := m.tat
			if start.Before(now) {
				start = now
			}
			if start.Sub(now) > l.tolerance() {
				return let
			}
			m.tat = start.Add(every)
		}
		m.line = m.line[1:]
		head.state, head.claimed, head.until = Admitted, head == asking, now.Add(m.o.Lifetime)
		if !head.claimed {
			head.until = head.seen.Add(m.o.Abandoned)
		}
		m.adm[head.id] = head
		let = append(let, now.Sub(head.joined))
	}
	return let
}

// admitted counts the admissions that have not ended, dropping the ended ones.
func (m *Memory) admitted(now time.Time) int {
	n := 0
	for _, e := range m.adm {
		if !now.Before(e.until) {
			m.drop(e)
			continue
		}
		n++
	}
	return n
}

// drop forgets e wherever it is.
func (m *Memory) drop(e *entry) {
	delete(m.entries, e.id)
	delete(m.adm, e.id)
	if m.byVisit[e.show+"\x00"+e.visit] == e.id {
		delete(m.byVisit, e.show+"\x00"+e.visit)
	}
	if m.byClient[e.show+"\x00"+e.client] == e.id {
		delete(m.byClient, e.show+"\x00"+e.client)
	}
	switch e.state {
	case InLine:
		m.line = slices.DeleteFunc(m.line, func(x *entry) bool { return x == e })
	case BeforeOpening:
		m.early[e.show] = slices.DeleteFunc(m.early[e.show], func(x *entry) bool { return x == e })
	}
}

// Leave implements Queue.
func (m *Memory) Leave(_ context.Context, show string, v Visitor) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range []string{m.byVisit[show+"\x00"+v.Visit], m.byClient[show+"\x00"+v.Client]} {
		if e, ok := m.entries[id]; ok {
			m.drop(e)
		}
	}
	return nil
}

// Lines implements Queue.
func (m *Memory) Lines(_ context.Context) ([]Line, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.o.Now()
	m.admitted(now) // drops the ended admissions
	by := map[string]*Line{}
	for _, e := range m.entries {
		l := by[e.show]
		if l == nil {
			l = &Line{Show: e.show}
			by[e.show] = l
		}
		switch e.state {
		case Admitted:
			l.Admitted++
		case InLine:
			l.Waiting++
		case BeforeOpening:
			l.Early++
		}
	}
	return sortedLines(by), nil
}

// sortedLines are the lines by showtime id.
func sortedLines(by map[string]*Line) []Line {
	out := make([]Line, 0, len(by))
	for _, l := range by {
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Line) int { return cmp.Compare(a.Show, b.Show) })
	return out
}

// SetLimits implements Queue.
func (m *Memory) SetLimits(_ context.Context, l Limits, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.override = &override{limits: l, until: until}
	m.tat = time.Time{} // the new rate starts now, not after the old one's next admission
	return nil
}

// Limits implements Queue.
func (m *Memory) Limits(_ context.Context) (Limits, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.limitsAt(m.o.Now()), nil
}

func (m *Memory) limitsAt(now time.Time) Limits {
	if m.override != nil && now.Before(m.override.until) {
		return m.override.limits
	}
	return m.o.Limits
}

// Totals implements Queue.
func (m *Memory) Totals(ctx context.Context) (Line, error) {
	lines, err := m.Lines(ctx)
	return total(lines), err
}

// total adds lines up.
func total(lines []Line) Line {
	var t Line
	for _, l := range lines {
		t.Waiting, t.Early, t.Admitted = t.Waiting+l.Waiting, t.Early+l.Early, t.Admitted+l.Admitted
	}
	return t
}
