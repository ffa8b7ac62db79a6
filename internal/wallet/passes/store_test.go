package passes_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

const passType = "pass.com.example.cinema"

var testKey = []byte("0123456789abcdef0123456789abcdef")

// eachDatabase runs f on a migrated SQLite database always, and on a fresh PostgreSQL schema
// when PostgreSQL is there (testenv's rules: skipped loudly here, required in CI).
func eachDatabase(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for _, d := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "wallet.db") }},
		{"postgres", func(t *testing.T) string { return testenv.PostgresURL(t) }},
	} {
		t.Run(d.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := storage.Open(ctx, d.url(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			f(t, db.SQL)
		})
	}
}

func newStore(t *testing.T, db *sql.DB) *passes.Store {
	t.Helper()
	s, err := passes.NewStore(db, testKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewStoreWantsALongKey(t *testing.T) {
	if _, err := passes.NewStore(nil, []byte("short")); err == nil {
		t.Fatal("NewStore accepted a 5-byte key")
	}
}

// TestEnsureAndAuthenticate: a booking gets one pass per type however often (and however
// concurrently) it is asked for, with a token that rebuilds the same; only that token
// authenticates, and it keeps authenticating after the token key changes.
func TestEnsureAndAuthenticate(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		first, err := s.Ensure(ctx, passType, "0001", 100002)
		if err != nil {
			t.Fatal(err)
		}
		if !first.Created || len(first.Token) < 16 || first.Serial == "" || first.CinemaID != "0001" || first.BookingNumber != 100002 {
			t.Fatalf("first Ensure = %+v", first)
		}
		var wg sync.WaitGroup
		again := make([]passes.Issued, 5)
		errs := make([]error, 5)
		for i := range again {
			wg.Go(func() { again[i], errs[i] = s.Ensure(ctx, passType, "0001", 100002) })
		}
		wg.Wait()
		for i := range again {
			if errs[i] != nil || again[i].Created || again[i].Serial != first.Serial || again[i].Token != first.Token {
				t.Fatalf("Ensure again = %+v, %v; want serial %s not created", again[i], errs[i], first.Serial)
			}
		}
		other, err := s.Ensure(ctx, passType, "0001", 100003)
		if err != nil || other.Serial == first.Serial || other.Token == first.Token {
			t.Fatalf("another booking's pass = %+v, %v", other, err)
		}
		if got := s.Token(passType, first.Serial); got != first.Token {
			t.Fatalf("Token = %q, want the issued %q", got, first.Token)
		}
		rekeyed, err := passes.NewStore(db, []byte("another key, quite long enough!!!"))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name                  string
			store                 *passes.Store
			passType, serial, tok string
			want                  error
		}{
			{"right token", s, passType, first.Serial, first.Token, nil},
			{"right token, key changed since", rekeyed, passType, first.Serial, first.Token, nil},
			{"another pass's token", s, passType, first.Serial, other.Token, passes.ErrUnauthorized},
			{"empty token", s, passType, first.Serial, "", passes.ErrUnauthorized},
			{"unknown serial", s, passType, "nope", first.Token, passes.ErrUnknownPass},
			{"other pass type", s, "pass.other", first.Serial, first.Token, passes.ErrUnknownPass},
		} {
			if err := tc.store.Authenticate(ctx, tc.passType, tc.serial, tc.tok); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("%s: Authenticate = %v, want %v", tc.name, err, tc.want)
			}
		}
	})
}

// TestRegistrationsFollowChanges walks one device through Apple's protocol: register (created,
// then not), list updated serials, a Touch of its booking lists the pass again while another
// booking's Touch does not, a voided pass is listed once more and then ignored by Touch, and
// unregistering empties the list.
func TestRegistrationsFollowChanges(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		p, err := s.Ensure(ctx, passType, "0001", 100002)
		if err != nil {
			t.Fatal(err)
		}
		q, err := s.Ensure(ctx, passType, "0001", 100003)
		if err != nil {
			t.Fatal(err)
		}
		const dev, tok1, tok2 = "device-1", "aaaa1111", "bbbb2222"
		for i, want := range []bool{true, false} {
			created, err := s.Register(ctx, dev, []string{tok1, tok2}[i], passType, p.Serial)
			if err != nil || created != want {
				t.Fatalf("Register #%d = %v, %v; want %v", i+1, created, err, want)
			}
		}
		if created, err := s.Register(ctx, dev, tok2, passType, q.Serial); err != nil || !created {
			t.Fatalf("Register for the second pass = %v, %v", created, err)
		}
		if _, err := s.Register(ctx, dev, tok2, passType, "no-such-serial"); err == nil {
			t.Fatal("Register for an unknown pass succeeded")
		}

		serials, tag, err := s.SerialsUpdatedSince(ctx, dev, passType, "")
		if err != nil || !sameSet(serials, p.Serial, q.Serial) || tag == "" {
			t.Fatalf("all serials = %v, %q, %v", serials, tag, err)
		}
		expect := func(step, since string, want ...string) string {
			t.Helper()
			got, next, err := s.SerialsUpdatedSince(ctx, dev, passType, since)
			if err != nil || !sameSet(got, want...) {
				t.Fatalf("%s: serials since %q = %v, %v; want %v", step, since, got, err, want)
			}
			if len(want) == 0 && next != since {
				t.Fatalf("%s: nothing new, but the tag moved from %q to %q", step, since, next)
			}
			return next
		}
		tag = expect("nothing changed", tag)
		expect("garbage tag means everything", "x9", p.Serial, q.Serial)
		if got, _, err := s.SerialsUpdatedSince(ctx, dev, "pass.other", ""); err != nil || len(got) != 0 {
			t.Fatalf("another pass type's serials = %v, %v", got, err)
		}
		before, _ := s.LastModified(ctx, passType, p.Serial)

		tokens, err := s.Touch(ctx, "0001", 100002, time.Now())
		if err != nil || !slices.Equal(tokens, []string{tok2}) {
			t.Fatalf("Touch = %v, %v; want the device's current token only", tokens, err)
		}
		after, _ := s.LastModified(ctx, passType, p.Serial)
		if !after.After(before) {
			t.Fatalf("LastModified %v did not move on from %v", after, before)
		}
		tag = expect("after the booking changed", tag, p.Serial)
		tag = expect("asked again", tag)
		if tokens, err := s.Touch(ctx, "0002", 100002, time.Now()); err != nil || len(tokens) != 0 {
			t.Fatalf("Touch of a booking without passes = %v, %v", tokens, err)
		}
		tag = expect("another cinema's booking changed", tag)

		if tokens, err := s.Void(ctx, passType, q.Serial); err != nil || !slices.Equal(tokens, []string{tok2}) {
			t.Fatalf("Void = %v, %v", tokens, err)
		}
		if got, _ := s.Lookup(ctx, passType, q.Serial); !got.Voided {
			t.Fatal("voided pass not voided")
		}
		tag = expect("after the void", tag, q.Serial)
		if tokens, err := s.Touch(ctx, "0001", 100003, time.Now()); err != nil || len(tokens) != 0 {
			t.Fatalf("Touch of a voided pass = %v, %v", tokens, err)
		}
		expect("voided pass touched", tag)
		if _, err := s.Void(ctx, passType, "no-such-serial"); !errors.Is(err, passes.ErrUnknownPass) {
			t.Fatalf("Void of an unknown pass = %v", err)
		}

		if err := s.Unregister(ctx, dev, passType, p.Serial); err != nil {
			t.Fatal(err)
		}
		if err := s.Unregister(ctx, dev, passType, p.Serial); err != nil {
			t.Fatalf("second Unregister: %v", err)
		}
		expect("after unregistering one", "", q.Serial)
		if n, err := s.ForgetPushToken(ctx, tok2); err != nil || n != 1 {
			t.Fatalf("ForgetPushToken = %d, %v", n, err)
		}
		expect("after forgetting the token", "")
	})
}

// TestLastModifiedMovesByWholeSeconds: HTTP dates carry seconds, so two changes within one
// second must still give two different Last-Modified values.
func TestLastModifiedMovesByWholeSeconds(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		at := time.Date(2026, 11, 28, 3, 0, 0, 400e6, time.UTC)
		s.SetClock(func() time.Time { return at })
		p, err := s.Ensure(ctx, passType, "0001", 100002)
		if err != nil {
			t.Fatal(err)
		}
		last, _ := s.LastModified(ctx, passType, p.Serial)
		if !last.Equal(at.Truncate(time.Second)) {
			t.Fatalf("LastModified = %v, want %v", last, at.Truncate(time.Second))
		}
		for i := range 3 {
			if _, err := s.Touch(ctx, "0001", 100002, at); err != nil {
				t.Fatal(err)
			}
			now, err := s.LastModified(ctx, passType, p.Serial)
			if err != nil || now.Sub(last) != time.Second {
				t.Fatalf("touch %d: LastModified %v after %v (%v), want one second on", i+1, now, last, err)
			}
			last = now
		}
		later := at.Add(time.Hour)
		if _, err := s.Touch(ctx, "0001", 100002, later); err != nil {
			t.Fatal(err)
		}
		if now, _ := s.LastModified(ctx, passType, p.Serial); !now.Equal(later.Truncate(time.Second)) {
			t.Fatalf("LastModified = %v, want %v", now, later.Truncate(time.Second))
		}
		if _, err := s.LastModified(ctx, passType, "nope"); !errors.Is(err, passes.ErrUnknownPass) {
			t.Fatalf("LastModified of an unknown pass = %v", err)
		}
	})
}

func sameSet(got []string, want ...string) bool {
	return len(got) == len(want) && !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(got, w) })
}
