package mail

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/mail/smtptest"
)

func TestNewSMTP(t *testing.T) {
	const secret = "hunter2-secret"
	for _, tc := range []struct {
		url      string
		describe string // "" when the URL is refused
	}{
		{"smtp://bff:" + secret + "@smtp.example.com:587", "SMTP smtp.example.com:587 (STARTTLS, AUTH)"},
		{"smtp://bff:" + secret + "@smtp.example.com", "SMTP smtp.example.com:587 (STARTTLS, AUTH)"},
		{"smtp://smtp.example.com:2525", "SMTP smtp.example.com:2525 (STARTTLS)"},
		{"smtps://bff:" + secret + "@smtp.example.com", "SMTP smtp.example.com:465 (implicit TLS, AUTH)"},
		{"smtps://smtp.example.com:1465/", "SMTP smtp.example.com:1465 (implicit TLS)"},
		{"smtp://127.0.0.1:25?starttls=opportunistic", "SMTP 127.0.0.1:25 (STARTTLS if offered)"},
		{"smtp://[::1]:25?starttls=opportunistic", "SMTP [::1]:25 (STARTTLS if offered)"},
		{"http://bff:" + secret + "@smtp.example.com", ""},
		{"smtp+insecure://smtp.example.com", ""},
		{"smtp.example.com:587", ""},
		{"smtp://bff:" + secret + "@:587", ""},
		{"smtp://bff:" + secret + "@smtp.example.com:0", ""},
		{"smtp://bff:" + secret + "@smtp.example.com:99999", ""},
		{"smtp://bff:" + secret + "@smtp.example.com:587/path", ""},
		{"smtp://:" + secret + "@smtp.example.com:587", ""},
		{"smtp://bff:" + secret + "@smtp.example.com?starttls=off", ""},
		{"smtp://bff:" + secret + "@smtp.example.com?starttls=opportunistic&starttls=opportunistic", ""},
		{"smtp://bff:" + secret + "@smtp.example.com?tls=skip-verify", ""},
		{"smtps://bff:" + secret + "@smtp.example.com?starttls=opportunistic", ""},
		{"smtp://bff:" + secret + "@smtp.example.com:58%7", ""},
		{"smtp://bff:" + secret + "@smtp example.com\x7f", ""},
	} {
		t.Run(tc.url, func(t *testing.T) {
			s, err := NewSMTP(tc.url)
			if tc.describe == "" {
				if err == nil {
					t.Fatalf("accepted, Describe = %q", s.Describe())
				}
				if !errors.Is(err, ErrBadSMTPURL) {
					t.Errorf("err = %v, want ErrBadSMTPURL", err)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Describe(); got != tc.describe {
				t.Errorf("Describe = %q, want %q", got, tc.describe)
			}
		})
	}
}

// senderOn is a Sender with the test composer on a fresh migrated database of the dialect.
func senderOn(t *testing.T, o *Outbox, tr Transport, replica string) *Sender {
	t.Helper()
	return &Sender{
		Outbox: o, Compose: composeTest, Transport: tr, From: testFrom, Replica: replica,
		Logger:  slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Backoff: func(attempt int) time.Duration { return time.Duration(attempt) * time.Minute },
	}
}

// testWriter sends the sender's log lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestSMTPEndToEnd(t *testing.T) {
	ctx := context.Background()
	r := smtptest.Start(t, "127.0.0.1:0")
	o := NewOutbox(sqliteDB(t), newClock().Now)
	id, _, err := o.Enqueue(ctx, Message{Key: "e2e", Kind: "booking_confirmed", To: "ann@example.org",
		Payload: payload(t, "Ihre Buchung – Saal 3", "Ann")})
	if err != nil {
		t.Fatal(err)
	}
	s := senderOn(t, o, relayTransport(t, r), "web-1")
	n, err := s.RunOnce(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v; want 1 delivered", n, err)
	}
	got := r.Messages()
	if len(got) != 1 {
		t.Fatalf("relay received %d messages, want 1", len(got))
	}
	rcv := got[0]
	if !rcv.TLS || rcv.AuthUser != smtptest.User {
		t.Errorf("relay saw TLS=%v user=%q, want STARTTLS and AUTH as %s", rcv.TLS, rcv.AuthUser, smtptest.User)
	}
	if rcv.From != "tickets@cinema.example" || len(rcv.To) != 1 || rcv.To[0] != "ann@example.org" {
		t.Errorf("envelope from %q to %v", rcv.From, rcv.To)
	}
	m, err := o.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	m.CreatedAt = m.CreatedAt.UTC()
	checkComposed(t, rcv.Data, m)
	if m.State != StateSent || m.Attempts != 1 || m.SentAt.IsZero() || m.LastError != "" {
		t.Errorf("after delivery: %+v", m)
	}
	if n, err := s.RunOnce(ctx); err != nil || n != 0 || len(r.Messages()) != 1 {
		t.Errorf("second RunOnce = %d, %v and the relay has %d messages; want nothing more", n, err, len(r.Messages()))
	}
}

func TestSMTPTransportSecurity(t *testing.T) {
	ctx := context.Background()
	plain := smtptest.Start(t, "127.0.0.1:0", smtptest.WithoutTLS())
	secure := smtptest.Start(t, "127.0.0.1:0")
	trust := WithTLSConfig(smtptest.ClientTLS(t))
	m := testMessage("sec1")
	r, _ := composeTest(ctx, m)

	for _, tc := range []struct {
		name   string
		url    string
		opts   []SMTPOption
		relay  *smtptest.Relay
		wantOK bool
	}{
		{"STARTTLS required, relay has none", "smtp://" + plain.Addr, nil, plain, false},
		{"STARTTLS opportunistic, relay has none", "smtp://" + plain.Addr + "?starttls=opportunistic", nil, plain, true},
		{"certificate not trusted", secure.URL(), nil, secure, false},
		{"wrong password", "smtp://" + smtptest.User + ":wrong@" + secure.Addr, []SMTPOption{trust}, secure, false},
		{"no credentials where AUTH is required", "smtp://" + secure.Addr, []SMTPOption{trust}, secure, false},
		{"implicit TLS against a STARTTLS port", "smtps://" + smtptest.User + ":" + smtptest.Password + "@" + secure.Addr,
			[]SMTPOption{trust, WithDialTimeout(2 * time.Second)}, secure, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.relay.Messages())
			tr, err := NewSMTP(tc.url, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := Build(testFrom, m, r)
			if err != nil {
				t.Fatal(err)
			}
			err = tr.Deliver(ctx, m, msg)
			if tc.wantOK != (err == nil) {
				t.Fatalf("Deliver err = %v, want success %v", err, tc.wantOK)
			}
			if err != nil {
				t.Logf("Deliver: %v", err)
				if errors.Is(err, ErrPermanent) {
					t.Errorf("a relay or configuration problem counted as permanent: %v", err)
				}
				if strings.Contains(err.Error(), smtptest.Password) {
					t.Errorf("the error shows the password: %v", err)
				}
			}
			if got := len(tc.relay.Messages()) - before; got != map[bool]int{true: 1, false: 0}[tc.wantOK] {
				t.Errorf("relay received %d messages", got)
			}
		})
	}
}

// TestSenderWithDir: the file transport under the Sender, as the sandbox runs it.
func TestSenderWithDir(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "mail")
	o := NewOutbox(sqliteDB(t), newClock().Now)
	for _, key := range []string{"a", "b"} {
		if _, _, err := o.Enqueue(ctx, Message{Key: key, Kind: "booking_confirmed", To: key + "@example.org",
			Payload: payload(t, "Ihre Buchung – Saal 3", "Ann")}); err != nil {
			t.Fatal(err)
		}
	}
	s := senderOn(t, o, NewDir(dir), "web-1")
	if n, err := s.RunOnce(ctx); err != nil || n != 2 {
		t.Fatalf("RunOnce = %d, %v; want 2", n, err)
	}
	list, err := ListDir(dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListDir = %v, %v; want 2 messages", list, err)
	}
}
