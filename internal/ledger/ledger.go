// Package ledger records every payment and refund the BFF asks the payment provider for, with
// its state written before and after each step. State changes are compare-and-set, so two
// requests (a double click, two tabs, two replicas, the reconciler) can never both act on the
// same step.
package ledger

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/sqlrows"
)

// Kind says which way the money goes.
type Kind string

const (
	KindPayment Kind = "payment" // the customer pays a positive balance
	KindRefund  Kind = "refund"  // the customer gets a negative balance back
	// KindSale is a purchase paid on a card reader (a walk-in, a kiosk guest): applied with
	// CompleteOrder. EditSessionID is then the order's user session; BookingNumber is set when
	// the order completes.
	KindSale Kind = "sale"
)

// State is where an entry stands. Payments: created → redirected → paid → applying → applied,
// or failed (declined / cancelled), or (paid but the edit is gone) refund_requested → refunded.
// Refunds: created → refund_requested → refunded → applying → applied.
type State string

const (
	StateCreated         State = "created"          // row written, provider not asked yet
	StateRedirected      State = "redirected"       // provider payment exists; customer sent to its page
	StatePaid            State = "paid"             // provider says paid; not yet applied to the booking
	StateApplying        State = "applying"         // complete-edit is being called (claimed by one worker)
	StateApplied         State = "applied"          // complete-edit accepted it: done
	StateRefundRequested State = "refund_requested" // provider refund asked for (idempotently)
	StateRefunded        State = "refunded"         // provider refunded
	StateFailed          State = "failed"           // nothing taken (declined, cancelled, never started)
)

// Terminal reports whether nothing more will happen to an entry of kind k in state s.
func (s State) Terminal(k Kind) bool {
	switch s {
	case StateApplied, StateFailed:
		return true
	case StateRefunded:
		return k != KindRefund // a reversed payment ends refunded; a refund still has to be applied
	}
	return false
}

// Entry is one payment or refund.
type Entry struct {
	ID                string
	Kind              Kind
	State             State
	IdempotencyKey    string
	AmountCents       int64
	Currency          string
	CinemaID          string
	BookingID         string
	BookingNumber     int64
	EditSessionID     string
	ProviderPaymentID string // the payment taken (payment) or refunded against (refund)
	ProviderReference string // reported to complete-edit
	RefundID          string
	CardMasked        string
	CardType          string
	HostedURL         string
	LastError         string
	Attempts          int
	// A refund split over several of the booking's payments is one entry per part: the parts
	// share RefundGroup and are numbered by RefundPart from 1 (newest payment first). Both are
	// empty for an entry that stands alone. Set at creation, never changed.
	RefundGroup string
	RefundPart  int
	// Notice is what to tell the customer when the entry settles (JSON written by the caller,
	// opaque to the ledger). Set at creation, never changed.
	Notice string
	// Actor is the staff member who took the payment at the box office; Tender its tender
	// category for complete-edit (card terminal, card reader, cash). Both empty for the
	// provider's online payments.
	Actor  string
	Tender string
	// ByHand: the money is taken or given back by hand at the box office (cash, a standalone
	// terminal), never through the payment provider. ReaderID: the provider's card reader a
	// card-present payment is taken on ("" otherwise). Both set at creation, never changed.
	ByHand    bool
	ReaderID  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ShortID is the entry's reference as people are shown it (Needs attention, a status page, a
// refusal): the first 12 characters of its id.
func (e Entry) ShortID() string { return e.ID[:min(12, len(e.ID))] }

// AtBoxOffice reports whether the entry's money is taken or given back by hand at the box
// office (cash, a standalone terminal), not through the payment provider.
func (e Entry) AtBoxOffice() bool { return e.ByHand }

// AtReader reports whether the entry is a card-present payment on the provider's card reader.
func (e Entry) AtReader() bool { return e.ReaderID != "" }

// ReaderAsking reports whether the card reader asks for the entry's payment, or is about to
// (written, not yet handed over): what stopping the reader is for.
func (e Entry) ReaderAsking() bool {
	return e.AtReader() && (e.State == StateCreated || e.State == StateRedirected)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Event is one recorded state change.
type Event struct {
	From, To State
	Note     string
	At       time.Time
}

var (
	// ErrNotFound: no entry with that id.
	ErrNotFound = errors.New("ledger entry not found")
	// ErrStateChanged: the entry was not in an expected state (someone else moved it first).
	ErrStateChanged = errors.New("ledger entry state changed concurrently")
)

// Store is the ledger on a database/sql handle (SQLite or PostgreSQL: the SQL is common).
type Store struct {
	db      *sql.DB
	now     func() time.Time
	moved   Hook
	forEdit *sqlrows.Prepared // asked on every view of a change
	sales   *sqlrows.Prepared // asked on every view of a booking
}

// Hook is called inside the transaction of every state change, with the entries as they are
// after it (the parts of a refund move together, in one call). What it writes commits or rolls
// back with the change; an error undoes the change. It is how a customer message is written
// in the same transaction as the ledger step that causes it.
type Hook func(ctx context.Context, tx *sql.Tx, moved []Entry) error

// OnTransition sets the hook; call it before the store is shared.
func (s *Store) OnTransition(h Hook) { s.moved = h }

// New returns a ledger on db.
func New(db *sql.DB) *Store {
	return &Store{db: db, now: time.Now,
		forEdit: sqlrows.Prepare(db, `SELECT `+columns+` FROM ledger_entries WHERE edit_session_id = $1 ORDER BY created_at DESC, id`),
		sales: sqlrows.Prepare(db, `SELECT COUNT(*) FROM ledger_entries
			WHERE kind = 'sale' AND state = 'applied' AND cinema_id = $1 AND booking_number = $2`)}
}

// NewID returns a random identifier (also used for idempotency keys).
func NewID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

const columns = `id, kind, state, idempotency_key, amount_cents, currency, cinema_id, booking_id, booking_number,
	edit_session_id, provider_payment_id, provider_reference, refund_id, card_masked, card_type, hosted_url,
	last_error, attempts, created_at, updated_at, refund_group, refund_part, notice, actor, tender, by_hand, reader_id`

// Create writes a new entry in state created. An entry with the same idempotency key is
// returned as it is instead (created=false): a repeated request never makes a second entry.
func (s *Store) Create(ctx context.Context, e Entry) (out Entry, created bool, err error) {
	if e.ID == "" {
		e.ID = NewID()
	}
	if e.IdempotencyKey == "" {
		return Entry{}, false, errors.New("ledger: idempotency key is required")
	}
	now := s.now()
	e.State, e.CreatedAt, e.UpdatedAt = StateCreated, now, now
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Entry{}, false, fmt.Errorf("ledger create: %w", err)
	}
	defer tx.Rollback()
	inserted, err := insertEntry(ctx, tx, e)
	if err != nil {
		return Entry{}, false, err
	}
	if !inserted {
		existing, err := scanOne(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM ledger_entries WHERE idempotency_key = $1`, e.IdempotencyKey))
		if err != nil {
			return Entry{}, false, fmt.Errorf("ledger create (existing): %w", err)
		}
		return existing, false, tx.Commit()
	}
	if err := insertEvent(ctx, tx, e.ID, "", StateCreated, "", now); err != nil {
		return Entry{}, false, err
	}
	if err := tx.Commit(); err != nil {
		return Entry{}, false, fmt.Errorf("ledger create commit: %w", err)
	}
	return e, true, nil
}

// insertEntry writes e unless its idempotency key is taken (inserted=false).
func insertEntry(ctx context.Context, tx *sql.Tx, e Entry) (inserted bool, err error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO ledger_entries (`+columns+`)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27)
		ON CONFLICT (idempotency_key) DO NOTHING`,
		e.ID, e.Kind, e.State, e.IdempotencyKey, e.AmountCents, e.Currency, e.CinemaID, e.BookingID, e.BookingNumber,
		e.EditSessionID, e.ProviderPaymentID, e.ProviderReference, e.RefundID, e.CardMasked, e.CardType, e.HostedURL,
		e.LastError, e.Attempts, e.CreatedAt.UnixMilli(), e.UpdatedAt.UnixMilli(), e.RefundGroup, e.RefundPart, e.Notice, e.Actor, e.Tender,
		boolInt(e.ByHand), e.ReaderID)
	if err != nil {
		return false, fmt.Errorf("ledger create: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// CreateGroup writes the parts of one refund in one transaction, in state created: they share
// a new RefundGroup and are numbered 1, 2, … in the order given. Every part needs its own
// idempotency key. When the first part's key is taken already (a repeated request, a second
// tab), nothing is written and the group that key belongs to is returned as it is
// (created=false), so a repeat never makes a second refund.
func (s *Store) CreateGroup(ctx context.Context, parts []Entry) (out []Entry, created bool, err error) {
	if len(parts) == 0 {
		return nil, false, errors.New("ledger: a group needs at least one part")
	}
	group := NewID()
	now := s.now()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("ledger create group: %w", err)
	}
	defer tx.Rollback()
	for i, e := range parts {
		if e.IdempotencyKey == "" {
			return nil, false, errors.New("ledger: idempotency key is required")
		}
		if e.ID == "" {
			e.ID = NewID()
		}
		e.State, e.CreatedAt, e.UpdatedAt = StateCreated, now, now
		e.RefundGroup, e.RefundPart = group, i+1
		inserted, err := insertEntry(ctx, tx, e)
		if err != nil {
			return nil, false, err
		}
		if !inserted {
			if i > 0 {
				return nil, false, fmt.Errorf("ledger create group: the key of part %d is taken, the first part's is not", i+1)
			}
			existing, err := scanOne(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM ledger_entries WHERE idempotency_key = $1`, e.IdempotencyKey))
			if err != nil {
				return nil, false, fmt.Errorf("ledger create group (existing): %w", err)
			}
			_ = tx.Rollback()
			out, err := s.Group(ctx, existing)
			return out, false, err
		}
		if err := insertEvent(ctx, tx, e.ID, "", StateCreated, fmt.Sprintf("refund part %d of %d", i+1, len(parts)), now); err != nil {
			return nil, false, err
		}
		out = append(out, e)
	}
	if err := tx.Commit(); err != nil {
		return nil, false, fmt.Errorf("ledger create group commit: %w", err)
	}
	return out, true, nil
}

// Group returns the parts of e's refund group in part order; an entry outside any group is a
// group of one.
func (s *Store) Group(ctx context.Context, e Entry) ([]Entry, error) {
	if e.RefundGroup == "" {
		return []Entry{e}, nil
	}
	out, err := s.query(ctx, `SELECT `+columns+` FROM ledger_entries WHERE refund_group = $1 ORDER BY refund_part, id`, e.RefundGroup)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: group %s", ErrNotFound, e.RefundGroup)
	}
	return out, nil
}

// Get reads one entry.
func (s *Store) Get(ctx context.Context, id string) (Entry, error) {
	e, err := scanOne(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM ledger_entries WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return e, err
}

// Transition moves an entry from one of the states in from to state to, applying change to the
// other fields, and records the event. If the entry is no longer in one of from (someone else
// moved it), nothing is written and ErrStateChanged is returned.
func (s *Store) Transition(ctx context.Context, id string, from []State, to State, note string, change func(*Entry)) (Entry, error) {
	out, err := s.TransitionAll(ctx, []string{id}, from, to, note, change)
	if len(out) == 1 {
		return out[0], err
	}
	return Entry{}, err
}

// TransitionAll is Transition for several entries at once (the parts of a refund), all or
// none: if any of them is no longer in one of from, nothing is written and ErrStateChanged is
// returned. It is the compare-and-set that lets exactly one worker claim a whole group.
func (s *Store) TransitionAll(ctx context.Context, ids []string, from []State, to State, note string, change func(*Entry)) ([]Entry, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("ledger transition: %w", err)
	}
	defer tx.Rollback()
	out := make([]Entry, 0, len(ids))
	now := s.now()
	for _, id := range ids {
		e, err := transitionTx(ctx, tx, id, from, to, note, change, now)
		if err != nil {
			if len(ids) == 1 {
				return []Entry{e}, err
			}
			return nil, err
		}
		out = append(out, e)
	}
	if s.moved != nil {
		if err := s.moved(ctx, tx, out); err != nil {
			return nil, fmt.Errorf("ledger transition hook: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("ledger transition commit: %w", err)
	}
	return out, nil
}

func transitionTx(ctx context.Context, tx *sql.Tx, id string, from []State, to State, note string, change func(*Entry), now time.Time) (Entry, error) {
	e, err := scanOne(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM ledger_entries WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("ledger transition read: %w", err)
	}
	if !contains(from, e.State) {
		return e, fmt.Errorf("%w: %s is %s, wanted one of %v", ErrStateChanged, id, e.State, from)
	}
	prev := e.State
	if change != nil {
		change(&e)
	}
	e.State = to
	e.UpdatedAt = now
	// The WHERE on the old state makes this a compare-and-set even across replicas.
	args := []any{e.State, e.ProviderPaymentID, e.ProviderReference, e.RefundID, e.CardMasked, e.CardType,
		e.HostedURL, e.LastError, e.Attempts, e.UpdatedAt.UnixMilli(), e.ID, prev, e.BookingNumber}
	res, err := tx.ExecContext(ctx, `UPDATE ledger_entries SET state=$1, provider_payment_id=$2, provider_reference=$3,
		refund_id=$4, card_masked=$5, card_type=$6, hosted_url=$7, last_error=$8, attempts=$9, updated_at=$10,
		booking_number=$13 WHERE id=$11 AND state=$12`, args...)
	if err != nil {
		return Entry{}, fmt.Errorf("ledger transition write: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return e, fmt.Errorf("%w: %s", ErrStateChanged, id)
	}
	if err := insertEvent(ctx, tx, e.ID, prev, to, note, e.UpdatedAt); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// Note records a failed attempt (error text, attempt count) without changing the state.
func (s *Store) Note(ctx context.Context, id string, errText string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE ledger_entries SET last_error=$1, attempts=attempts+1, updated_at=$2 WHERE id=$3`,
		truncate(errText, 500), s.now().UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("ledger note: %w", err)
	}
	return nil
}

// ForEdit returns the entries of an edit, newest first.
func (s *Store) ForEdit(ctx context.Context, editSessionID string) ([]Entry, error) {
	return collect(s.forEdit.Query(ctx, editSessionID))
}

// AppliedLike counts the other applied entries of e's kind on e's booking with e's provider
// reference and amount: the booking payments they account for.
func (s *Store) AppliedLike(ctx context.Context, e Entry) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM ledger_entries
		WHERE id <> $1 AND kind = $2 AND state = 'applied' AND cinema_id = $3 AND booking_number = $4
			AND lower(provider_reference) = lower($5) AND amount_cents = $6`,
		e.ID, e.Kind, e.CinemaID, e.BookingNumber, strings.TrimSpace(e.ProviderReference), e.AmountCents).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("ledger: entries like %s: %w", e.ID, err)
	}
	return n, nil
}

// GivenBack is how much of the payment with reference paymentRef refunds have given back
// (parts refunded or applied; refunds in progress not counted), in cents.
func (s *Store) GivenBack(ctx context.Context, paymentRef string) (int64, error) {
	var cents sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT SUM(amount_cents) FROM ledger_entries
		WHERE kind = 'refund' AND provider_payment_id = $1 AND state IN ('refunded','applying','applied')`, paymentRef).Scan(&cents)
	if err != nil {
		return 0, fmt.Errorf("ledger: given back of %s: %w", paymentRef, err)
	}
	return cents.Int64, nil
}

// Unfinished returns entries that still need work (for the reconciler), oldest first.
func (s *Store) Unfinished(ctx context.Context) ([]Entry, error) {
	return s.query(ctx, `SELECT `+columns+` FROM ledger_entries
		WHERE state IN ('created','redirected','paid','applying','refund_requested') OR (kind='refund' AND state='refunded')
		ORDER BY created_at, id`)
}

// Events returns the recorded state changes of an entry, oldest first.
func (s *Store) Events(ctx context.Context, id string) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT from_state, to_state, note, at FROM ledger_events WHERE entry_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("ledger events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var ev Event
		var at int64
		if err := rows.Scan(&ev.From, &ev.To, &ev.Note, &at); err != nil {
			return nil, fmt.Errorf("ledger events scan: %w", err)
		}
		ev.At = time.UnixMilli(at)
		out = append(out, ev)
	}
	return out, rows.Err()
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Entry, error) {
	return collect(s.db.QueryContext(ctx, q, args...))
}

// collect reads the entries of a query's rows, or says the query failed.
func collect(rows *sql.Rows, err error) ([]Entry, error) {
	if err != nil {
		return nil, fmt.Errorf("ledger query: %w", err)
	}
	return sqlrows.Collect(rows, scanOne)
}

func scanOne(r sqlrows.Scanner) (Entry, error) {
	var e Entry
	var created, updated, byHand int64
	err := r.Scan(&e.ID, &e.Kind, &e.State, &e.IdempotencyKey, &e.AmountCents, &e.Currency, &e.CinemaID, &e.BookingID,
		&e.BookingNumber, &e.EditSessionID, &e.ProviderPaymentID, &e.ProviderReference, &e.RefundID, &e.CardMasked,
		&e.CardType, &e.HostedURL, &e.LastError, &e.Attempts, &created, &updated, &e.RefundGroup, &e.RefundPart, &e.Notice, &e.Actor, &e.Tender,
		&byHand, &e.ReaderID)
	if err != nil {
		return Entry{}, err
	}
	e.CreatedAt, e.UpdatedAt, e.ByHand = time.UnixMilli(created), time.UnixMilli(updated), byHand != 0
	return e, nil
}

func insertEvent(ctx context.Context, tx *sql.Tx, id string, from, to State, note string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO ledger_events (entry_id, from_state, to_state, note, at) VALUES ($1,$2,$3,$4,$5)`,
		id, string(from), string(to), truncate(note, 500), at.UnixMilli())
	if err != nil {
		return fmt.Errorf("ledger event: %w", err)
	}
	return nil
}

func contains(states []State, s State) bool {
	for _, x := range states {
		if x == s {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) <= n {
		return s
	}
	return s[:n]
}
