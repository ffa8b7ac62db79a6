// Package boxoffice keeps the register of money taken at the box office: every payment taken
// on a card terminal or in cash, under the reference it was taken with. It holds two rules:
//
//   - a reference is recorded once, for one payment: a terminal's reference typed a second
//     time (a mistake, or a clerk borrowing another payment's) is refused at the counter;
//   - a booking's payments taken at the box office are known, so a refund gives them back at
//     the box office (cash as cash, a card-terminal payment on the terminal), never through
//     the online payment provider, whatever reference the booking record carries.
package boxoffice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/sqlrows"
)

// Tender is how the box office took the money.
type Tender string

const (
	TenderTerminal Tender = "terminal" // a card on the counter's card terminal
	TenderCash     Tender = "cash"
)

// Valid reports whether t is a tender of the box office.
func (t Tender) Valid() bool { return t == TenderTerminal || t == TenderCash }

// Payment is one payment taken at the box office.
type Payment struct {
	Reference     string
	Tender        Tender
	AmountCents   int64
	Currency      string
	CinemaID      string
	BookingNumber int64 // 0 while a sale's booking is not known yet
	// Owner is what the payment pays for, and makes recording it again harmless: the ledger
	// entry's idempotency key of an edit's payment, or SaleOwner of a sale.
	Owner string
	Actor string // the staff member who took it
	At    time.Time
}

var (
	// ErrReferenceUsed: the reference was recorded for another payment. The error's payment
	// (UsedError) is that one.
	ErrReferenceUsed = errors.New("boxoffice: reference already recorded for another payment")
	// ErrInvalid: a payment without a reference, owner, actor or a known tender.
	ErrInvalid = errors.New("boxoffice: incomplete payment")
)

// UsedError is ErrReferenceUsed with the payment the reference belongs to.
type UsedError struct{ Earlier Payment }

func (e *UsedError) Error() string {
	return fmt.Sprintf("%v (%s, %s)", ErrReferenceUsed, e.Earlier.Owner, e.Earlier.At.UTC().Format(time.RFC3339))
}

func (e *UsedError) Unwrap() error { return ErrReferenceUsed }

// Key is a reference as it is compared: trimmed, lower-case ("TERM-0001" and " term-0001"
// are one reference).
func Key(reference string) string { return strings.ToLower(strings.TrimSpace(reference)) }

// Register is the box office's payments on a database (SQLite or PostgreSQL, migrated).
type Register struct {
	db   *sql.DB
	now  func() time.Time
	sold *sqlrows.Prepared // asked on every view of a booking
}

// New returns the register on db.
func New(db *sql.DB) *Register {
	// The owner's prefix is written into the query, not bound: SQLite prepares a statement
	// again at every run when a bound value is a LIKE pattern (the plan may depend on it).
	return &Register{db: db, now: time.Now, sold: sqlrows.Prepare(db, `SELECT COUNT(*) FROM box_office_payments
		WHERE cinema_id = $1 AND booking_number = $2 AND owner LIKE '`+salePrefix+`%'`)}
}

const columns = `reference, tender, amount_cents, currency, cinema_id, booking_number, owner, actor, created_at`

// Record claims p's reference for p. Recording the same owner's payment again returns the one
// recorded (a repeated press); a reference recorded for another owner is refused with a
// *UsedError (errors.Is ErrReferenceUsed). Two counters typing one reference at once: one wins.
func (r *Register) Record(ctx context.Context, p Payment) (Payment, error) {
	p.Reference = strings.TrimSpace(p.Reference)
	if p.Reference == "" || p.Owner == "" || p.Actor == "" || !p.Tender.Valid() {
		return p, fmt.Errorf("%w: %+v", ErrInvalid, p)
	}
	if p.At.IsZero() {
		p.At = r.now()
	}
	res, err := r.db.ExecContext(ctx, `INSERT INTO box_office_payments (reference_key, `+columns+`)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (reference_key) DO NOTHING`,
		Key(p.Reference), p.Reference, string(p.Tender), p.AmountCents, p.Currency, p.CinemaID, p.BookingNumber, p.Owner, p.Actor, p.At.UnixMilli())
	if err != nil {
		return p, fmt.Errorf("record box office payment: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return p, nil
	}
	earlier, err := r.Get(ctx, p.Reference)
	if err != nil {
		return p, err
	}
	if earlier.Owner != p.Owner {
		return earlier, &UsedError{Earlier: earlier}
	}
	return earlier, nil
}

// ErrNotFound says no payment has that reference.
var ErrNotFound = errors.New("boxoffice: no payment with that reference")

// Get is the payment recorded under reference (compared as Key does), or ErrNotFound.
func (r *Register) Get(ctx context.Context, reference string) (Payment, error) {
	p, err := scan(r.db.QueryRowContext(ctx, `SELECT `+columns+` FROM box_office_payments WHERE reference_key = $1`, Key(reference)))
	if errors.Is(err, sql.ErrNoRows) {
		return p, ErrNotFound
	}
	if err != nil {
		return p, fmt.Errorf("read box office payment: %w", err)
	}
	return p, nil
}

// SetBooking records the booking a sale's payment paid for, once the ticketing system made it.
func (r *Register) SetBooking(ctx context.Context, reference, cinemaID string, number int64) error {
	if _, err := r.db.ExecContext(ctx, `UPDATE box_office_payments SET cinema_id = $1, booking_number = $2 WHERE reference_key = $3`,
		cinemaID, number, Key(reference)); err != nil {
		return fmt.Errorf("set the booking of box office payment: %w", err)
	}
	return nil
}

// SaleOwner is the Owner of the payment of a sale at the box office: the order (its user
// session) that the payment completes with CompleteOrder.
func SaleOwner(orderSessionID string) string { return salePrefix + orderSessionID }

const salePrefix = "sale:"

// SoldHere reports whether the booking was made by a sale the box office took (cash or a card
// terminal): its order was completed with the cinema's own payment, not through the online
// payment provider.
func (r *Register) SoldHere(ctx context.Context, cinemaID string, number int64) (bool, error) {
	var n int
	if err := r.sold.QueryRow(ctx, cinemaID, number).Scan(&n); err != nil {
		return false, fmt.Errorf("box office sales of %s/%d: %w", cinemaID, number, err)
	}
	return n > 0, nil
}

// ForBooking lists the booking's payments taken at the box office, oldest first.
func (r *Register) ForBooking(ctx context.Context, cinemaID string, number int64) ([]Payment, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT `+columns+` FROM box_office_payments
		WHERE cinema_id = $1 AND booking_number = $2 ORDER BY created_at, reference_key`, cinemaID, number)
	if err != nil {
		return nil, fmt.Errorf("list box office payments of %s/%d: %w", cinemaID, number, err)
	}
	out, err := sqlrows.Collect(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("list box office payments of %s/%d: %w", cinemaID, number, err)
	}
	return out, nil
}

func scan(s sqlrows.Scanner) (Payment, error) {
	var p Payment
	var tender string
	var at int64
	err := s.Scan(&p.Reference, &tender, &p.AmountCents, &p.Currency, &p.CinemaID, &p.BookingNumber, &p.Owner, &p.Actor, &at)
	p.Tender, p.At = Tender(tender), time.UnixMilli(at)
	return p, err
}
