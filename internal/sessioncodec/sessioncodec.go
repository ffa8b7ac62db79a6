// Package sessioncodec is the visit sessions' codec: scs's gob, with recently decoded sessions
// kept so that a returning visitor's unchanged session is not decoded again on every page.
package sessioncodec

import (
	"maps"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
)

// Codec is scs's gob codec that remembers what it decoded. A returning visitor sends the
// same session on every page until something in it changes, and gob decoding builds its decoder
// anew for each session (its types included), a good part of a page's time. The same bytes
// always decode to the same deadline and values, so a session seen recently is handed out as a
// fresh copy of its map instead. Only sessions whose values are all plain (strings, numbers,
// booleans: what the site stores) are remembered, so no two requests ever share a value that
// could be changed in place. Encoding is gob's, unchanged: sessions stay readable both ways.
type Codec struct {
	scs.GobCodec

	mu   sync.Mutex
	seen map[string]decodedSession // by the encoded bytes
}

type decodedSession struct {
	deadline time.Time
	values   map[string]any
}

// maxDecodedSessions bounds the remembered sessions; when full they are all forgotten at once
// (a busy site simply decodes again).
const maxDecodedSessions = 2048

// maxDecodedSize: larger sessions are not remembered (their bytes are the map's key).
const maxDecodedSize = 8 << 10

// New returns a codec that remembers no session yet.
func New() *Codec { return &Codec{seen: map[string]decodedSession{}} }

// Decode converts the stored bytes into the session's deadline and values.
func (c *Codec) Decode(b []byte) (time.Time, map[string]any, error) {
	c.mu.Lock()
	d, ok := c.seen[string(b)]
	c.mu.Unlock()
	if ok {
		return d.deadline, maps.Clone(d.values), nil
	}
	deadline, values, err := c.GobCodec.Decode(b)
	if err != nil || len(b) > maxDecodedSize || !allPlain(values) {
		return deadline, values, err
	}
	c.mu.Lock()
	if len(c.seen) >= maxDecodedSessions {
		clear(c.seen)
	}
	c.seen[string(b)] = decodedSession{deadline: deadline, values: maps.Clone(values)}
	c.mu.Unlock()
	return deadline, values, nil
}

// allPlain reports whether every value is of a type that is copied by assignment.
func allPlain(values map[string]any) bool {
	for _, v := range values {
		switch v.(type) {
		case string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		default:
			return false
		}
	}
	return true
}
