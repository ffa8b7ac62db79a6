package boxoffice_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

func TestRecord(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC)
	first := boxoffice.Payment{Reference: "TERM-0001", Tender: boxoffice.TenderTerminal, AmountCents: 1325, Currency: "EUR",
		CinemaID: "0001", BookingNumber: 100006, Owner: "edit-counter:a:1325", Actor: "anna", At: t0}
	tests := []struct {
		name    string
		again   boxoffice.Payment
		wantErr error
	}{
		{"the same payment recorded again (a repeated press)", first, nil},
		{"the reference for another payment", withOwner(first, "edit-counter:b:1325"), boxoffice.ErrReferenceUsed},
		{"the reference typed in another case and with spaces", withRef(withOwner(first, "sale:x"), "  term-0001 "), boxoffice.ErrReferenceUsed},
		{"another reference", withRef(withOwner(first, "edit-counter:b:1325"), "TERM-0002"), nil},
		{"no reference", withRef(first, " "), boxoffice.ErrInvalid},
		{"no tender", boxoffice.Payment{Reference: "X", Owner: "o", Actor: "a"}, boxoffice.ErrInvalid},
	}
	for dialect, db := range testenv.MigratedDatabases(t) {
		for _, tt := range tests {
			t.Run(dialect+"/"+tt.name, func(t *testing.T) {
				r := boxoffice.New(db.SQL)
				ctx := context.Background()
				if _, err := r.Record(ctx, first); err != nil && !errors.Is(err, boxoffice.ErrReferenceUsed) {
					t.Fatal(err)
				}
				got, err := r.Record(ctx, tt.again)
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				var used *boxoffice.UsedError
				if errors.As(err, &used) && used.Earlier.Owner != first.Owner {
					t.Errorf("refused for %q, want the earlier payment's owner %q", used.Earlier.Owner, first.Owner)
				}
				if tt.wantErr == nil && got.Owner != tt.again.Owner {
					t.Errorf("recorded for %q, want %q", got.Owner, tt.again.Owner)
				}
			})
		}
	}
}

func withOwner(p boxoffice.Payment, owner string) boxoffice.Payment { p.Owner = owner; return p }
func withRef(p boxoffice.Payment, ref string) boxoffice.Payment     { p.Reference = ref; return p }

// TestOneReferenceOneWinner: two counters recording one reference at the same moment for two
// payments: exactly one is recorded.
func TestOneReferenceOneWinner(t *testing.T) {
	for dialect, db := range testenv.MigratedDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			r := boxoffice.New(db.SQL)
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i := range errs {
				wg.Go(func() {
					_, errs[i] = r.Record(context.Background(), boxoffice.Payment{Reference: "TERM-RACE", Tender: boxoffice.TenderTerminal,
						AmountCents: 500, Currency: "EUR", CinemaID: "0001", Owner: "sale:" + string(rune('a'+i)), Actor: "anna"})
				})
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, boxoffice.ErrReferenceUsed):
					t.Errorf("unexpected error: %v", err)
				}
			}
			if won != 1 {
				t.Errorf("%d payments recorded under one reference, want 1", won)
			}
		})
	}
}

// TestForBooking: a booking's box office payments, a sale's once its booking is set; another
// booking's are not among them.
func TestForBooking(t *testing.T) {
	for dialect, db := range testenv.MigratedDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			r := boxoffice.New(db.SQL)
			ctx := context.Background()
			t0 := time.Date(2026, 11, 27, 19, 0, 0, 0, time.UTC)
			for i, p := range []boxoffice.Payment{
				{Reference: "CASH-1", Tender: boxoffice.TenderCash, AmountCents: 900, Currency: "EUR", CinemaID: "0001", BookingNumber: 100017, Owner: "e1", Actor: "anna"},
				{Reference: "TERM-9", Tender: boxoffice.TenderTerminal, AmountCents: 1325, Currency: "EUR", CinemaID: "0001", Owner: "sale:o", Actor: "anna"},
				{Reference: "TERM-8", Tender: boxoffice.TenderTerminal, AmountCents: 700, Currency: "EUR", CinemaID: "0001", BookingNumber: 100003, Owner: "e2", Actor: "ben"},
			} {
				p.At = t0.Add(time.Duration(i) * time.Minute)
				if _, err := r.Record(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.SetBooking(ctx, "term-9", "0001", 100017); err != nil {
				t.Fatal(err)
			}
			got, err := r.ForBooking(ctx, "0001", 100017)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].Reference != "CASH-1" || got[1].Reference != "TERM-9" || got[0].Tender != boxoffice.TenderCash {
				t.Errorf("payments of 100017: %+v", got)
			}
		})
	}
}

// TestSoldHere: a booking is sold here when a sale's payment was taken for it; a payment for a
// change to a booking does not make it one.
func TestSoldHere(t *testing.T) {
	at := time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)
	sale := boxoffice.Payment{Reference: "CASH-1", Tender: boxoffice.TenderCash, AmountCents: 2650, Currency: "EUR",
		CinemaID: "0001", BookingNumber: 100010, Owner: boxoffice.SaleOwner("order-1"), Actor: "anna", At: at}
	change := withRef(withOwner(sale, "edit-counter:b:1325"), "CASH-2")
	change.BookingNumber = 100011
	tests := []struct {
		cinema string
		number int64
		want   bool
	}{
		{"0001", 100010, true},  // the sale's booking
		{"0001", 100011, false}, // a change paid at the counter
		{"0001", 100012, false}, // nothing taken for it
		{"0002", 100010, false}, // the same number at another cinema
	}
	for dialect, db := range testenv.MigratedDatabases(t) {
		r := boxoffice.New(db.SQL)
		ctx := context.Background()
		for _, p := range []boxoffice.Payment{sale, change} {
			if _, err := r.Record(ctx, p); err != nil {
				t.Fatalf("%s: record %s: %v", dialect, p.Reference, err)
			}
		}
		for _, tt := range tests {
			if got, err := r.SoldHere(ctx, tt.cinema, tt.number); err != nil || got != tt.want {
				t.Errorf("%s: SoldHere(%s, %d) = %v, %v; want %v", dialect, tt.cinema, tt.number, got, err, tt.want)
			}
		}
	}
}
