// Package attention is staff's "Needs attention" list: redirect-payment orders that are stuck
// (still being checked after a few minutes, or given up and not resolved), ledger entries
// waiting for staff review, refunds or payments that keep failing, and customer e-mail that
// could not be delivered. It lists them from the
// checkout records and the ledger, and records every action staff take on an item (retry, or
// mark resolved with a mandatory note) with who did it and when. A resolved item leaves the
// list for good.
package attention

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/sqlrows"
)

// Kind says where an item comes from.
type Kind string

const (
	KindCheckout Kind = "checkout" // a redirect-payment order (checkout_payments); Ref is the record id
	KindLedger   Kind = "ledger"   // a payment or refund of an edit (ledger_entries); Ref is the entry id
	KindMail     Kind = "mail"     // a customer e-mail that could not be delivered (mail_outbox); Ref is the message id
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == KindCheckout || k == KindLedger || k == KindMail }

// Money reports whether items of kind k concern money (a payment or refund, an order that may
// have been paid): only a supervisor may mark one resolved, or approve a clerk's resolve.
func (k Kind) Money() bool { return k == KindCheckout || k == KindLedger }

// ActionKind is what staff did.
type ActionKind string

const (
	ActionRetry   ActionKind = "retry"   // check the order now / advance the ledger entry
	ActionResolve ActionKind = "resolve" // handled by people; the item leaves the list
)

// Reason says why an item is on the list.
type Reason string

const (
	ReasonStuckOrder   Reason = "stuck_order"   // a redirect payment still being checked after StuckAfter
	ReasonGivenUp      Reason = "given_up"      // checked for the whole window, then given up
	ReasonReview       Reason = "review"        // a failed ledger entry marked for staff review (money moved)
	ReasonKeepsFailing Reason = "keeps_failing" // an unfinished ledger entry that failed MinAttempts times
	ReasonUndelivered  Reason = "undelivered"   // a customer e-mail the sender gave up on
)

// MaxNote is the longest note accepted, in characters.
const MaxNote = 1000

var (
	// ErrNoteRequired: marking an item resolved needs a note saying what was done.
	ErrNoteRequired = errors.New("attention: a note is required to mark an item resolved")
	// ErrNoteTooLong: the note is longer than MaxNote characters.
	ErrNoteTooLong = fmt.Errorf("attention: the note is longer than %d characters", MaxNote)
	// ErrApprovalRequired: resolving an item about money names no supervisor (ApprovedBy).
	ErrApprovalRequired = errors.New("attention: resolving an item about money needs a supervisor")
	// ErrAlreadyResolved: someone marked the item resolved before.
	ErrAlreadyResolved = errors.New("attention: the item is already resolved")
	// ErrInvalid: an unknown kind or action, an empty reference or staff name.
	ErrInvalid = errors.New("attention: invalid action")
)

// Action is one recorded action of a staff member on an item.
type Action struct {
	ID     int64
	Kind   Kind
	Ref    string
	Action ActionKind
	Note   string
	Staff  string // the staff member's username
	// ApprovedBy is the supervisor who resolved an item about money, or approved a clerk's
	// resolve of it (their own username when they did it themselves); "" otherwise.
	ApprovedBy string
	At         time.Time
}

// Store records actions (SQLite or PostgreSQL: one SQL for both).
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// New returns a store on db. now may be nil (time.Now).
func New(db *sql.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// Record writes an action. A resolve needs a note (ErrNoteRequired) and marks the item
// resolved in the same transaction; resolving an item resolved before writes nothing and
// returns ErrAlreadyResolved with the earlier resolve.
func (s *Store) Record(ctx context.Context, a Action) (Action, error) {
	if err := a.prepare(); err != nil {
		return a, err
	}
	a.At = s.now()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return a, fmt.Errorf("attention: record: %w", err)
	}
	defer tx.Rollback()
	if a.Action == ActionResolve {
		if prev, err := resolvedBy(ctx, tx, a.Kind, a.Ref); err == nil {
			return prev, ErrAlreadyResolved
		} else if !errors.Is(err, sql.ErrNoRows) {
			return a, err
		}
	}
	if err := tx.QueryRowContext(ctx, `INSERT INTO attention_actions (kind, ref, action, note, staff_username, approved_by, at)
		VALUES ($1,$2,$3,$4,$5,$6,$7) RETURNING id`, string(a.Kind), a.Ref, string(a.Action), a.Note, a.Staff, a.ApprovedBy, a.At.UnixMilli()).Scan(&a.ID); err != nil {
		return a, fmt.Errorf("attention: record action: %w", err)
	}
	if a.Action == ActionResolve {
		if prev, err := s.markResolved(ctx, tx, a); err != nil {
			return prev, err
		}
	}
	if err := tx.Commit(); err != nil {
		return a, fmt.Errorf("attention: commit: %w", err)
	}
	return a, nil
}

// prepare trims the action's words and refuses one that cannot be recorded: an unknown kind
// or action, no reference or staff member, a resolve without a note, a note too long, a
// resolve of an item about money without a supervisor.
func (a *Action) prepare() error {
	a.Note = strings.TrimSpace(a.Note)
	a.Staff = strings.TrimSpace(a.Staff)
	if !a.Kind.Valid() || a.Ref == "" || a.Staff == "" || (a.Action != ActionRetry && a.Action != ActionResolve) {
		return ErrInvalid
	}
	if a.Action == ActionResolve && a.Note == "" {
		return ErrNoteRequired
	}
	if utf8.RuneCountInString(a.Note) > MaxNote {
		return ErrNoteTooLong
	}
	a.ApprovedBy = strings.TrimSpace(a.ApprovedBy)
	if a.Action == ActionResolve && a.Kind.Money() && a.ApprovedBy == "" {
		return ErrApprovalRequired
	}
	return nil
}

// markResolved marks the item of resolve a resolved within tx. When another resolve
// committed between our check and our insert, it rolls tx back and returns that resolve with
// ErrAlreadyResolved.
func (s *Store) markResolved(ctx context.Context, tx *sql.Tx, a Action) (Action, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO attention_resolved (kind, ref, action_id, staff_username, resolved_at)
		VALUES ($1,$2,$3,$4,$5) ON CONFLICT DO NOTHING`, string(a.Kind), a.Ref, a.ID, a.Staff, a.At.UnixMilli())
	if err != nil {
		return a, fmt.Errorf("attention: mark resolved: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Another resolve committed between our check and our insert.
		_ = tx.Rollback()
		prev, err := resolvedBy(ctx, s.db, a.Kind, a.Ref)
		if err != nil {
			return a, fmt.Errorf("attention: resolved concurrently: %w", err)
		}
		return prev, ErrAlreadyResolved
	}
	return a, nil
}

type queryRower interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// resolvedBy returns the action that resolved the item (sql.ErrNoRows: not resolved).
func resolvedBy(ctx context.Context, db queryRower, kind Kind, ref string) (Action, error) {
	row := db.QueryRowContext(ctx, `SELECT a.id, a.kind, a.ref, a.action, a.note, a.staff_username, a.approved_by, a.at
		FROM attention_resolved r JOIN attention_actions a ON a.id = r.action_id WHERE r.kind = $1 AND r.ref = $2`, string(kind), ref)
	return scanAction(row)
}

func scanAction(row sqlrows.Scanner) (Action, error) {
	var a Action
	var kind, action string
	var at int64
	if err := row.Scan(&a.ID, &kind, &a.Ref, &action, &a.Note, &a.Staff, &a.ApprovedBy, &at); err != nil {
		return a, err
	}
	a.Kind, a.Action, a.At = Kind(kind), ActionKind(action), time.UnixMilli(at)
	return a, nil
}

// Resolution returns the action that marked the item resolved; ok=false when it is not.
func (s *Store) Resolution(ctx context.Context, kind Kind, ref string) (Action, bool, error) {
	a, err := resolvedBy(ctx, s.db, kind, ref)
	if errors.Is(err, sql.ErrNoRows) {
		return Action{}, false, nil
	}
	if err != nil {
		return Action{}, false, fmt.Errorf("attention: read resolution: %w", err)
	}
	return a, true, nil
}

// Actions returns every action on an item, oldest first.
func (s *Store) Actions(ctx context.Context, kind Kind, ref string) ([]Action, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, ref, action, note, staff_username, approved_by, at FROM attention_actions
		WHERE kind = $1 AND ref = $2 ORDER BY id`, string(kind), ref)
	if err != nil {
		return nil, fmt.Errorf("attention: list actions: %w", err)
	}
	out, err := sqlrows.Collect(rows, scanAction)
	if err != nil {
		return nil, fmt.Errorf("attention: read action: %w", err)
	}
	return out, nil
}

// state returns, for the given refs of one kind, which are resolved and the last action on
// each.
func (s *Store) state(ctx context.Context, kind Kind, refs []string) (resolved map[string]bool, last map[string]Action, err error) {
	resolved, last = map[string]bool{}, map[string]Action{}
	if len(refs) == 0 {
		return resolved, last, nil
	}
	args := []any{string(kind)}
	marks := make([]string, len(refs))
	for i, r := range refs {
		args = append(args, r)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	in := strings.Join(marks, ",")
	rows, err := s.db.QueryContext(ctx, `SELECT ref FROM attention_resolved WHERE kind = $1 AND ref IN (`+in+`)`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("attention: read resolved: %w", err)
	}
	for rows.Next() {
		var ref string
		if err := rows.Scan(&ref); err != nil {
			rows.Close()
			return nil, nil, err
		}
		resolved[ref] = true
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, `SELECT id, kind, ref, action, note, staff_username, approved_by, at FROM attention_actions
		WHERE kind = $1 AND ref IN (`+in+`) ORDER BY id`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("attention: read actions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAction(rows)
		if err != nil {
			return nil, nil, err
		}
		last[a.Ref] = a // ordered by id: the last one wins
	}
	return resolved, last, rows.Err()
}

// Item is one thing on the list.
type Item struct {
	Kind        Kind
	Ref         string // the record or entry id (what the actions name)
	Reference   string // what a customer quotes: XXXX-XXXX-XXXX (checkout) or the entry id's first 12 characters (ledger)
	Reason      Reason
	AmountCents int64
	Currency    string
	CinemaID    string
	Since       time.Time         // the payment's or entry's creation: the item's age counts from here
	Checkout    *purchases.Record // set for KindCheckout
	Entry       *ledger.Entry     // set for KindLedger
	Mail        *mail.Message     // set for KindMail
	Last        *Action           // the last action taken on it, if any
}

// Lister builds the list.
type Lister struct {
	Checkouts *purchases.Store
	Ledger    *ledger.Store // nil: no ledger items
	Mail      *mail.Outbox  // nil: no e-mail items
	Actions   *Store
	Now       func() time.Time
	// StuckAfter: a redirect payment still starting or awaiting this long after it started is
	// listed (default 10 minutes).
	StuckAfter time.Duration
	// MinAttempts: an unfinished ledger entry is listed once it failed this often (default 3).
	MinAttempts int
	// Limit bounds each source (default 500).
	Limit int
}

func (l Lister) defaults() Lister {
	if l.Now == nil {
		l.Now = time.Now
	}
	if l.StuckAfter <= 0 {
		l.StuckAfter = 10 * time.Minute
	}
	if l.MinAttempts <= 0 {
		l.MinAttempts = 3
	}
	if l.Limit <= 0 {
		l.Limit = 500
	}
	return l
}

// List returns the unresolved items, oldest first.
func (l Lister) List(ctx context.Context) ([]Item, error) {
	l = l.defaults()
	var out []Item
	if l.Checkouts != nil {
		recs, err := l.Checkouts.NeedingAttention(ctx, l.Now().Add(-l.StuckAfter), l.Limit)
		if err != nil {
			return nil, err
		}
		items := make([]Item, 0, len(recs))
		for i := range recs {
			r := &recs[i]
			it := Item{Kind: KindCheckout, Ref: r.ID, Reference: r.Reference(), Reason: ReasonStuckOrder, AmountCents: r.AmountCents,
				Currency: r.Currency, CinemaID: r.CinemaID, Since: r.Created, Checkout: r}
			if r.State == purchases.StateGivenUp {
				it.Reason = ReasonGivenUp
			}
			items = append(items, it)
		}
		kept, err := l.withState(ctx, KindCheckout, items)
		if err != nil {
			return nil, err
		}
		out = append(out, kept...)
	}
	if l.Ledger != nil {
		entries, err := l.Ledger.NeedingReview(ctx, l.MinAttempts)
		if err != nil {
			return nil, err
		}
		items := make([]Item, 0, len(entries))
		for i := range entries {
			e := &entries[i]
			it := Item{Kind: KindLedger, Ref: e.ID, Reference: e.ShortID(), Reason: ReasonKeepsFailing, AmountCents: e.AmountCents,
				Currency: e.Currency, CinemaID: e.CinemaID, Since: e.CreatedAt, Entry: e}
			if e.State == ledger.StateFailed {
				it.Reason = ReasonReview
			}
			items = append(items, it)
		}
		kept, err := l.withState(ctx, KindLedger, items)
		if err != nil {
			return nil, err
		}
		out = append(out, kept...)
	}
	if l.Mail != nil {
		msgs, err := l.Mail.Undeliverable(ctx, l.Limit)
		if err != nil {
			return nil, err
		}
		items := make([]Item, 0, len(msgs))
		for i := range msgs {
			m := &msgs[i]
			ref := m.ID
			if len(ref) > 12 {
				ref = ref[:12]
			}
			items = append(items, Item{Kind: KindMail, Ref: m.ID, Reference: ref, Reason: ReasonUndelivered, Since: m.CreatedAt, Mail: m})
		}
		kept, err := l.withState(ctx, KindMail, items)
		if err != nil {
			return nil, err
		}
		out = append(out, kept...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out, nil
}

// withState drops resolved items and fills in the last action of the others.
func (l Lister) withState(ctx context.Context, kind Kind, items []Item) ([]Item, error) {
	refs := make([]string, len(items))
	for i, it := range items {
		refs[i] = it.Ref
	}
	resolved, last, err := l.Actions.state(ctx, kind, refs)
	if err != nil {
		return nil, err
	}
	out := items[:0]
	for _, it := range items {
		if resolved[it.Ref] {
			continue
		}
		if a, ok := last[it.Ref]; ok {
			it.Last = &a
		}
		out = append(out, it)
	}
	return out, nil
}

// Find returns the unresolved item of that kind and ref; ok=false when it is not on the list
// (never was, resolved, or no longer stuck).
func (l Lister) Find(ctx context.Context, kind Kind, ref string) (Item, bool, error) {
	items, err := l.List(ctx)
	if err != nil {
		return Item{}, false, err
	}
	for _, it := range items {
		if it.Kind == kind && it.Ref == ref {
			return it, true, nil
		}
	}
	return Item{}, false, nil
}
