package mail

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/testenv"
)

func TestOutbox(t *testing.T) {
	for dialect, db := range testenv.MigratedDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			clk := newClock()
			o := NewOutbox(db.SQL, clk.Now)

			t.Run("enqueue in a rolled back transaction leaves nothing", func(t *testing.T) {
				tx, err := db.SQL.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				id, inserted, err := Enqueue(ctx, tx, Message{Key: "rolled-back", Kind: "booking_confirmed", To: "ann@example.org"}, clk.Now())
				if err != nil || !inserted || id == "" {
					t.Fatalf("Enqueue = %q, %v, %v", id, inserted, err)
				}
				if err := tx.Rollback(); err != nil {
					t.Fatal(err)
				}
				if _, err := o.ByKey(ctx, "rolled-back"); !errors.Is(err, ErrNotFound) {
					t.Fatalf("ByKey after rollback: err = %v, want ErrNotFound", err)
				}
				if _, err := o.Get(ctx, id); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Get after rollback: err = %v, want ErrNotFound", err)
				}
			})

			var committed string
			t.Run("a committed enqueue is visible, pending and due now", func(t *testing.T) {
				tx, err := db.SQL.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				id, inserted, err := Enqueue(ctx, tx, Message{Key: "booking-1/confirmed", Kind: "booking_confirmed",
					To: "Ann <ann@example.org>", Lang: "de", Payload: []byte(`{"booking":1}`)}, clk.Now())
				if err != nil || !inserted {
					t.Fatalf("Enqueue = %q, %v, %v", id, inserted, err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				m, err := o.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				committed = id
				if m.State != StatePending || m.Attempts != 0 || m.Key != "booking-1/confirmed" || m.Kind != "booking_confirmed" ||
					m.To != "Ann <ann@example.org>" || m.Lang != "de" || string(m.Payload) != `{"booking":1}` {
					t.Errorf("stored message = %+v", m)
				}
				if !m.NextAt.Equal(clk.Now()) || !m.CreatedAt.Equal(clk.Now()) || !m.SentAt.IsZero() {
					t.Errorf("times: next %v created %v sent %v, want next = created = %v, sent zero", m.NextAt, m.CreatedAt, m.SentAt, clk.Now())
				}
				if !validMessageID(m.MessageID) || !strings.HasSuffix(m.MessageID, "@"+DefaultMessageIDDomain+">") {
					t.Errorf("MessageID = %q, want <…@%s>", m.MessageID, DefaultMessageIDDomain)
				}
			})

			t.Run("the same key twice makes one message", func(t *testing.T) {
				clk.Advance(time.Second)
				id, inserted, err := Enqueue(ctx, db.SQL, Message{Key: "booking-1/confirmed", Kind: "other", To: "bob@example.org"}, clk.Now())
				if err != nil || inserted || id != "" {
					t.Fatalf("second Enqueue = %q, %v, %v; want \"\", false, nil", id, inserted, err)
				}
				id, inserted, err = o.Enqueue(ctx, Message{Key: "booking-1/confirmed", Kind: "other", To: "bob@example.org"})
				if err != nil || inserted || id != committed {
					t.Fatalf("Outbox.Enqueue of a taken key = %q, %v, %v; want %q, false, nil", id, inserted, err, committed)
				}
				m, err := o.ByKey(ctx, "booking-1/confirmed")
				if err != nil {
					t.Fatal(err)
				}
				if m.ID != committed || m.Kind != "booking_confirmed" || m.To != "Ann <ann@example.org>" {
					t.Errorf("ByKey = %+v, want the first message unchanged", m)
				}
				all, err := o.Recent(ctx, 100)
				if err != nil {
					t.Fatal(err)
				}
				if len(all) != 1 {
					t.Errorf("Recent has %d messages, want 1", len(all))
				}
			})

			t.Run("a caller's Message-ID and a later NextAt are kept", func(t *testing.T) {
				clk.Advance(time.Second)
				later := clk.Now().Add(time.Hour)
				mid := NewMessageID("cinema.example")
				id, _, err := o.Enqueue(ctx, Message{Key: "reminder", Kind: "reminder", To: "cy@example.org", MessageID: mid, NextAt: later})
				if err != nil {
					t.Fatal(err)
				}
				m, err := o.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if m.MessageID != mid || !m.NextAt.Equal(later) || string(m.Payload) != "{}" {
					t.Errorf("got Message-ID %q next %v payload %s; want %q, %v, {}", m.MessageID, m.NextAt, m.Payload, mid, later)
				}
			})

			t.Run("Recent is newest first and limited", func(t *testing.T) {
				clk.Advance(time.Second)
				id, _, err := o.Enqueue(ctx, Message{Key: "newest", Kind: "k", To: "dee@example.org"})
				if err != nil {
					t.Fatal(err)
				}
				got, err := o.Recent(ctx, 2)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 2 || got[0].ID != id || got[1].Key != "reminder" {
					t.Fatalf("Recent(2) = %v, want newest then reminder", keys(got))
				}
			})

			t.Run("Undeliverable and Retry", func(t *testing.T) {
				m, err := o.ByKey(ctx, "newest")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := o.Retry(ctx, m.ID); !errors.Is(err, ErrNotUndeliverable) {
					t.Fatalf("Retry of a pending message: err = %v, want ErrNotUndeliverable", err)
				}
				if _, err := o.Retry(ctx, "no-such-id"); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Retry of an unknown id: err = %v, want ErrNotFound", err)
				}
				if _, err := db.SQL.ExecContext(ctx, `UPDATE mail_outbox SET state='undeliverable', attempts=3, last_error='550 no such mailbox',
					next_at=$1 WHERE id=$2`, clk.Now().Add(time.Hour).UnixMilli(), m.ID); err != nil {
					t.Fatal(err)
				}
				list, err := o.Undeliverable(ctx, 10)
				if err != nil {
					t.Fatal(err)
				}
				if len(list) != 1 || list[0].ID != m.ID || list[0].LastError != "550 no such mailbox" {
					t.Fatalf("Undeliverable = %v, want just %s", keys(list), m.Key)
				}
				clk.Advance(time.Minute)
				got, err := o.Retry(ctx, m.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.State != StatePending || got.Attempts != 3 || !got.NextAt.Equal(clk.Now()) || got.LastError == "" {
					t.Errorf("after Retry: %+v; want pending, attempts 3 kept, due now, last error kept", got)
				}
				if list, _ := o.Undeliverable(ctx, 10); len(list) != 0 {
					t.Errorf("Undeliverable after Retry = %v, want none", keys(list))
				}
			})

			t.Run("bad messages are refused", func(t *testing.T) {
				for _, tc := range []struct {
					name string
					m    Message
				}{
					{"no key", Message{Kind: "k", To: "a@example.org"}},
					{"no kind", Message{Key: "x1", To: "a@example.org"}},
					{"no recipient", Message{Key: "x2", Kind: "k"}},
					{"bad recipient", Message{Key: "x3", Kind: "k", To: "not an address"}},
					{"payload not JSON", Message{Key: "x4", Kind: "k", To: "a@example.org", Payload: []byte("{oops")}},
					{"bad Message-ID", Message{Key: "x5", Kind: "k", To: "a@example.org", MessageID: "no-brackets@x"}},
				} {
					t.Run(tc.name, func(t *testing.T) {
						if _, _, err := o.Enqueue(ctx, tc.m); !errors.Is(err, ErrInvalid) {
							t.Fatalf("err = %v, want ErrInvalid", err)
						}
						if tc.m.Key != "" {
							if _, err := o.ByKey(ctx, tc.m.Key); !errors.Is(err, ErrNotFound) {
								t.Fatalf("a refused message was stored (err %v)", err)
							}
						}
					})
				}
			})
		})
	}
}

func keys(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Key
	}
	return out
}
