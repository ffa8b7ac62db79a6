package tickets_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// newCollections is a collections store on a migrated SQLite database of its own.
func newCollections(t *testing.T) *tickets.Collections {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "tickets.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return tickets.NewCollections(db.SQL)
}

// TestCollections: Latest is the most recent printing of that booking (not another booking's,
// not another cinema's), with where it happened; Count counts that booking's only; a booking
// never printed has no latest and a count of 0.
func TestCollections(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 14, 0, 0, time.UTC)
	kiosk := tickets.Collection{CinemaID: "0001", BookingNumber: 100002, DeviceID: "k1", DeviceName: "Kiosk 1", At: t0}
	box := tickets.Collection{CinemaID: "0001", BookingNumber: 100002, DeviceID: "c1", DeviceName: "Counter 1", Actor: "anna", At: t0.Add(5 * time.Minute)}
	for _, tc := range []struct {
		name       string
		record     []tickets.Collection
		cinema     string
		number     int64
		wantDevice string // "" for ErrNoCollection
		wantActor  string
		wantAt     time.Time
		wantCount  int
	}{
		{name: "never printed", cinema: "0001", number: 100002},
		{name: "printed once", record: []tickets.Collection{kiosk}, cinema: "0001", number: 100002,
			wantDevice: "k1", wantAt: t0, wantCount: 1},
		{name: "printed again at the box office", record: []tickets.Collection{kiosk, box}, cinema: "0001", number: 100002,
			wantDevice: "c1", wantActor: "anna", wantAt: box.At, wantCount: 2},
		{name: "recorded out of order", record: []tickets.Collection{box, kiosk}, cinema: "0001", number: 100002,
			wantDevice: "c1", wantActor: "anna", wantAt: box.At, wantCount: 2},
		{name: "another booking", record: []tickets.Collection{kiosk}, cinema: "0001", number: 100003},
		{name: "another cinema", record: []tickets.Collection{kiosk}, cinema: "0002", number: 100002},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := newCollections(t)
			ids := map[string]bool{}
			for _, r := range tc.record {
				got, err := s.Record(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				if got.ID == "" || ids[got.ID] {
					t.Fatalf("recorded with id %q (seen before: %v)", got.ID, ids[got.ID])
				}
				ids[got.ID] = true
			}
			latest, err := s.Latest(ctx, tc.cinema, tc.number)
			switch {
			case tc.wantDevice == "":
				if !errors.Is(err, tickets.ErrNoCollection) {
					t.Errorf("latest %+v, %v; want ErrNoCollection", latest, err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if latest.DeviceID != tc.wantDevice || latest.Actor != tc.wantActor || !latest.At.Equal(tc.wantAt) ||
					latest.CinemaID != tc.cinema || latest.BookingNumber != tc.number || !ids[latest.ID] {
					t.Errorf("latest %+v, want device %q actor %q at %v", latest, tc.wantDevice, tc.wantActor, tc.wantAt)
				}
			}
			if n, err := s.Count(ctx, tc.cinema, tc.number); err != nil || n != tc.wantCount {
				t.Errorf("count %d, %v; want %d", n, err, tc.wantCount)
			}
		})
	}
}
