package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/storage"
)

// demoStore is a staff store on a fresh SQLite database hashing with the default parameters
// (64 MiB per hash), as `go run ./cmd/web` does.
func demoStore(tb testing.TB) *staffaccounts.Store {
	tb.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(tb.TempDir(), "cinema.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		tb.Fatal(err)
	}
	return staffaccounts.New(db.SQL).WithParams(staffaccounts.DefaultParams)
}

// TestDemoHashesMatchThePublishedSecrets: the precomputed hashes of the demo accounts are
// those of the passwords and PIN the start banner publishes.
func TestDemoHashesMatchThePublishedSecrets(t *testing.T) {
	ctx := context.Background()
	st := demoStore(t)
	if err := applyDemoAccounts(ctx, st, true, slog.New(slog.DiscardHandler), io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ user, password string }{
		{demoStaffUser, demoStaffPassword},
		{demoSupervisorUser, demoSupervisorPassword},
	} {
		if _, err := st.Authenticate(ctx, tc.user, tc.password, "127.0.0.1"); err != nil {
			t.Errorf("sign in as %s with the published password: %v", tc.user, err)
		}
	}
	if _, err := st.Approve(ctx, demoSupervisorUser, demoSupervisorPIN); err != nil {
		t.Errorf("approve as %s with the published PIN: %v", demoSupervisorUser, err)
	}
	// The published PIN is a new PIN's length: no warning to replace it.
	if a, err := st.Get(ctx, demoSupervisorUser); err != nil || a.ShortPIN() {
		t.Errorf("demo supervisor: %+v, %v (its PIN reported short)", a, err)
	}
}

// TestDemoSeedingDoesNotHash: creating the demo accounts at start computes no argon2id hash.
// One hash with the default parameters allocates 64 MiB, so three (two passwords and a PIN)
// allocated 192 MiB and took about 130 ms; the precomputed hashes allocate almost nothing.
func TestDemoSeedingDoesNotHash(t *testing.T) {
	st := demoStore(t)
	allocated := allocatedDuring(func() {
		if err := applyDemoAccounts(context.Background(), st, true, slog.New(slog.DiscardHandler), io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if limit := uint64(staffaccounts.DefaultParams.Memory) << 10 / 4; allocated > limit {
		t.Fatalf("seeding the demo accounts allocated %d MiB (one argon2id hash is %d MiB): it hashes at start",
			allocated>>20, staffaccounts.DefaultParams.Memory>>10)
	}
}

// BenchmarkApplyDemoAccounts: the demo accounts' part of start-up (go test -bench
// ApplyDemoAccounts ./cmd/web); B/op shows no 64 MiB argon2id hash is made.
func BenchmarkApplyDemoAccounts(b *testing.B) {
	st := demoStore(b)
	logger := slog.New(slog.DiscardHandler)
	b.ReportAllocs()
	for b.Loop() {
		if err := applyDemoAccounts(context.Background(), st, true, logger, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// allocatedDuring is how many bytes the process allocated while f ran.
func allocatedDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
