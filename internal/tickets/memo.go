package tickets

import "sync"

// svgMemoSize is how many rendered codes are remembered: the tickets of a few hundred
// bookings, about 3 KB each.
const svgMemoSize = 1024

type svgKey struct {
	payload, label string
	sizePx         int
}

// memo remembers up to max rendered SVGs. When it is full an arbitrary entry makes room: the
// codes in use are few and are put back at their next view.
type memo struct {
	mu  sync.Mutex
	m   map[svgKey]string
	max int
}

var svgMemo = &memo{m: map[svgKey]string{}, max: svgMemoSize}

func (c *memo) get(k svgKey) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[k]
	return s, ok
}

func (c *memo) put(k svgKey, s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = s
}
