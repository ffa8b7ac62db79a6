package web

import (
	"context"
	"testing"

	"github.com/alexedwards/scs/v2/memstore"
)

// TestSessionChangeDetection: the copy taken at load tells a changed session from one that was
// only read, without encoding the values.
func TestSessionChangeDetection(t *testing.T) {
	s := &Kernel{Sessions: NewSessionManager(memstore.NewWithCleanupInterval(0), Config{})}
	cases := []struct {
		name    string
		change  func(ctx context.Context)
		changed bool
	}{
		{"nothing", func(context.Context) {}, false},
		{"only read", func(ctx context.Context) {
			_ = s.Sessions.GetString(ctx, "name")
			_ = s.Sessions.GetInt64(ctx, "number")
		}, false},
		{"same string put again", func(ctx context.Context) { s.Sessions.Put(ctx, "name", "Ada") }, false},
		{"same number put again", func(ctx context.Context) { s.Sessions.Put(ctx, "number", int64(7)) }, false},
		{"pop of a missing key", func(ctx context.Context) { _ = s.Sessions.PopString(ctx, "flash") }, false},
		{"string changed", func(ctx context.Context) { s.Sessions.Put(ctx, "name", "Alan") }, true},
		{"number changed", func(ctx context.Context) { s.Sessions.Put(ctx, "number", int64(8)) }, true},
		{"same number of another type", func(ctx context.Context) { s.Sessions.Put(ctx, "number", 7) }, true},
		{"key added", func(ctx context.Context) { s.Sessions.Put(ctx, "flash", "hello") }, true},
		{"key removed", func(ctx context.Context) { s.Sessions.Remove(ctx, "name") }, true},
		{"key popped", func(ctx context.Context) { _ = s.Sessions.PopString(ctx, "name") }, true},
		{"slice changed in place", func(ctx context.Context) {
			s.Sessions.Get(ctx, "list").([]string)[0] = "z"
		}, true},
		{"slice put again unchanged", func(ctx context.Context) { s.Sessions.Put(ctx, "list", []string{"a", "b"}) }, false},
		{"all cleared", func(ctx context.Context) { _ = s.Sessions.Clear(ctx) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, err := s.Sessions.Load(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			s.Sessions.Put(ctx, "name", "Ada")
			s.Sessions.Put(ctx, "number", int64(7))
			s.Sessions.Put(ctx, "list", []string{"a", "b"})
			loaded := s.snapshot(ctx)
			tc.change(ctx)
			if got := s.changedSince(ctx, loaded); got != tc.changed {
				t.Fatalf("changed = %v, want %v", got, tc.changed)
			}
		})
	}
}

func TestCompressible(t *testing.T) {
	cases := map[string]bool{
		"text/html; charset=UTF-8":               true,
		"text/css; charset=utf-8":                true,
		"text/javascript; charset=utf-8":         true,
		"application/javascript":                 true,
		"application/json":                       true,
		"image/svg+xml":                          true,
		"text/plain; version=0.0.4":              true,
		"text/event-stream":                      false,
		"image/png":                              false,
		"image/jpeg":                             false,
		"font/woff2":                             false,
		"application/zip":                        false,
		"application/octet-stream":               false,
		"":                                       false,
		"application/vnd.api+json; charset=utf8": true,
	}
	for ct, want := range cases {
		if got := compressible(ct); got != want {
			t.Errorf("compressible(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestMetricsMethodLabel(t *testing.T) {
	for _, tc := range []struct{ method, want string }{
		{"GET", "GET"}, {"HEAD", "HEAD"}, {"POST", "POST"}, {"PUT", "PUT"}, {"PATCH", "PATCH"},
		{"DELETE", "DELETE"}, {"OPTIONS", "OPTIONS"},
		{"FOO", "OTHER"}, {"get", "OTHER"}, {"CONNECT", "OTHER"}, {"TRACE", "OTHER"}, {"", "OTHER"},
	} {
		if got := methodLabel(tc.method); got != tc.want {
			t.Errorf("methodLabel(%q) = %q, want %q", tc.method, got, tc.want)
		}
	}
}
