package bff

import (
	"context"
	"encoding/json"

	"github.com/alexedwards/scs/v2"
)

// sessionValue is a typed value kept in the visit's server session under one key, as JSON
// (the session stores only what its codec knows; a struct of ours is safest as text). A value
// that is missing or cannot be read back (written by an older version, say) is absent:
// the visit goes on as if it had never been stored.
type sessionValue[T any] struct{ key string }

// get returns the value and whether there is one.
func (v sessionValue[T]) get(ctx context.Context, sm *scs.SessionManager) (T, bool) {
	var out T
	raw := sm.GetString(ctx, v.key)
	if raw == "" || json.Unmarshal([]byte(raw), &out) != nil {
		var zero T
		return zero, false
	}
	return out, true
}

// put stores the value.
func (v sessionValue[T]) put(ctx context.Context, sm *scs.SessionManager, val T) {
	b, _ := json.Marshal(val) // our values are plain structs: cannot fail
	sm.Put(ctx, v.key, string(b))
}

// remove forgets the value.
func (v sessionValue[T]) remove(ctx context.Context, sm *scs.SessionManager) { sm.Remove(ctx, v.key) }
