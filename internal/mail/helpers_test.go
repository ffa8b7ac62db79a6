package mail

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"mime"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/mail/smtptest"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testclock"
)

// sqliteDB is a migrated SQLite database of its own, for tests that need no PostgreSQL.
func sqliteDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "mail.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background(), slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return db.SQL
}

// testFrom is the sender the tests' Sender and Build use.
const testFrom = "Cinema <tickets@cinema.example>"

// relayTransport is an SMTP transport to the relay that trusts its test certificate.
func relayTransport(t testing.TB, r *smtptest.Relay) *SMTP {
	t.Helper()
	tr, err := NewSMTP(r.URL(), WithTLSConfig(smtptest.ClientTLS(t)), WithDialTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func newClock() *testclock.Clock {
	return testclock.New(time.Date(2026, 3, 14, 18, 30, 0, 0, time.UTC))
}

// testPayload is what the tests' composer reads.
type testPayload struct {
	Subject string `json:"subject"`
	Name    string `json:"name"`
}

func payload(t testing.TB, subject, name string) []byte {
	t.Helper()
	b, err := json.Marshal(testPayload{Subject: subject, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var logoPNG = sync.OnceValue(func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.NRGBA{R: 200, A: 255})
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
})

// composeTest renders the tests' messages: a greeting in both parts and the logo inline.
func composeTest(_ context.Context, m Message) (Rendered, error) {
	var p testPayload
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		return Rendered{}, errors.Join(ErrPermanent, err)
	}
	return Rendered{
		Subject: p.Subject,
		Lang:    m.Lang,
		Text:    "Hello " + p.Name + ",\nyour seats are booked.\n",
		HTML:    `<p>Hello ` + p.Name + `,</p><p>your seats are booked.</p><img src="cid:logo" alt="Cinema">`,
		Inline:  []Inline{{CID: "logo", Filename: "logo.png", ContentType: "image/png", Data: logoPNG()}},
	}, nil
}

func decodeHeader(t testing.TB, v string) string {
	t.Helper()
	d, err := new(mime.WordDecoder).DecodeHeader(v)
	if err != nil {
		t.Fatalf("decode header %q: %v", v, err)
	}
	return d
}
