package web

import (
	"context"
	"testing"

	"github.com/alexedwards/scs/v2"
)

// TestSessionValue: a value put is got back as it was; a missing value, and one that cannot
// be read back (an older version's, or garbage), are absent rather than an error; remove
// forgets it.
func TestSessionValue(t *testing.T) {
	type visit struct {
		ID    string
		Count int
	}
	sm := scs.New()
	ctx, err := sm.Load(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	v := SessionValue[visit]{"test.visit"}
	if _, ok := v.Get(ctx, sm); ok {
		t.Fatal("a value never put is present")
	}
	v.Put(ctx, sm, visit{ID: "abc", Count: 2})
	if got, ok := v.Get(ctx, sm); !ok || got != (visit{ID: "abc", Count: 2}) {
		t.Fatalf("got %+v, %v; want the value put", got, ok)
	}
	for _, raw := range []string{"not json", `{"ID": 3}`, `[1,2]`} {
		sm.Put(ctx, "test.visit", raw)
		if got, ok := v.Get(ctx, sm); ok {
			t.Errorf("unreadable %q read as %+v", raw, got)
		}
	}
	v.Put(ctx, sm, visit{ID: "x"})
	v.Remove(ctx, sm)
	if _, ok := v.Get(ctx, sm); ok {
		t.Fatal("a removed value is present")
	}
}
