package passes_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/wallet/apns"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

var _ passes.Pusher = (*apns.Client)(nil)

// pushStandIn is the APNs Recorder over unencrypted HTTP/2 and a client speaking to it.
func pushStandIn(t *testing.T) (*apns.Recorder, *apns.Client) {
	t.Helper()
	rec := apns.NewRecorder()
	url, stop, err := rec.Serve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return rec, &apns.Client{Endpoint: url, Topic: passType, MaxAttempts: 2, Backoff: time.Millisecond}
}

// TestNotifierChanged: after a booking change the device's updated serials include the pass
// and APNs got exactly one push for the device's token (none for a device of another booking);
// a 410 unregisters the device; a push that keeps failing is returned, not swallowed.
func TestNotifierChanged(t *testing.T) {
	const (
		devA, tokA = "device-a", "a1a1a1a1a1a1"
		devB, tokB = "device-b", "b2b2b2b2b2b2"
	)
	for _, tc := range []struct {
		name           string
		fail           func(rec *apns.Recorder)
		wantErr        bool
		wantPushes     int  // delivered to tokA
		wantRegistered bool // devA still registered afterwards
	}{
		{name: "delivered", wantPushes: 1, wantRegistered: true},
		{name: "503 once, retried", fail: func(r *apns.Recorder) { r.FailNext(1, 503, "ServiceUnavailable") }, wantPushes: 1, wantRegistered: true},
		{name: "410 unregisters the device", fail: func(r *apns.Recorder) { r.FailNext(1, 410, "Unregistered") }},
		{name: "503 for good is an error", fail: func(r *apns.Recorder) { r.FailNext(2, 503, "ServiceUnavailable") }, wantErr: true, wantRegistered: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDatabase(t, func(t *testing.T, db *sql.DB) {
				ctx := context.Background()
				s := newStore(t, db)
				rec, client := pushStandIn(t)
				p, err := s.Ensure(ctx, passType, "0001", 100002)
				if err != nil {
					t.Fatal(err)
				}
				other, err := s.Ensure(ctx, passType, "0001", 100003)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.Register(ctx, devA, tokA, passType, p.Serial); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Register(ctx, devB, tokB, passType, other.Serial); err != nil {
					t.Fatal(err)
				}
				_, tag, err := s.SerialsUpdatedSince(ctx, devA, passType, "")
				if err != nil {
					t.Fatal(err)
				}
				if tc.fail != nil {
					tc.fail(rec)
				}
				n := &passes.Notifier{Store: s, Pusher: client, Logger: slog.New(slog.DiscardHandler)}
				err = n.Changed(ctx, "0001", 100002)
				if (err != nil) != tc.wantErr {
					t.Fatalf("Changed = %v, want error %v", err, tc.wantErr)
				}
				if got := len(rec.PushesFor(tokA)); got != tc.wantPushes {
					t.Errorf("%d pushes for the device, want %d", got, tc.wantPushes)
				}
				if got := len(rec.PushesFor(tokB)); got != 0 {
					t.Errorf("%d pushes for another booking's device", got)
				}
				serials, _, err := s.SerialsUpdatedSince(ctx, devA, passType, tag)
				if err != nil {
					t.Fatal(err)
				}
				if registered := slices.Contains(serials, p.Serial); registered != tc.wantRegistered {
					t.Errorf("updated serials %v; device registered = %v, want %v", serials, registered, tc.wantRegistered)
				}
			})
		})
	}
}

// TestNotifierVoided: voiding a pass pushes to its device; voiding an unknown one is an error.
func TestNotifierVoided(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		rec, client := pushStandIn(t)
		p, err := s.Ensure(ctx, passType, "0001", 100002)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Register(ctx, "device-a", "a1a1a1a1", passType, p.Serial); err != nil {
			t.Fatal(err)
		}
		n := &passes.Notifier{Store: s, Pusher: client, Logger: slog.New(slog.DiscardHandler)}
		if err := n.Voided(ctx, passType, p.Serial); err != nil {
			t.Fatal(err)
		}
		if got := len(rec.PushesFor("a1a1a1a1")); got != 1 {
			t.Fatalf("%d pushes, want 1", got)
		}
		if err := n.Voided(ctx, passType, "nope"); !errors.Is(err, passes.ErrUnknownPass) {
			t.Fatalf("Voided(unknown) = %v", err)
		}
	})
}
