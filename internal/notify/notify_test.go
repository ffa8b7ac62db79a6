package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/testenv"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/tickets/qrread"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func eur(c int64) cinema.Money { return cinema.Money{Cents: c, Currency: "EUR"} }

func testBooking() cinema.Booking {
	show := time.Date(2026, 11, 24, 19, 30, 0, 0, time.UTC)
	return cinema.Booking{Number: 100004, ID: "BK0186A4", CinemaID: "0001",
		Session: cinema.SessionInfo{ID: "1113", FilmTitle: "Otters of the Elbe", Showtime: show, ScreenName: "Saal 1"},
		Tickets: []cinema.BookedTicket{
			{Seq: 1, Description: "Adult", Price: eur(1250), Seat: &cinema.SeatRef{RowLabel: "C", Label: "3"}},
			{Seq: 2, Description: "Senior", Price: eur(950), Seat: &cinema.SeatRef{RowLabel: "J", Label: "11"}},
		}}
}

func composer(t *testing.T, read func(context.Context, string, int64) (cinema.Booking, error)) *Composer {
	t.Helper()
	s, err := tickets.NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return &Composer{Booking: read, Signer: s, Catalog: cat, SiteName: "Lumière", FindURL: "https://cinema.example/booking",
		Cinema: func(context.Context, string) cinema.Cinema {
			return cinema.Cinema{ID: "0001", Name: "Lumière Mitte", Locale: "de-DE", TimeZone: "Europe/Berlin", Currency: "EUR"}
		}}
}

func message(t *testing.T, n Notice) mail.Message {
	t.Helper()
	m := mail.Message{ID: "m1", Kind: string(n.Kind), To: n.To, Lang: n.Lang}
	var err error
	if m.Payload, err = jsonOf(n); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestComposeSaysWhatHappened(t *testing.T) {
	b := testBooking()
	read := func(context.Context, string, int64) (cinema.Booking, error) { return b, nil }
	base := Notice{To: "paid4@example.com", CinemaID: "0001", BookingNumber: 100004, Key: "k"}
	cases := []struct {
		name    string
		change  func(n *Notice)
		subject string
		want    []string // in both parts
		images  int
	}{
		{"purchase", func(n *Notice) {
			n.Kind, n.Total = KindPurchase, eur(2200)
			n.Lines = []Line{{Change: ChangeBought, Description: "Adult", Seat: "Row C, seat 3", Amount: eur(1250)}}
		}, "Your tickets for Otters of the Elbe: booking 100004", []string{"Row C, seat 3", "Row J, seat 11", "Total: €22.00", "20:30", "Tuesday 24 November 2026", "What you bought"}, 2},
		{"late purchase", func(n *Notice) { n.Kind = KindPurchaseLate }, "confirmed after all: booking 100004", []string{"sorry it took so long", "Row C, seat 3"}, 2},
		{"swap", func(n *Notice) {
			n.Kind = KindSwap
			n.Lines = []Line{{Change: ChangeMoved, Description: "Adult", From: "Row J, seat 10", Seat: "Row C, seat 3"}}
			n.Replaced = []changes.Ticket{{Line: 1, Description: "Adult", Seat: "Row J, seat 10"}}
		}, "New seats for booking 100004", []string{"Moved: Adult from Row J, seat 10 to Row C, seat 3", "No longer valid", "Row J, seat 10"}, 2},
		{"edit with a payment", func(n *Notice) {
			n.Kind = KindEdit
			n.Lines = []Line{{Change: ChangeAdded, Description: "Senior", Seat: "Row J, seat 11"}, {Change: ChangeKept, Description: "Adult"}}
			n.Money = []MoneyLine{{What: MoneyPaid, Amount: eur(950), Card: "VISA ****4242"}}
		}, "Booking 100004 was changed", []string{"Added: Senior (Row J, seat 11)", "Paid: €9.50", "VISA ****4242"}, 2},
		{"edit with a refund in two parts", func(n *Notice) {
			n.Kind = KindEdit
			n.Lines = []Line{{Change: ChangeRemoved, Description: "Child", Seat: "Row J, seat 12"}}
			n.Money = []MoneyLine{{What: MoneyRefunded, Amount: eur(900), Card: "PAYPAL"}, {What: MoneyRefunded, Amount: eur(50), Card: "VISA ****4242"}}
		}, "Booking 100004 was changed", []string{"Removed: Child (Row J, seat 12)", "Refunded: €9.00", "PAYPAL", "Refunded: €0.50"}, 2},
		{"payment given back", func(n *Notice) {
			n.Kind = KindRefund
			n.Money = []MoneyLine{{What: MoneyRefunded, Amount: eur(950), Card: "VISA ****4242"}}
		}, "Refund for booking 100004", []string{"could not be completed", "Refunded: €9.50"}, 2},
		{"order given up", func(n *Notice) {
			n.Kind, n.BookingNumber, n.Reference = KindOrderGivenUp, 0, "ABCD-EFGH-IJKL"
			n.Outcome, n.Policy, n.Film = "The order was cancelled upstream.", "Paid back within 5 working days.", "Otters of the Elbe"
		}, "Your order ABCD-EFGH-IJKL was not completed", []string{"The order was cancelled upstream.", "Paid back within 5 working days.", "Otters of the Elbe"}, 0},
		{"order given up and cancelled, with the default policy", func(n *Notice) {
			n.Kind, n.BookingNumber, n.Reference, n.Film = KindOrderGivenUp, 0, "ABCD-EFGH-IJKL", "Otters of the Elbe"
			n.Outcome, n.Waited = OutcomeCancelled, 24*time.Hour
		}, "Your order ABCD-EFGH-IJKL was not completed", []string{"within 24 hours", "cancelled upstream", "please contact the cinema's box office"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := base
			tc.change(&n)
			r, err := composer(t, read).Compose(context.Background(), message(t, n))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Subject, tc.subject) || r.To != n.To {
				t.Fatalf("subject %q to %q", r.Subject, r.To)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Text, w) || !strings.Contains(r.HTML, strings.ReplaceAll(w, "'", "&#39;")) {
					t.Errorf("%q missing:\n%s", w, r.Text)
				}
			}
			if len(r.Inline) != tc.images {
				t.Fatalf("%d images, want %d", len(r.Inline), tc.images)
			}
			for _, in := range r.Inline {
				if !strings.Contains(r.HTML, `src="cid:`+in.CID+`"`) {
					t.Errorf("image %s not shown by the HTML part", in.CID)
				}
				text, err := qrread.DecodePNG(in.Data)
				if err != nil || !strings.Contains(text, "booking=BK0186A4") {
					t.Errorf("image %s decodes to %q (%v)", in.CID, text, err)
				}
			}
		})
	}
}

func TestComposeErrors(t *testing.T) {
	n := Notice{Kind: KindSwap, Key: "k", To: "a@example.com", CinemaID: "0001", BookingNumber: 100004}
	cases := []struct {
		name      string
		read      error
		kind      Kind
		permanent bool
	}{
		{"booking gone: permanent", upstream.ErrNotFound, KindSwap, true},
		{"ticketing down: try again", fmt.Errorf("read: %w", upstream.ErrUnavailable), KindSwap, false},
		{"unknown kind: permanent", nil, Kind("postcard"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := composer(t, func(context.Context, string, int64) (cinema.Booking, error) { return testBooking(), tc.read })
			n.Kind = tc.kind
			_, err := c.Compose(context.Background(), message(t, n))
			if err == nil || errors.Is(err, mail.ErrPermanent) != tc.permanent {
				t.Fatalf("error %v, permanent %v", err, tc.permanent)
			}
		})
	}
	if _, err := composer(t, nil).Compose(context.Background(), mail.Message{ID: "x", Payload: []byte("{")}); !errors.Is(err, mail.ErrPermanent) {
		t.Fatalf("unreadable payload: %v", err)
	}
}

// TestWriteInTheCallersTransaction: a notice rolled back with its cause leaves no message and
// no booking change; committed, one of each, and the same key again adds nothing.
func TestWriteInTheCallersTransaction(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			n := Notice{Kind: KindSwap, Key: "swap:1", To: "paid4@example.com", CinemaID: "0001", BookingNumber: 100004,
				Replaced: []changes.Ticket{{Line: 1, Description: "Adult", Seat: "Row J, seat 10"}}}
			now := time.Now()
			tx, err := db.SQL.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Write(ctx, tx, n, now); err != nil {
				t.Fatal(err)
			}
			_ = tx.Rollback()
			out := mail.NewOutbox(db.SQL, nil)
			if _, err := out.ByKey(ctx, n.Key); !errors.Is(err, mail.ErrNotFound) {
				t.Fatalf("rolled back, yet the message is there: %v", err)
			}
			for i := range 2 {
				tx, _ := db.SQL.BeginTx(ctx, nil)
				inserted, err := Write(ctx, tx, n, now)
				if err != nil || inserted != (i == 0) {
					t.Fatalf("write %d: inserted %v, %v", i, inserted, err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			m, err := out.ByKey(ctx, n.Key)
			if err != nil || m.To != n.To || m.Kind != string(KindSwap) {
				t.Fatalf("message %+v, %v", m, err)
			}
			all, err := changes.New(db.SQL).ForBooking(ctx, "0001", 100004)
			if err != nil || len(all) != 1 || len(all[0].Replaced) != 1 {
				t.Fatalf("booking changes %+v, %v", all, err)
			}
			if _, err := Write(ctx, db.SQL, Notice{Kind: KindSwap, Key: "k2", CinemaID: "0001", BookingNumber: 1}, now); err == nil {
				t.Fatal("a notice without a recipient was written")
			}
		})
	}
}

// TestWriteAlone: a notice written in its own transaction is committed with its booking change;
// the same key again adds nothing; a notice that cannot be written leaves neither behind.
func TestWriteAlone(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			swap := Notice{Kind: KindSwap, Key: "swap:1", To: "paid4@example.com", CinemaID: "0001", BookingNumber: 100004,
				Replaced: []changes.Ticket{{Line: 1, Description: "Adult", Seat: "Row J, seat 10"}}}
			noRecipient := Notice{Kind: KindSwap, Key: "swap:2", CinemaID: "0001", BookingNumber: 100005,
				Replaced: []changes.Ticket{{Line: 1, Description: "Adult", Seat: "Row J, seat 11"}}}
			for _, tc := range []struct {
				name         string
				n            Notice
				wantInserted bool
				wantErr      bool
				wantChanges  int // the booking's recorded changes afterwards
			}{
				{"first write", swap, true, false, 1},
				{"same key again", swap, false, false, 1},
				{"no recipient", noRecipient, false, true, 0},
			} {
				inserted, err := WriteAlone(ctx, db.SQL, tc.n, time.Now())
				if inserted != tc.wantInserted || (err != nil) != tc.wantErr {
					t.Errorf("%s: inserted %v, %v", tc.name, inserted, err)
				}
				_, merr := mail.NewOutbox(db.SQL, nil).ByKey(ctx, tc.n.Key)
				if (merr == nil) != !tc.wantErr || (merr != nil && !errors.Is(merr, mail.ErrNotFound)) {
					t.Errorf("%s: outbox message: %v", tc.name, merr)
				}
				all, err := changes.New(db.SQL).ForBooking(ctx, tc.n.CinemaID, tc.n.BookingNumber)
				if err != nil || len(all) != tc.wantChanges {
					t.Errorf("%s: %d booking changes, %v; want %d", tc.name, len(all), err, tc.wantChanges)
				}
			}
		})
	}
}
