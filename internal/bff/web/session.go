package web

import (
	"context"
	"encoding/json"

	"github.com/alexedwards/scs/v2"
)

// SessionValue is a typed value kept in the visit's server session under one key, as JSON
// (the session stores only what its codec knows; a struct of ours is safest as text). A value
// that is missing or cannot be read back (written by an older version, say) is absent:
// the visit goes on as if it had never been stored.
type SessionValue[T any] struct{ Key string }

// Get returns the value and whether there is one.
func (v SessionValue[T]) Get(ctx context.Context, sm *scs.SessionManager) (T, bool) {
	var out T
	raw := sm.GetString(ctx, v.Key)
	if raw == "" || json.Unmarshal([]byte(raw), &out) != nil {
		var zero T
		return zero, false
	}
	return out, true
}

// Put stores the value.
func (v SessionValue[T]) Put(ctx context.Context, sm *scs.SessionManager, val T) {
	b, _ := json.Marshal(val) // our values are plain structs: cannot fail
	sm.Put(ctx, v.Key, string(b))
}

// Remove forgets the value.
func (v SessionValue[T]) Remove(ctx context.Context, sm *scs.SessionManager) { sm.Remove(ctx, v.Key) }
