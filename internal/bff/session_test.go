package bff

import (
	"context"
	"net/http"
	"testing"

	"github.com/alexedwards/scs/v2/memstore"
)

// TestSessionChangeDetection: the copy taken at load tells a changed session from one that was
// only read, without encoding the values.
func TestSessionChangeDetection(t *testing.T) {
	s := &Server{sessions: newSessionManager(memstore.NewWithCleanupInterval(0), Config{})}
	cases := []struct {
		name    string
		change  func(ctx context.Context)
		changed bool
	}{
		{"nothing", func(context.Context) {}, false},
		{"only read", func(ctx context.Context) {
			_ = s.sessions.GetString(ctx, "name")
			_ = s.sessions.GetInt64(ctx, "number")
		}, false},
		{"same string put again", func(ctx context.Context) { s.sessions.Put(ctx, "name", "Ada") }, false},
		{"same number put again", func(ctx context.Context) { s.sessions.Put(ctx, "number", int64(7)) }, false},
		{"pop of a missing key", func(ctx context.Context) { _ = s.sessions.PopString(ctx, "flash") }, false},
		{"string changed", func(ctx context.Context) { s.sessions.Put(ctx, "name", "Alan") }, true},
		{"number changed", func(ctx context.Context) { s.sessions.Put(ctx, "number", int64(8)) }, true},
		{"same number of another type", func(ctx context.Context) { s.sessions.Put(ctx, "number", 7) }, true},
		{"key added", func(ctx context.Context) { s.sessions.Put(ctx, "flash", "hello") }, true},
		{"key removed", func(ctx context.Context) { s.sessions.Remove(ctx, "name") }, true},
		{"key popped", func(ctx context.Context) { _ = s.sessions.PopString(ctx, "name") }, true},
		{"slice changed in place", func(ctx context.Context) {
			s.sessions.Get(ctx, "list").([]string)[0] = "z"
		}, true},
		{"slice put again unchanged", func(ctx context.Context) { s.sessions.Put(ctx, "list", []string{"a", "b"}) }, false},
		{"all cleared", func(ctx context.Context) { _ = s.sessions.Clear(ctx) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, err := s.sessions.Load(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			s.sessions.Put(ctx, "name", "Ada")
			s.sessions.Put(ctx, "number", int64(7))
			s.sessions.Put(ctx, "list", []string{"a", "b"})
			loaded := s.snapshot(ctx)
			tc.change(ctx)
			if got := s.changedSince(ctx, loaded); got != tc.changed {
				t.Fatalf("changed = %v, want %v", got, tc.changed)
			}
		})
	}
}

// TestBookingPageGETsDoNotWriteSessionStore: browsing never writes the session store. A new
// visit that only looks at pages is not stored at all; finding a booking (a POST) stores the
// visit once; from then on, GETs of the booking page (full and htmx) write nothing. The idle
// deadline is refreshed by a write at most every IdleTimeout/4 (7.5 minutes by default), which
// a test run never reaches.
func TestBookingPageGETsDoNotWriteSessionStore(t *testing.T) {
	h := newHarness(t, harnessOpts{sandbox: true})
	for _, p := range []string{"/", "/whats-on", "/booking"} {
		h.page(p, http.StatusOK)
	}
	if n := h.store.commits.Load(); n != 0 {
		t.Fatalf("a visit that only looked at pages wrote the session store %d times", n)
	}
	h.find(bkPaid1)
	before := h.store.commits.Load()
	if before == 0 {
		t.Fatal("finding a booking did not store the visit")
	}
	for range 5 {
		h.page("/booking/current", http.StatusOK)
		h.do("GET", "/booking/current", nil, http.Header{"Hx-Request": {"true"}})
	}
	if n := h.store.commits.Load() - before; n != 0 {
		t.Fatalf("10 GETs of the booking page wrote the session store %d times", n)
	}
}
