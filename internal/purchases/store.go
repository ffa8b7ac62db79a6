// Package purchases holds the non-HTTP parts of the purchase flow: the record of every redirect
// payment the BFF starts (so a return from the provider can be checked against it and a
// double click never starts a second payment) and the coalescing poller of the upstream's
// order details.
package purchases

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cinemabff/cinemabff/internal/sqlrows"
)

// State is where a redirect payment stands.
type State string

const (
	StateStarting    State = "starting"     // row written, ExternalPaymentStarting not answered yet
	StateAwaiting    State = "awaiting"     // the provider page exists; waiting for payment and completion
	StateCompleted   State = "completed"    // IsCompletedOrder: booked
	StateDeclined    State = "declined"     // declined at the provider: nothing taken
	StateCancelled   State = "cancelled"    // cancelled by the customer: nothing taken
	StateStartFailed State = "start_failed" // the start was refused or failed: nothing taken
	StateGivenUp     State = "given_up"     // never completed within the watch window: order cancelled upstream
)

// Active reports whether a payment in this state may still take money.
func (s State) Active() bool { return s == StateStarting || s == StateAwaiting }

// Errors of the store.
var (
	ErrNotFound     = errors.New("checkout: payment record not found")
	ErrActiveExists = errors.New("checkout: a payment is already under way for this order")
)

// Record is one redirect payment start.
type Record struct {
	ID            string // our reference, unguessable; part of the ReturnUrl path
	UserSessionID string
	CinemaID      string
	SessionID     string
	CustomerName  string
	CustomerEmail string
	State         State
	AmountCents   int64
	Currency      string
	RedirectURL   string
	ExpectedToken string // the provider's token as the upstream reported it after the start
	VerifiedToken string // the token that came back on the return address and matched
	BookingNumber int64
	Summary       string // JSON snapshot of the order at the start, for the confirmation
	LastError     string
	Created       time.Time
	Returned      time.Time // first verified return from the provider (zero: not yet)
	Completed     time.Time
	Updated       time.Time
	// GivenUp is when the order was given up (zero: not given up); GiveUpReason says why and
	// what happened upstream; OrderCancelled reports that CancelOrder was accepted (the seats
	// were released), false when the upstream refused or could not be asked.
	GivenUp        time.Time
	GiveUpReason   string
	OrderCancelled bool
}

// Reference is the short form a customer quotes (the first 12 characters, grouped).
func (r Record) Reference() string {
	id := r.ID
	if len(id) > 12 {
		id = id[:12]
	}
	out := []byte{}
	for i := 0; i < len(id); i++ {
		if i > 0 && i%4 == 0 {
			out = append(out, '-')
		}
		c := id[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

// TokenMatches compares a returned token with the record's expected (or already verified)
// token in constant time. An empty token never matches.
func (r Record) TokenMatches(token string) bool {
	if token == "" {
		return false
	}
	want := r.VerifiedToken
	if want == "" {
		want = r.ExpectedToken
	}
	if want == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(token)) == 1
}

// NewID returns a new unguessable record id (128 random bits, hex).
func NewID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Store keeps the records in the BFF's database (SQLite or PostgreSQL: one SQL for both).
type Store struct {
	db      *sql.DB
	now     func() time.Time
	changed Hook

	// The reads a waiting order repeats (the return page's poll, the background check) run as
	// statements prepared once: parsing the SQL again cost more than running it.
	get, active *sqlrows.Prepared
	reads       atomic.Int64 // records read by Get and Active (tests count them)
}

// NewStore returns a store on db. now may be nil (time.Now).
func NewStore(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now, get: sqlrows.Prepare(db, getQuery), active: sqlrows.Prepare(db, activeQuery)}
}

const columns = `id, user_session_id, cinema_id, session_id, customer_name, customer_email, state, amount_cents,
	currency, redirect_url, expected_token, verified_token, booking_number, summary, last_error,
	created_at, returned_at, completed_at, updated_at, given_up_at, give_up_reason, order_cancelled`

func scan(row sqlrows.Scanner) (Record, error) {
	var r Record
	var state string
	var created, returned, completed, updated, givenUp, cancelled int64
	err := row.Scan(&r.ID, &r.UserSessionID, &r.CinemaID, &r.SessionID, &r.CustomerName, &r.CustomerEmail, &state,
		&r.AmountCents, &r.Currency, &r.RedirectURL, &r.ExpectedToken, &r.VerifiedToken, &r.BookingNumber, &r.Summary,
		&r.LastError, &created, &returned, &completed, &updated, &givenUp, &r.GiveUpReason, &cancelled)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("checkout: read record: %w", err)
	}
	r.State = State(state)
	r.Created, r.Returned, r.Completed, r.Updated = sqlrows.Time(created), sqlrows.Time(returned), sqlrows.Time(completed), sqlrows.Time(updated)
	r.GivenUp, r.OrderCancelled = sqlrows.Time(givenUp), cancelled != 0
	return r, nil
}

// Create writes a new record in state starting. If the order already has a starting or
// awaiting record, nothing is written and ErrActiveExists is returned with that record.
func (s *Store) Create(ctx context.Context, r Record) (Record, error) {
	if r.ID == "" {
		r.ID = NewID()
	}
	now := s.now()
	r.State, r.Created, r.Updated = StateStarting, now, now
	res, err := s.db.ExecContext(ctx, `INSERT INTO checkout_payments (`+columns+`)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22)
		ON CONFLICT DO NOTHING`,
		r.ID, r.UserSessionID, r.CinemaID, r.SessionID, r.CustomerName, r.CustomerEmail, string(r.State), r.AmountCents,
		r.Currency, r.RedirectURL, r.ExpectedToken, r.VerifiedToken, r.BookingNumber, r.Summary, r.LastError,
		sqlrows.Millis(r.Created), sqlrows.Millis(r.Returned), sqlrows.Millis(r.Completed), sqlrows.Millis(r.Updated), int64(0), "", 0)
	if err != nil {
		return r, fmt.Errorf("checkout: create record: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		existing, err := s.Active(ctx, r.UserSessionID)
		if err != nil {
			return r, fmt.Errorf("checkout: record not written and no active one: %w", err)
		}
		return existing, ErrActiveExists
	}
	return r, nil
}

const (
	getQuery    = `SELECT ` + columns + ` FROM checkout_payments WHERE id = $1`
	activeQuery = `SELECT ` + columns + ` FROM checkout_payments
		WHERE user_session_id = $1 AND state IN ('starting', 'awaiting') ORDER BY created_at DESC LIMIT 1`
)

// read counts a read of a record (tests count them) and runs it.
func (s *Store) read(ctx context.Context, q *sqlrows.Prepared, arg string) *sql.Row {
	s.reads.Add(1)
	return q.QueryRow(ctx, arg)
}

// Get reads one record.
func (s *Store) Get(ctx context.Context, id string) (Record, error) {
	return scan(s.read(ctx, s.get, id))
}

// Active returns the order's starting or awaiting record.
func (s *Store) Active(ctx context.Context, userSessionID string) (Record, error) {
	return scan(s.read(ctx, s.active, userSessionID))
}

// Latest returns the order's newest record of any state.
func (s *Store) Latest(ctx context.Context, userSessionID string) (Record, error) {
	return scan(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM checkout_payments
		WHERE user_session_id = $1 ORDER BY created_at DESC LIMIT 1`, userSessionID))
}

// Pending lists the records still awaiting payment or completion (for background checks after
// a restart): awaiting ones, and starting ones whose start began before startedBefore (a crash
// between the record and the upstream's answer; a zero time leaves starting ones out).
func (s *Store) Pending(ctx context.Context, limit int, startedBefore ...time.Time) ([]Record, error) {
	cut := int64(0)
	if len(startedBefore) > 0 {
		cut = sqlrows.Millis(startedBefore[0])
	}
	return s.list(ctx, `SELECT `+columns+` FROM checkout_payments WHERE state = 'awaiting' OR (state = 'starting' AND created_at < $2)
		ORDER BY created_at LIMIT $1`, limit, cut)
}

// NeedingAttention lists what staff should look at: records still starting or awaiting that
// began before stuckBefore, and given-up records, oldest first.
func (s *Store) NeedingAttention(ctx context.Context, stuckBefore time.Time, limit int) ([]Record, error) {
	return s.list(ctx, `SELECT `+columns+` FROM checkout_payments
		WHERE (state IN ('starting', 'awaiting') AND created_at < $2) OR state = 'given_up'
		ORDER BY created_at LIMIT $1`, limit, sqlrows.Millis(stuckBefore))
}

func (s *Store) list(ctx context.Context, q string, args ...any) ([]Record, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("checkout: list records: %w", err)
	}
	return sqlrows.Collect(rows, scan)
}

// update runs a compare-and-set UPDATE: only records in one of the from states change. The
// hook (OnChange) sees the record before and after, inside the same transaction.
func (s *Store) update(ctx context.Context, id string, from []State, set string, args ...any) (Record, error) {
	q := `UPDATE checkout_payments SET ` + set + `, updated_at = $1 WHERE id = $2 AND state IN (`
	all := append([]any{s.now().UnixMilli(), id}, args...)
	for i, f := range from {
		if i > 0 {
			q += ", "
		}
		all = append(all, string(f))
		q += fmt.Sprintf("$%d", len(all))
	}
	q += ")"
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, fmt.Errorf("checkout: update record: %w", err)
	}
	defer tx.Rollback()
	get := func() (Record, error) {
		return scan(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM checkout_payments WHERE id = $1`, id))
	}
	before, err := get()
	if err != nil {
		return before, err
	}
	res, err := tx.ExecContext(ctx, q, all...)
	if err != nil {
		return Record{}, fmt.Errorf("checkout: update record: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return before, fmt.Errorf("checkout: record %s is %s: %w", id, before.State, errStateChanged)
	}
	after, err := get()
	if err != nil {
		return after, err
	}
	if s.changed != nil && after.State != before.State {
		if err := s.changed(ctx, tx, before, after); err != nil {
			return before, fmt.Errorf("checkout: record %s change hook: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return before, fmt.Errorf("checkout: update record commit: %w", err)
	}
	return after, nil
}

// Hook is called inside the transaction of every change of a record's state, with the record
// before and after. What it writes commits or rolls back with the change; an error undoes the
// change. It is how the customer's message about a completed or given-up order is written in
// the same transaction as the record.
type Hook func(ctx context.Context, tx *sql.Tx, before, after Record) error

// OnChange sets the hook; call it before the store is shared.
func (s *Store) OnChange(h Hook) { s.changed = h }

var errStateChanged = errors.New("state changed under us")

// IsStateChanged reports whether err says a compare-and-set found another state.
func IsStateChanged(err error) bool { return errors.Is(err, errStateChanged) }

// MarkAwaiting records a successful start: the provider's page and the expected token.
func (s *Store) MarkAwaiting(ctx context.Context, id, redirectURL, expectedToken string) (Record, error) {
	return s.update(ctx, id, []State{StateStarting}, `state = 'awaiting', redirect_url = $3, expected_token = $4`, redirectURL, expectedToken)
}

// MarkStartFailed records a start that did not happen (nothing can be taken).
func (s *Store) MarkStartFailed(ctx context.Context, id, reason string) (Record, error) {
	return s.update(ctx, id, []State{StateStarting}, `state = 'start_failed', last_error = $3`, reason)
}

// MarkReturned stores the token that came back and matched (an empty token keeps the one
// stored), and the time of the first return: the failed-order clock starts there.
func (s *Store) MarkReturned(ctx context.Context, id, token string) (Record, error) {
	return s.update(ctx, id, []State{StateAwaiting, StateCompleted, StateDeclined, StateCancelled},
		`verified_token = CASE WHEN $3 = '' THEN verified_token ELSE $3 END,
		returned_at = CASE WHEN returned_at = 0 THEN $1 ELSE returned_at END`, token)
}

// MarkCompleted records the completed booking. A given-up record may still complete: the
// upstream's word that the order is booked wins over our having stopped waiting.
func (s *Store) MarkCompleted(ctx context.Context, id string, bookingNumber int64) (Record, error) {
	return s.update(ctx, id, []State{StateAwaiting, StateStarting, StateGivenUp}, `state = 'completed', booking_number = $3, completed_at = $1`, bookingNumber)
}

// Buyer is the name and e-mail the order's newest record was made with (a sale on a card
// reader is completed with them).
func (s *Store) Buyer(ctx context.Context, userSessionID string) (name, email string, err error) {
	r, err := s.Latest(ctx, userSessionID)
	if err != nil {
		return "", "", err
	}
	return r.CustomerName, r.CustomerEmail, nil
}

// Completed records that the order became booking number (a sale on a card reader): its
// newest record is marked completed, once; a record already completed with that number is
// left as it is.
func (s *Store) Completed(ctx context.Context, userSessionID string, number int64) error {
	r, err := s.Latest(ctx, userSessionID)
	if err != nil {
		return err
	}
	if r.State == StateCompleted && r.BookingNumber == number {
		return nil
	}
	_, err = s.MarkCompleted(ctx, r.ID, number)
	return err
}

// MarkGivenUp records an order given up after the watch window: why, and whether CancelOrder
// was accepted upstream.
func (s *Store) MarkGivenUp(ctx context.Context, id, reason string, cancelled bool) (Record, error) {
	c := 0
	if cancelled {
		c = 1
	}
	return s.update(ctx, id, []State{StateAwaiting, StateStarting}, `state = 'given_up', given_up_at = $1, give_up_reason = $3, order_cancelled = $4`, reason, c)
}

// MarkEnded records a payment that ended without money taken (declined or cancelled).
func (s *Store) MarkEnded(ctx context.Context, id string, state State) (Record, error) {
	if state != StateDeclined && state != StateCancelled {
		return Record{}, fmt.Errorf("checkout: %s is not an ending state", state)
	}
	return s.update(ctx, id, []State{StateAwaiting}, `state = $3`, string(state))
}
