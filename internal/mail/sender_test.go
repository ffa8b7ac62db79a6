package mail

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/cinemabff/cinemabff/internal/mail/smtptest"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// fakeTransport is a Transport made of a function.
type fakeTransport struct {
	deliver func(ctx context.Context, m Message, msg *gomail.Msg) error
}

var _ Transport = fakeTransport{}

func (f fakeTransport) Deliver(ctx context.Context, m Message, msg *gomail.Msg) error {
	return f.deliver(ctx, m, msg)
}
func (fakeTransport) Describe() string { return "fake" }

func enqueueN(t *testing.T, o *Outbox, n int, prefix string) []string {
	t.Helper()
	var ids []string
	for i := range n {
		id, inserted, err := o.Enqueue(context.Background(), Message{
			Key: fmt.Sprintf("%s-%02d", prefix, i), Kind: "booking_confirmed", To: fmt.Sprintf("guest%02d@example.org", i),
			Payload: payload(t, "Ihre Buchung – Saal 3", fmt.Sprintf("Guest %d", i)),
		})
		if err != nil || !inserted {
			t.Fatalf("Enqueue: %v (inserted %v)", err, inserted)
		}
		ids = append(ids, id)
	}
	return ids
}

func mustGet(t *testing.T, o *Outbox, id string) Message {
	t.Helper()
	m, err := o.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func claimedBy(t *testing.T, db *sql.DB, id string) string {
	t.Helper()
	var by string
	if err := db.QueryRow(`SELECT claimed_by FROM mail_outbox WHERE id = $1`, id).Scan(&by); err != nil {
		t.Fatal(err)
	}
	return by
}

// wantEachOnce checks the relay got exactly the Message-IDs of ids, each once.
func wantEachOnce(t *testing.T, r *smtptest.Relay, o *Outbox, ids []string) {
	t.Helper()
	counts := r.ByMessageID(t)
	for _, id := range ids {
		m := mustGet(t, o, id)
		if counts[m.MessageID] != 1 {
			t.Errorf("message %s (%s) arrived %d times, want once", id, m.MessageID, counts[m.MessageID])
		}
		if m.State != StateSent {
			t.Errorf("message %s is %s, want sent", id, m.State)
		}
		delete(counts, m.MessageID)
	}
	if len(counts) != 0 {
		t.Errorf("the relay got messages nobody sent: %v", counts)
	}
}

func TestTwoReplicasDeliverEachMessageOnce(t *testing.T) {
	ctx := context.Background()
	url := testenv.PostgresURL(t)
	open := func() *sql.DB {
		db, err := storage.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.SQL
	}
	first, second := open(), open() // two replicas: two connection pools on one database
	db, err := storage.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	r := smtptest.Start(t, "127.0.0.1:0")
	r.SetDelay(3 * time.Millisecond) // deliveries overlap the other replica's claims
	oa, ob := NewOutbox(first, nil), NewOutbox(second, nil)
	ids := enqueueN(t, oa, 20, "two-replicas")

	senders := []*Sender{senderOn(t, oa, relayTransport(t, r), "replica-a"), senderOn(t, ob, relayTransport(t, r), "replica-b")}
	var delivered [2]atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, s := range senders {
		wg.Go(func() {
			<-start
			for round := 0; round < 5; round++ {
				n, err := s.RunOnce(ctx)
				if err != nil {
					t.Errorf("%s RunOnce: %v", s.Replica, err)
					return
				}
				delivered[i].Add(int64(n))
			}
		})
	}
	close(start)
	wg.Wait()

	t.Logf("replica-a delivered %d, replica-b %d", delivered[0].Load(), delivered[1].Load())
	if total := delivered[0].Load() + delivered[1].Load(); total != 20 {
		t.Errorf("the replicas report %d deliveries, want 20", total)
	}
	wantEachOnce(t, r, oa, ids)
	for _, id := range ids {
		m := mustGet(t, ob, id)
		if m.Attempts != 1 {
			t.Errorf("message %s took %d attempts, want 1", id, m.Attempts)
		}
		if by := claimedBy(t, first, id); !strings.HasPrefix(by, "replica-a#") && !strings.HasPrefix(by, "replica-b#") {
			t.Errorf("message %s claimed by %q", id, by)
		}
	}
}

func TestOutageLosesNothingAndDoublesNothing(t *testing.T) {
	for dialect, db := range testenv.MigratedDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			clk := newClock()
			o := NewOutbox(db.SQL, clk.Now)

			// An address where nothing listens: connections are refused.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			tr, err := NewSMTP("smtp://"+smtptest.User+":"+smtptest.Password+"@"+addr,
				WithTLSConfig(smtptest.ClientTLS(t)), WithDialTimeout(3*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			s := senderOn(t, o, tr, "web-1") // Backoff: attempt × 1 minute
			ids := enqueueN(t, o, 5, "outage")
			t0 := clk.Now()

			expect := func(step string, attempts int, nextAt time.Time, errText string) {
				t.Helper()
				for _, id := range ids {
					m := mustGet(t, o, id)
					if m.State != StatePending || m.Attempts != attempts || !m.NextAt.Equal(nextAt) || !strings.Contains(m.LastError, errText) {
						t.Fatalf("%s: message %s is %s, attempts %d, next %v, last error %q; want pending, %d, %v, containing %q",
							step, id, m.State, m.Attempts, m.NextAt, m.LastError, attempts, nextAt, errText)
					}
					if strings.Contains(m.LastError, smtptest.Password) {
						t.Fatalf("the stored error shows the password: %q", m.LastError)
					}
				}
			}
			runOnce := func(step string, want int) {
				t.Helper()
				n, err := s.RunOnce(ctx)
				if err != nil || n != want {
					t.Fatalf("%s: RunOnce = %d, %v; want %d delivered", step, n, err, want)
				}
			}

			runOnce("relay down", 0)
			expect("relay down", 1, t0.Add(time.Minute), addr)
			runOnce("relay down, before the backoff", 0)
			expect("relay down, before the backoff", 1, t0.Add(time.Minute), addr)

			r := smtptest.Start(t, addr) // back on the same address, but answering 451 for now
			r.SetTempFail(true)
			clk.Advance(time.Minute)
			runOnce("relay answers 451", 0)
			expect("relay answers 451", 2, clk.Now().Add(2*time.Minute), "451")

			r.SetTempFail(false)
			clk.Advance(time.Minute)
			runOnce("relay well, backoff not over", 0)
			if got := len(r.Messages()); got != 0 {
				t.Fatalf("the relay got %d messages before the backoff ended", got)
			}
			clk.Advance(time.Minute)
			runOnce("relay well", 5)
			runOnce("all sent", 0)
			wantEachOnce(t, r, o, ids)
			for _, id := range ids {
				if m := mustGet(t, o, id); m.Attempts != 3 || m.LastError != "" || !m.SentAt.Equal(clk.Now()) {
					t.Errorf("sent message %s: attempts %d, last error %q, sent %v", id, m.Attempts, m.LastError, m.SentAt)
				}
			}
		})
	}
}

func TestPermanentRejection(t *testing.T) {
	for dialect, db := range testenv.MigratedDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			clk := newClock()
			o := NewOutbox(db.SQL, clk.Now)
			r := smtptest.Start(t, "127.0.0.1:0")
			r.SetRejectRcpt("bounce@example.org", true)
			s := senderOn(t, o, relayTransport(t, r), "web-1")

			bounce, _, err := o.Enqueue(ctx, Message{Key: "bounce", Kind: "booking_confirmed", To: "bounce@example.org", Payload: payload(t, "Ihre Buchung – Saal 3", "B")})
			if err != nil {
				t.Fatal(err)
			}
			good, _, err := o.Enqueue(ctx, Message{Key: "good", Kind: "booking_confirmed", To: "good@example.org", Payload: payload(t, "Ihre Buchung – Saal 3", "G")})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := s.RunOnce(ctx); err != nil || n != 1 {
				t.Fatalf("RunOnce = %d, %v; want 1 delivered", n, err)
			}
			m := mustGet(t, o, bounce)
			if m.State != StateUndeliverable || m.Attempts != 1 || !strings.Contains(m.LastError, "550") {
				t.Fatalf("rejected message: %s, attempts %d, last error %q; want undeliverable after 1 attempt with the 550", m.State, m.Attempts, m.LastError)
			}
			if list, err := o.Undeliverable(ctx, 10); err != nil || len(list) != 1 || list[0].ID != bounce {
				t.Fatalf("Undeliverable = %v, %v", keys(list), err)
			}
			clk.Advance(time.Hour)
			if n, err := s.RunOnce(ctx); err != nil || n != 0 {
				t.Fatalf("an undeliverable message was tried again: RunOnce = %d, %v", n, err)
			}

			r.SetRejectRcpt("bounce@example.org", false) // the mailbox exists now
			if m, err := o.Retry(ctx, bounce); err != nil || m.State != StatePending || m.Attempts != 1 {
				t.Fatalf("Retry = %+v, %v", m, err)
			}
			if n, err := s.RunOnce(ctx); err != nil || n != 1 {
				t.Fatalf("after Retry: RunOnce = %d, %v; want 1", n, err)
			}
			wantEachOnce(t, r, o, []string{good, bounce})
			if m := mustGet(t, o, bounce); m.Attempts != 2 {
				t.Errorf("attempts after the retry = %d, want 2", m.Attempts)
			}
		})
	}
}

func TestCrashBetweenClaimAndRecordIsRecoveredAfterLease(t *testing.T) {
	for dialect, db := range testenv.MigratedDatabases(t) {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			clk := newClock()
			o := NewOutbox(db.SQL, clk.Now)
			r := smtptest.Start(t, "127.0.0.1:0")
			a, b := senderOn(t, o, relayTransport(t, r), "replica-a"), senderOn(t, o, relayTransport(t, r), "replica-b")
			a.Lease, b.Lease = 2*time.Minute, 2*time.Minute
			ids := enqueueN(t, o, 1, "crash")
			id := ids[0]

			dead, ok, err := a.claimOne(ctx, id) // replica-a claims, then dies
			if err != nil || !ok {
				t.Fatalf("claim = %v, %v", ok, err)
			}
			if n, err := b.RunOnce(ctx); err != nil || n != 0 {
				t.Fatalf("while the lease holds: RunOnce = %d, %v; want 0", n, err)
			}
			clk.Advance(2 * time.Minute)
			if n, err := b.RunOnce(ctx); err != nil || n != 0 {
				t.Fatalf("at the lease's end: RunOnce = %d, %v; want 0", n, err)
			}
			clk.Advance(time.Millisecond)
			if n, err := b.RunOnce(ctx); err != nil || n != 1 {
				t.Fatalf("after the lease: RunOnce = %d, %v; want 1", n, err)
			}
			wantEachOnce(t, r, o, ids)
			if by := claimedBy(t, db.SQL, id); !strings.HasPrefix(by, "replica-b#") {
				t.Errorf("claimed_by = %q, want replica-b's claim", by)
			}
			// replica-a comes back with an outcome for its old claim: refused, nothing changes.
			held, err := a.finish(ctx, id, dead, `state=$1, last_error=$2`, StatePending, "late")
			if err != nil || held {
				t.Fatalf("a stale claim recorded its outcome: held %v, err %v", held, err)
			}
			if m := mustGet(t, o, id); m.State != StateSent || m.Attempts != 2 {
				t.Errorf("after the stale outcome: %s, attempts %d; want sent, 2", m.State, m.Attempts)
			}

			// The stale outcome arrives while the new claim is still delivering: only the
			// compare-and-set on claimed_by tells the two apart.
			second := enqueueN(t, o, 1, "crash-again")[0]
			old, ok, err := a.claimOne(ctx, second)
			if err != nil || !ok {
				t.Fatalf("claim = %v, %v", ok, err)
			}
			clk.Advance(2*time.Minute + time.Millisecond)
			current, ok, err := b.claimOne(ctx, second)
			if err != nil || !ok || !current.stale {
				t.Fatalf("take-over claim = %+v, %v, %v; want a stale take-over", current, ok, err)
			}
			if held, err := a.finish(ctx, second, old, `state=$1, last_error=$2`, StatePending, "late"); err != nil || held {
				t.Fatalf("the old claim recorded its outcome over the new one: held %v, err %v", held, err)
			}
			if m := mustGet(t, o, second); m.State != StateSending || m.LastError != "" || claimedBy(t, db.SQL, second) != current.token {
				t.Fatalf("after the old claim's outcome: %s, %q, claimed by %q; want still sending under %q",
					m.State, m.LastError, claimedBy(t, db.SQL, second), current.token)
			}
			if held, err := b.finish(ctx, second, current, `state=$1, sent_at=$2, last_error=''`, StateSent, clk.Now().UnixMilli()); err != nil || !held {
				t.Fatalf("the current claim could not record its outcome: held %v, err %v", held, err)
			}
		})
	}
}

func TestClaimsThatKeepExpiringGiveUp(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	db := sqliteDB(t)
	o := NewOutbox(db, clk.Now)
	delivered := 0
	s := senderOn(t, o, fakeTransport{func(context.Context, Message, *gomail.Msg) error { delivered++; return nil }}, "web-1")
	s.MaxAttempts, s.Lease = 2, time.Minute
	id := enqueueN(t, o, 1, "poison")[0]
	for range 2 { // the sender dies on this message twice
		if _, ok, err := s.claimOne(ctx, id); err != nil || !ok {
			t.Fatalf("claim = %v, %v", ok, err)
		}
		clk.Advance(time.Minute + time.Millisecond)
	}
	if n, err := s.RunOnce(ctx); err != nil || n != 0 || delivered != 0 {
		t.Fatalf("RunOnce = %d, %v (transport called %d times); want nothing delivered", n, err, delivered)
	}
	if m := mustGet(t, o, id); m.State != StateUndeliverable || !strings.Contains(m.LastError, "gave up") {
		t.Errorf("after repeated expired claims: %s, %q; want undeliverable", m.State, m.LastError)
	}
}

func TestSenderOutcomes(t *testing.T) {
	errRelay := errors.New("451 4.3.0 try again later")
	for _, tc := range []struct {
		name         string
		compose      Composer
		deliver      func() error
		attemptsDone int // attempts before this one
		wantState    State
		wantErr      string // in last_error
		wantCalls    int    // transport calls
	}{
		{name: "delivered", deliver: func() error { return nil }, wantState: StateSent, wantCalls: 1},
		{name: "temporary transport error", deliver: func() error { return errRelay }, wantState: StatePending, wantErr: "451", wantCalls: 1},
		{name: "temporary error on the last attempt", deliver: func() error { return errRelay }, attemptsDone: 2,
			wantState: StateUndeliverable, wantErr: "451", wantCalls: 1},
		{name: "permanent transport error", deliver: func() error { return fmt.Errorf("%w: 554 no", ErrPermanent) },
			wantState: StateUndeliverable, wantErr: "554", wantCalls: 1},
		{name: "transport panics", deliver: func() error { panic("boom") }, wantState: StatePending, wantErr: "boom", wantCalls: 1},
		{name: "composer: upstream down", compose: func(context.Context, Message) (Rendered, error) {
			return Rendered{}, errors.New("ticketing unavailable")
		}, wantState: StatePending, wantErr: "ticketing unavailable"},
		{name: "composer: unknown kind", compose: func(context.Context, Message) (Rendered, error) {
			return Rendered{}, fmt.Errorf("%w: unknown kind", ErrPermanent)
		}, wantState: StateUndeliverable, wantErr: "unknown kind"},
		{name: "composer renders no HTML", compose: func(context.Context, Message) (Rendered, error) {
			return Rendered{Subject: "s", Text: "t"}, nil
		}, wantState: StateUndeliverable, wantErr: "no HTML part"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clk := newClock()
			db := sqliteDB(t)
			o := NewOutbox(db, clk.Now)
			calls := 0
			deliver := tc.deliver
			if deliver == nil {
				deliver = func() error { return nil }
			}
			s := senderOn(t, o, fakeTransport{func(context.Context, Message, *gomail.Msg) error { calls++; return deliver() }}, "web-1")
			s.MaxAttempts = 3
			if tc.compose != nil {
				s.Compose = tc.compose
			}
			id := enqueueN(t, o, 1, "outcome")[0]
			if _, err := db.Exec(`UPDATE mail_outbox SET attempts = $1 WHERE id = $2`, tc.attemptsDone, id); err != nil {
				t.Fatal(err)
			}
			n, err := s.RunOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1}[tc.wantState == StateSent]; n != want {
				t.Errorf("RunOnce delivered %d, want %d", n, want)
			}
			if calls != tc.wantCalls {
				t.Errorf("transport called %d times, want %d", calls, tc.wantCalls)
			}
			m := mustGet(t, o, id)
			if m.State != tc.wantState || m.Attempts != tc.attemptsDone+1 || !strings.Contains(m.LastError, tc.wantErr) {
				t.Errorf("got %s, attempts %d, last error %q; want %s, %d, containing %q",
					m.State, m.Attempts, m.LastError, tc.wantState, tc.attemptsDone+1, tc.wantErr)
			}
			if tc.wantState == StatePending {
				if want := clk.Now().Add(time.Duration(m.Attempts) * time.Minute); !m.NextAt.Equal(want) {
					t.Errorf("next attempt at %v, want %v (the backoff)", m.NextAt, want)
				}
			}
		})
	}
}

func TestSenderRefusesBadSettings(t *testing.T) {
	o := NewOutbox(sqliteDB(t), nil)
	ok := fakeTransport{func(context.Context, Message, *gomail.Msg) error { return nil }}
	for _, tc := range []struct {
		name string
		s    *Sender
	}{
		{"no outbox", &Sender{Compose: composeTest, Transport: ok, From: testFrom}},
		{"no composer", &Sender{Outbox: o, Transport: ok, From: testFrom}},
		{"no transport", &Sender{Outbox: o, Compose: composeTest, From: testFrom}},
		{"bad from", &Sender{Outbox: o, Compose: composeTest, Transport: ok, From: "tickets at cinema"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.RunOnce(context.Background()); err == nil {
				t.Fatal("RunOnce ran")
			}
		})
	}
}

func TestDefaultBackoff(t *testing.T) {
	for _, tc := range []struct {
		attempt int
		base    time.Duration
	}{
		{0, 10 * time.Second}, {1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second},
		{6, 320 * time.Second}, {8, 1280 * time.Second}, {9, 30 * time.Minute}, {12, 30 * time.Minute}, {1000, 30 * time.Minute},
	} {
		lo, hi := tc.base-tc.base/5, tc.base+tc.base/5
		spread := map[time.Duration]bool{}
		for range 200 {
			d := DefaultBackoff(tc.attempt)
			if d < lo || d > hi {
				t.Fatalf("DefaultBackoff(%d) = %v, want within [%v, %v]", tc.attempt, d, lo, hi)
			}
			spread[d] = true
		}
		if len(spread) < 10 {
			t.Errorf("DefaultBackoff(%d) took %d values in 200 calls: no jitter", tc.attempt, len(spread))
		}
	}
}

func TestRunWakesOnKick(t *testing.T) {
	clk := newClock()
	db := sqliteDB(t)
	o := NewOutbox(db, clk.Now)
	id := enqueueN(t, o, 1, "kick")[0]
	if _, err := db.Exec(`UPDATE mail_outbox SET next_at = $1 WHERE id = $2`, clk.Now().Add(time.Hour).UnixMilli(), id); err != nil {
		t.Fatal(err)
	}

	firstRound := make(chan struct{})
	var once sync.Once
	watched := NewOutbox(db, func() time.Time {
		now := clk.Now()
		once.Do(func() { close(firstRound) }) // the first round has read the clock: it cannot see the message due
		return now
	})
	delivered := make(chan string, 1)
	s := senderOn(t, watched, fakeTransport{func(_ context.Context, m Message, _ *gomail.Msg) error {
		delivered <- m.ID
		return nil
	}}, "web-1")

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.Run(ctx, time.Hour)
	}()
	defer func() { cancel(); <-stopped }()

	<-firstRound
	clk.Advance(2 * time.Hour) // due now, but Run sleeps for an hour
	select {
	case got := <-delivered:
		t.Fatalf("delivered %s without a kick", got)
	case <-time.After(300 * time.Millisecond):
	}
	s.Kick()
	s.Kick() // never blocks, even with a kick pending
	select {
	case got := <-delivered:
		if got != id {
			t.Fatalf("delivered %s, want %s", got, id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Kick did not wake Run")
	}
}
