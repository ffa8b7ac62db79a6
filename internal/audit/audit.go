// Package audit keeps the staff audit trail: who did what, when, on which device, to which
// booking, with which amounts and why. Rows are only ever added.
package audit

import (
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Actions.
const (
	ActionSignIn          = "sign-in"
	ActionSignInFailed    = "sign-in-failed"
	ActionSignOut         = "sign-out"
	ActionSessionsEnded   = "sessions-ended" // a supervisor ended all sessions of an account
	ActionLookup          = "look-up"
	ActionEdit            = "edit"        // an edit completed (tickets added, removed, moved)
	ActionEditCancel      = "edit-cancel" // an edit cancelled: the original kept
	ActionPayment         = "payment"     // money taken (card terminal, cash, provider)
	ActionRefund          = "refund"
	ActionApproval        = "approval" // a supervisor approved (a refund above the limit)
	ActionSwap            = "swap"
	ActionSale            = "sale" // tickets sold at the counter
	ActionCollect         = "collect"
	ActionDeviceEnrol     = "device-enrol"
	ActionDeviceRevoke    = "device-revoke"
	ActionAttentionRetry  = "attention-retry"
	ActionAttentionSolved = "attention-resolve"
	ActionNextCustomer    = "next-customer"
	ActionApprovalRefused = "approval-refused" // a supervisor refused to approve
	ActionAccountUnlock   = "account-unlock"   // a supervisor lifted an account's lock-out
	ActionAdmissionLimits = "admission-limits" // a supervisor changed the admission line's limits for the day
)

// Entry is one row of the trail.
type Entry struct {
	ID            int64
	At            time.Time
	Actor         string // staff username
	Device        string // the enrolled device's name, or the device id
	Action        string
	CinemaID      string
	BookingNumber int64
	AmountCents   int64
	Currency      string
	Reason        string
	Detail        string
}

// ErrInvalid is returned for an entry without actor or action.
var ErrInvalid = errors.New("audit: an entry needs an actor and an action")

// Execer is satisfied by *sql.DB and *sql.Tx: a row can be written in the transaction of the
// action it records.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Record adds e (At zero: now).
func Record(ctx context.Context, db Execer, e Entry) error {
	if strings.TrimSpace(e.Actor) == "" || strings.TrimSpace(e.Action) == "" {
		return ErrInvalid
	}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	_, err := db.ExecContext(ctx, `INSERT INTO audit_log (at, actor, device, action, cinema_id, booking_number, amount_cents, currency, reason, detail)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`, e.At.UnixMilli(), e.Actor, e.Device, e.Action, e.CinemaID, e.BookingNumber,
		e.AmountCents, e.Currency, clip(e.Reason, 1000), clip(e.Detail, 2000))
	if err != nil {
		return fmt.Errorf("audit: record %s by %s: %w", e.Action, e.Actor, err)
	}
	return nil
}

func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "?")
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Filter narrows a listing; zero fields do not filter.
type Filter struct {
	Actor         string
	BookingNumber int64
	From, To      time.Time // [From, To)
	Limit         int       // default 500
}

// Store reads the trail.
type Store struct{ db *sql.DB }

// New returns a store on db.
func New(db *sql.DB) *Store { return &Store{db: db} }

// Record adds e in its own statement.
func (s *Store) Record(ctx context.Context, e Entry) error { return Record(ctx, s.db, e) }

// List returns the entries matching f, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Entry, error) {
	q := `SELECT id, at, actor, device, action, cinema_id, booking_number, amount_cents, currency, reason, detail FROM audit_log WHERE 1=1`
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		q += fmt.Sprintf(" AND "+cond, len(args))
	}
	if f.Actor != "" {
		add("actor = $%d", strings.ToLower(strings.TrimSpace(f.Actor)))
	}
	if f.BookingNumber != 0 {
		add("booking_number = $%d", f.BookingNumber)
	}
	if !f.From.IsZero() {
		add("at >= $%d", f.From.UnixMilli())
	}
	if !f.To.IsZero() {
		add("at < $%d", f.To.UnixMilli())
	}
	if f.Limit <= 0 {
		f.Limit = 500
	}
	args = append(args, f.Limit)
	q += fmt.Sprintf(" ORDER BY at DESC, id DESC LIMIT $%d", len(args))
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: list: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Device, &e.Action, &e.CinemaID, &e.BookingNumber, &e.AmountCents, &e.Currency, &e.Reason, &e.Detail); err != nil {
			return nil, fmt.Errorf("audit: read: %w", err)
		}
		e.At = time.UnixMilli(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// WriteCSV writes entries as CSV with a header row; times in loc (RFC 3339), amounts in cents.
// Cells that a spreadsheet would run as a formula are prefixed with a quote.
func WriteCSV(w io.Writer, entries []Entry, loc *time.Location) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"time", "actor", "device", "action", "cinema", "booking", "amount_cents", "currency", "reason", "detail"})
	for _, e := range entries {
		booking := ""
		if e.BookingNumber != 0 {
			booking = strconv.FormatInt(e.BookingNumber, 10)
		}
		_ = cw.Write([]string{e.At.In(loc).Format(time.RFC3339), safeCell(e.Actor), safeCell(e.Device), e.Action, safeCell(e.CinemaID), booking,
			strconv.FormatInt(e.AmountCents, 10), e.Currency, safeCell(e.Reason), safeCell(e.Detail)})
	}
	cw.Flush()
	return cw.Error()
}

// safeCell quotes a cell a spreadsheet would run as a formula: one whose first character is
// a tab or a carriage return, or whose first character after any spaces is = + - or @
// (spreadsheets skip the spaces).
func safeCell(s string) string {
	for _, r := range s {
		switch {
		case strings.ContainsRune("=+-@\t\r", r):
			return "'" + s
		case unicode.IsSpace(r):
			continue
		}
		return s
	}
	return s
}
