package device_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/testenv"
	"github.com/cinemabff/cinemabff/migrations"
)

// liveWithReader lists the live enrolments that have reader id.
func liveWithReader(t *testing.T, st *device.Enrolments, id string) []device.Enrolment {
	t.Helper()
	list, err := st.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []device.Enrolment
	for _, e := range list {
		if e.Live() && e.ReaderID == id {
			out = append(out, e)
		}
	}
	return out
}

// TestReaderServesOneTerminal: enrolling a terminal with a card reader another terminal has
// moves the reader: the other enrolment stays live without it and says where it went, who
// moved it and when; re-enrolling the terminal that has it moves nothing. Two terminals
// enrolled with one reader at the same moment still leave it on one.
func TestReaderServesOneTerminal(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock := testclock.New(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
			st := device.NewEnrolments(db.SQL, device.EnrolmentsOptions{Now: clock.Now})
			first, err := st.Enrol(ctx, device.Spec{DeviceID: "dev-a", Name: "Counter 1", Mode: device.Counter, ReaderID: "tmr_1", By: "sue"})
			if err != nil || len(first.ReaderFrom) != 0 {
				t.Fatalf("first enrolment: %+v %v", first, err)
			}
			if e, ok, _ := st.Live(ctx, first.ID, "dev-a"); !ok || e.ReaderID != "tmr_1" {
				t.Fatalf("the first terminal before the move: %+v %v", e, ok)
			}
			clock.Advance(time.Minute)
			second, err := st.Enrol(ctx, device.Spec{DeviceID: "dev-b", Name: "Kiosk 2", Mode: device.Kiosk, ReaderID: "tmr_1", By: "tom"})
			if err != nil || len(second.ReaderFrom) != 1 || second.ReaderFrom[0].ID != first.ID || second.ReaderFrom[0].ReaderID != "tmr_1" {
				t.Fatalf("second enrolment: %+v %v", second, err)
			}
			e, ok, err := st.Live(ctx, first.ID, "dev-a")
			want := device.ReaderMove{ReaderID: "tmr_1", To: "Kiosk 2", At: clock.Now(), By: "tom"}
			if err != nil || !ok || e.ReaderID != "" || e.ReaderMove.ReaderID != want.ReaderID || e.ReaderMove.To != want.To ||
				!e.ReaderMove.At.Equal(want.At) || e.ReaderMove.By != want.By || !e.ReaderMove.Moved() {
				t.Fatalf("the first terminal after the move: %+v %v %v, want live without the reader and %+v", e, ok, err, want)
			}
			if got := liveWithReader(t, st, "tmr_1"); len(got) != 1 || got[0].ID != second.ID {
				t.Fatalf("live enrolments with the reader: %+v", got)
			}

			// The terminal that has it enrolled again: nothing to move.
			again, err := st.Enrol(ctx, device.Spec{DeviceID: "dev-b", Name: "Kiosk 2", Mode: device.Kiosk, ReaderID: "tmr_1", By: "tom"})
			if err != nil || len(again.ReaderFrom) != 0 || len(again.Replaced) != 1 {
				t.Fatalf("re-enrolment of the reader's terminal: %+v %v", again, err)
			}

			// Two terminals enrolled with one new reader at once: both saved, the reader on one.
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, dev := range []string{"dev-c", "dev-d"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = st.Enrol(ctx, device.Spec{DeviceID: dev, Name: "Counter " + dev, Mode: device.Counter, ReaderID: "tmr_9", By: "sue"})
				}()
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("concurrent enrolments: %v", errs)
			}
			if got := liveWithReader(t, st, "tmr_9"); len(got) != 1 {
				t.Fatalf("after concurrent enrolments %d live enrolments have the reader: %+v", len(got), got)
			}
		})
	}
}

// TestMigrationLeavesSharedReaderWithNewest: a database that already has one reader on
// several live enrolments (as enrolled before readers moved) keeps it on the newest; the
// others say where it went, and a revoked one is left as it was.
func TestMigrationLeavesSharedReaderWithNewest(t *testing.T) {
	for name, url := range map[string]func() string{
		"sqlite":   func() string { return "sqlite:" + filepath.Join(t.TempDir(), "test.db") },
		"postgres": func() string { return testenv.PostgresURL(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := storage.Open(ctx, url())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			sub, err := fs.Sub(migrations.FS, string(db.Dialect))
			if err != nil {
				t.Fatal(err)
			}
			dialect := goose.DialectSQLite3
			if db.Dialect == storage.Postgres {
				dialect = goose.DialectPostgres
			}
			p, err := goose.NewProvider(dialect, db.SQL, sub)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.UpTo(ctx, 24); err != nil {
				t.Fatal(err)
			}
			for i, row := range []struct {
				name    string
				revoked int64
			}{{"Counter 1", 0}, {"Old", 5}, {"Counter 2", 0}, {"Kiosk 3", 0}} {
				if _, err := db.SQL.ExecContext(ctx, `INSERT INTO device_enrolments (device_id, name, mode, enrolled_by, enrolled_at, revoked_at, reader_id)
					VALUES ($1, $2, 'counter', 'sue', $3, $4, 'tmr_1')`, "dev-"+row.name, row.name, int64(1000*(i+1)), row.revoked); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := p.Up(ctx); err != nil {
				t.Fatal(err)
			}
			list, err := device.NewEnrolments(db.SQL, device.EnrolmentsOptions{}).List(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]device.Enrolment{}
			for _, e := range list {
				got[e.Name] = e
			}
			if e := got["Kiosk 3"]; e.ReaderID != "tmr_1" || e.ReaderMove.Moved() {
				t.Errorf("the newest: %+v", e)
			}
			for _, n := range []string{"Counter 1", "Counter 2"} {
				if e := got[n]; e.ReaderID != "" || e.ReaderMove.ReaderID != "tmr_1" || e.ReaderMove.To != "Kiosk 3" || e.ReaderMove.By != "sue" || e.ReaderMove.At.UnixMilli() != 4000 {
					t.Errorf("%s: %+v", n, e)
				}
			}
			if e := got["Old"]; e.ReaderID != "tmr_1" || e.ReaderMove.Moved() {
				t.Errorf("the revoked one was changed: %+v", e)
			}
		})
	}
}
