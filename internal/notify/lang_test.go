package notify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// editIn is an edit notice as a visit in lang writes it: the line's seat in its words.
func editIn(lang, seat string) Notice {
	return Notice{Kind: KindEdit, Key: "edit:" + lang, To: "ada@example.com", Name: "Ada", Lang: lang, CinemaID: "0001", BookingNumber: 100004,
		Lines:    []Line{{Change: ChangeAdded, Description: "Senior", Seat: seat}},
		Money:    []MoneyLine{{What: MoneyPaid, Amount: eur(950), Card: "VISA ****4242"}},
		OldTotal: eur(1250), NewTotal: eur(2200),
		Replaced: []changes.Ticket{{Line: 1, Description: "Adult", Seat: seat}}}
}

func containsAll(t *testing.T, part, got string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("the %s lacks %q:\n%s", part, w, got)
		}
	}
}

func containsNone(t *testing.T, part, got string, unwanted []string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("the %s has %q, of the other language:\n%s", part, w, got)
		}
	}
}

// TestComposeInTheBookingsLanguage: a German booking change is written in German (subject,
// text and HTML; money and dates the German way, in the cinema's time zone; "9,50\u00a0€" has a
// no-break space), an English one in English, whatever the context the sender composes in.
func TestComposeInTheBookingsLanguage(t *testing.T) {
	b := testBooking() // 19:30 UTC: 20:30 in Berlin
	c := composer(t, func(context.Context, string, int64) (cinema.Booking, error) { return b, nil })
	cases := []struct {
		lang, seat, subject string
		both, html          []string
		not                 []string
	}{
		{"de", "Reihe J, Platz 11", "Buchung 100004 wurde geändert: Ihre neuen Tickets",
			[]string{"Buchung 100004 wurde geändert", "Guten Tag Ada,", "Ihre Buchung wurde geändert.", "Dienstag, 24. November 2026, 20:30 Uhr",
				"Was sich geändert hat", "Hinzugefügt: Senior (Reihe J, Platz 11)", "Gesamtbetrag vorher: 12,50\u00a0€. Gesamtbetrag jetzt: 22,00\u00a0€.",
				"Zahlung", "Bezahlt: 9,50\u00a0€ (VISA ****4242)", "Reihe C, Platz 3", "Dienstag, 24. November", "12,50\u00a0€",
				"Nicht mehr gültig", "Diese Tickets wurden ersetzt", "Buchung 100004 online ansehen oder ändern", "Diese Nachricht wurde an ada@example.com gesendet."},
			[]string{`<html lang="de">`, "Ihre Tickets", `alt="QR-Code für Reihe C, Platz 3"`},
			[]string{"Booking", "Hello", "Row ", "Paid", "€9.50", "Tuesday", "Your tickets", "No longer valid", "changed"}},
		{"en", "Row J, seat 11", "Booking 100004 was changed: your new tickets",
			[]string{"Booking 100004 was changed", "Hello Ada,", "Your booking was changed.", "Tuesday 24 November 2026, 20:30",
				"What changed", "Added: Senior (Row J, seat 11)", "Total before: €12.50. Total now: €22.00.",
				"Money", "Paid: €9.50 (VISA ****4242)", "Row C, seat 3", "€12.50",
				"No longer valid", "These tickets were replaced", "See or change booking 100004 online", "This message was sent to ada@example.com."},
			[]string{`<html lang="en">`, "Your tickets", `alt="QR code for Row C, seat 3"`},
			[]string{"Buchung", "Guten Tag", "Reihe", "Bezahlt", "9,50\u00a0€", "Dienstag", "Ihre Tickets", "Nicht mehr gültig"}},
	}
	for _, tc := range cases {
		t.Run(tc.lang, func(t *testing.T) {
			r, err := c.Compose(context.Background(), message(t, editIn(tc.lang, tc.seat)))
			if err != nil {
				t.Fatal(err)
			}
			if r.Subject != tc.subject || r.Lang != tc.lang {
				t.Fatalf("subject %q in %q, want %q in %q", r.Subject, r.Lang, tc.subject, tc.lang)
			}
			containsAll(t, "text part", r.Text, tc.both)
			containsAll(t, "HTML part", r.HTML, append(tc.both, tc.html...))
			containsNone(t, "text part", r.Subject+"\n"+r.Text, tc.not)
			containsNone(t, "HTML part", r.HTML, tc.not)
		})
	}
}

// TestComposeWithoutALanguage: a notice from before languages were kept is written in the
// catalog's fallback, English.
func TestComposeWithoutALanguage(t *testing.T) {
	b := testBooking()
	c := composer(t, func(context.Context, string, int64) (cinema.Booking, error) { return b, nil })
	r, err := c.Compose(context.Background(), message(t, editIn("", "Row J, seat 11")))
	if err != nil || r.Subject != "Booking 100004 was changed: your new tickets" || !strings.Contains(r.HTML, `<html lang="en">`) {
		t.Fatalf("subject %q, %v", r.Subject, err)
	}
	c.Catalog = nil
	if _, err := c.Compose(context.Background(), message(t, editIn("de", "Reihe J, Platz 11"))); err == nil {
		t.Fatal("composed without a catalog")
	}
}

// TestQueuedInGermanSentLaterStaysGerman: notices written to the outbox by a German and an
// English visit, then delivered by a background sender (no request, no language of its own),
// arrive each in its own language.
func TestQueuedInGermanSentLaterStaysGerman(t *testing.T) {
	for name, db := range testenv.MigratedDatabases(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := testBooking()
			c := composer(t, func(context.Context, string, int64) (cinema.Booking, error) { return b, nil })
			now := time.Now()
			refund := Notice{Kind: KindRefund, Key: "refund:de", To: "ada@example.com", Lang: "de", CinemaID: "0001", BookingNumber: 100004,
				Money: []MoneyLine{{What: MoneyRefunded, Amount: eur(950), Card: "VISA ****4242"}}}
			tx, err := db.SQL.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []Notice{editIn("de", "Reihe J, Platz 11"), refund, editIn("en", "Row J, seat 11")} {
				if _, err := Write(ctx, tx, n, now); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			out := mail.NewOutbox(db.SQL, nil)
			if m, err := out.ByKey(ctx, "edit:de"); err != nil || m.Lang != "de" {
				t.Fatalf("the outbox keeps the message in %q (%v)", m.Lang, err)
			}

			dir := t.TempDir()
			s := &mail.Sender{Outbox: out, Compose: c.Compose, Transport: mail.NewDir(dir), From: "Kino <karten@kino.example>"}
			if n, err := s.RunOnce(ctx); err != nil || n != 3 {
				t.Fatalf("delivered %d, %v", n, err)
			}
			list, err := mail.ListDir(dir)
			if err != nil || len(list) != 3 {
				t.Fatalf("%d messages, %v", len(list), err)
			}
			got := map[string]mail.StoredMessage{}
			for _, st := range list {
				m, err := mail.ReadStored(dir, st.Name)
				if err != nil {
					t.Fatal(err)
				}
				got[m.Subject] = m
			}
			de, ok := got["Buchung 100004 wurde geändert: Ihre neuen Tickets"]
			if !ok {
				t.Fatalf("no German edit message among %v", keys(got))
			}
			containsAll(t, "German text part", de.Text, []string{"Guten Tag Ada,", "Bezahlt: 9,50\u00a0€", "Reihe C, Platz 3", "Dienstag, 24. November 2026, 20:30 Uhr"})
			containsAll(t, "German HTML part", de.HTML, []string{`<html lang="de">`, "Ihre Tickets"})
			containsNone(t, "German text part", de.Text, []string{"Hello", "Paid", "Row ", "Booking"})
			rf, ok := got["Erstattung für Buchung 100004"]
			if !ok {
				t.Fatalf("no German refund message among %v", keys(got))
			}
			containsAll(t, "German refund", rf.Text, []string{"Guten Tag,", "Erstattet: 9,50\u00a0€ auf Ihr Zahlungsmittel (VISA ****4242).", "5 bis 10 Werktagen"})
			en, ok := got["Booking 100004 was changed: your new tickets"]
			if !ok {
				t.Fatalf("no English edit message among %v", keys(got))
			}
			containsAll(t, "English text part", en.Text, []string{"Hello Ada,", "Paid: €9.50", "Row C, seat 3"})
			containsNone(t, "English text part", en.Text, []string{"Guten Tag", "Bezahlt", "Reihe"})
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
