// Package mail is the BFF's e-mail outbox. A message is enqueued in the same database
// transaction as the change that causes it, so a mail is sent if and only if that change
// committed; a Sender on any replica then claims each due message with a compare-and-set
// UPDATE, composes it, hands it to a Transport (SMTP, or files for the sandbox) and records
// the outcome. A claim carries a lease: a replica that dies between claim and record loses the
// message to another replica after the lease, never to two at once.
package mail

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"
	"time"
)

// State is where an outbox message stands: pending → sending → sent, or undeliverable.
type State string

const (
	StatePending       State = "pending"       // waiting until NextAt, then claimable
	StateSending       State = "sending"       // claimed by one sender until its lease ends
	StateSent          State = "sent"          // the transport accepted it: done
	StateUndeliverable State = "undeliverable" // rejected for good, or out of attempts; Retry revives it
)

// DefaultMessageIDDomain is the domain of the Message-IDs Enqueue assigns when the caller sets
// none. ".invalid" is reserved (RFC 2606), so it can never clash with a real host's IDs.
const DefaultMessageIDDomain = "cinemabff.invalid"

// Message is one outbox row.
type Message struct {
	ID        string // assigned by Enqueue
	Key       string // dedupe key: one message per key, ever
	Kind      string // what the mail is about, e.g. "booking_confirmed"; the Composer switches on it
	To        string // recipient address
	Lang      string // language to compose in
	Payload   []byte // JSON written by the caller, read back by the Composer
	State     State
	Attempts  int // claims so far
	LastError string
	MessageID string // RFC 5322 Message-ID with its angle brackets, stable across retries
	NextAt    time.Time
	CreatedAt time.Time
	SentAt    time.Time // zero until sent
	UpdatedAt time.Time
}

var (
	// ErrNotFound: no outbox message with that id or key.
	ErrNotFound = errors.New("mail: outbox message not found")
	// ErrNotUndeliverable: Retry was asked for a message that is not undeliverable.
	ErrNotUndeliverable = errors.New("mail: outbox message is not undeliverable")
	// ErrInvalid: Enqueue was given a message it cannot store (no key, bad address, ...).
	ErrInvalid = errors.New("mail: invalid outbox message")
)

// Execer is satisfied by *sql.Tx and *sql.DB: Enqueue writes through whichever the caller holds.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

const columns = `id, dedupe_key, kind, recipient, lang, payload, state, attempts, last_error, next_at,
	lease_until, claimed_by, message_id, created_at, sent_at, updated_at`

// Enqueue writes m as a pending message through tx, normally the caller's transaction, so the
// mail exists exactly when the change that causes it commits. A message whose Key is taken
// already is not written again: inserted is false and id is empty (ByKey finds the existing
// one). Enqueue assigns ID, and MessageID unless the caller set one ("<…@DefaultMessageIDDomain>"
// otherwise). The message is due at m.NextAt, or at now when that is zero or earlier.
func Enqueue(ctx context.Context, tx Execer, m Message, now time.Time) (id string, inserted bool, err error) {
	if err := validate(&m); err != nil {
		return "", false, err
	}
	m.ID = newID()
	if m.MessageID == "" {
		m.MessageID = NewMessageID(DefaultMessageIDDomain)
	}
	if m.NextAt.Before(now) {
		m.NextAt = now
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO mail_outbox (`+columns+`)
		VALUES ($1,$2,$3,$4,$5,$6,$7,0,'',$8,0,'',$9,$10,0,$10)
		ON CONFLICT (dedupe_key) DO NOTHING`,
		m.ID, m.Key, m.Kind, m.To, m.Lang, string(m.Payload), StatePending, m.NextAt.UnixMilli(),
		m.MessageID, now.UnixMilli())
	if err != nil {
		return "", false, fmt.Errorf("mail enqueue %s: %w", m.Kind, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return "", false, fmt.Errorf("mail enqueue %s: %w", m.Kind, err)
	}
	if n == 0 {
		return "", false, nil
	}
	return m.ID, true, nil
}

// validate checks what Enqueue needs and fills the defaults.
func validate(m *Message) error {
	switch {
	case strings.TrimSpace(m.Key) == "":
		return fmt.Errorf("%w: the dedupe key is required", ErrInvalid)
	case strings.TrimSpace(m.Kind) == "":
		return fmt.Errorf("%w: the kind is required", ErrInvalid)
	}
	if _, err := netmail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("%w: recipient: %v", ErrInvalid, err)
	}
	if len(m.Payload) == 0 {
		m.Payload = []byte("{}")
	} else if !json.Valid(m.Payload) {
		return fmt.Errorf("%w: the payload is not JSON", ErrInvalid)
	}
	if m.MessageID != "" && !validMessageID(m.MessageID) {
		return fmt.Errorf("%w: Message-ID %q is not <left@right>", ErrInvalid, m.MessageID)
	}
	return nil
}

func validMessageID(id string) bool {
	inner, ok := strings.CutPrefix(id, "<")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, ">")
	if !ok {
		return false
	}
	left, right, ok := strings.Cut(inner, "@")
	return ok && left != "" && right != "" && !strings.ContainsAny(inner, "<> \t\r\n") && !strings.Contains(right, "@")
}

// NewMessageID returns a fresh RFC 5322 Message-ID, angle brackets included, in domain: for a
// caller that wants its own domain (say the host part of its From address) in Message.MessageID.
func NewMessageID(domain string) string {
	return "<" + newID() + "@" + domain + ">"
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Outbox reads and manages the outbox on a database/sql handle (SQLite or PostgreSQL: the SQL
// is common).
type Outbox struct {
	db  *sql.DB
	now func() time.Time
}

// NewOutbox returns the outbox on db. now is the clock (nil: time.Now); Sender uses it too, so
// a test can move time forward past a backoff or a lease.
func NewOutbox(db *sql.DB, now func() time.Time) *Outbox {
	if now == nil {
		now = time.Now
	}
	return &Outbox{db: db, now: now}
}

// Enqueue is the package Enqueue in a transaction of its own, for a mail that goes with no
// other write. When the key is taken already it returns the existing message's id with
// inserted=false.
func (o *Outbox) Enqueue(ctx context.Context, m Message) (id string, inserted bool, err error) {
	tx, err := o.db.BeginTx(ctx, nil)
	if err != nil {
		return "", false, fmt.Errorf("mail enqueue: %w", err)
	}
	defer tx.Rollback()
	id, inserted, err = Enqueue(ctx, tx, m, o.now())
	if err != nil {
		return "", false, err
	}
	if !inserted {
		existing, err := scanOne(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM mail_outbox WHERE dedupe_key = $1`, m.Key))
		if err != nil {
			return "", false, fmt.Errorf("mail enqueue (existing): %w", err)
		}
		id = existing.ID
	}
	if err := tx.Commit(); err != nil {
		return "", false, fmt.Errorf("mail enqueue commit: %w", err)
	}
	return id, inserted, nil
}

// Get reads one message by id.
func (o *Outbox) Get(ctx context.Context, id string) (Message, error) {
	return o.one(ctx, `SELECT `+columns+` FROM mail_outbox WHERE id = $1`, id)
}

// ByKey reads the message enqueued with a dedupe key.
func (o *Outbox) ByKey(ctx context.Context, key string) (Message, error) {
	return o.one(ctx, `SELECT `+columns+` FROM mail_outbox WHERE dedupe_key = $1`, key)
}

// Recent returns up to limit messages, newest first.
func (o *Outbox) Recent(ctx context.Context, limit int) ([]Message, error) {
	return o.query(ctx, `SELECT `+columns+` FROM mail_outbox ORDER BY created_at DESC, id DESC LIMIT $1`, limit)
}

// Undeliverable returns up to limit undeliverable messages, most recently given up first.
func (o *Outbox) Undeliverable(ctx context.Context, limit int) ([]Message, error) {
	return o.query(ctx, `SELECT `+columns+` FROM mail_outbox WHERE state = $1 ORDER BY updated_at DESC, id DESC LIMIT $2`,
		StateUndeliverable, limit)
}

// Retry makes an undeliverable message pending again, due now, its attempts and last error
// kept (so the next failure past the limit gives up at once). ErrNotFound when there is no
// such message, ErrNotUndeliverable when it is in another state.
func (o *Outbox) Retry(ctx context.Context, id string) (Message, error) {
	now := o.now().UnixMilli()
	res, err := o.db.ExecContext(ctx, `UPDATE mail_outbox SET state=$1, next_at=$2, lease_until=0, updated_at=$2
		WHERE id=$3 AND state=$4`, StatePending, now, id, StateUndeliverable)
	if err != nil {
		return Message{}, fmt.Errorf("mail retry %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Message{}, fmt.Errorf("mail retry %s: %w", id, err)
	}
	m, err := o.Get(ctx, id)
	if err != nil {
		return Message{}, err
	}
	if n == 0 {
		return m, fmt.Errorf("%w: %s is %s", ErrNotUndeliverable, id, m.State)
	}
	return m, nil
}

func (o *Outbox) one(ctx context.Context, q string, arg string) (Message, error) {
	m, err := scanOne(o.db.QueryRowContext(ctx, q, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, fmt.Errorf("%w: %s", ErrNotFound, arg)
	}
	if err != nil {
		return Message{}, fmt.Errorf("mail read %s: %w", arg, err)
	}
	return m, nil
}

func (o *Outbox) query(ctx context.Context, q string, args ...any) ([]Message, error) {
	rows, err := o.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("mail query: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanOne(rows)
		if err != nil {
			return nil, fmt.Errorf("mail query scan: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mail query: %w", err)
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanOne(r scanner) (Message, error) {
	var m Message
	var payload string
	var nextAt, leaseUntil, created, sent, updated int64
	var claimedBy string
	err := r.Scan(&m.ID, &m.Key, &m.Kind, &m.To, &m.Lang, &payload, &m.State, &m.Attempts, &m.LastError, &nextAt,
		&leaseUntil, &claimedBy, &m.MessageID, &created, &sent, &updated)
	if err != nil {
		return Message{}, err
	}
	m.Payload = []byte(payload)
	m.NextAt, m.CreatedAt, m.UpdatedAt = time.UnixMilli(nextAt), time.UnixMilli(created), time.UnixMilli(updated)
	if sent != 0 {
		m.SentAt = time.UnixMilli(sent)
	}
	return m, nil
}

// truncate keeps error texts short enough to store and show.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
