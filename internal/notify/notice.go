// Package notify owns the messages customers get after a purchase, an edit, a seat swap or a
// refund: what each one says (a Notice, written to the outbox in the same transaction as the
// step that causes it) and how it is composed into an e-mail with the current tickets when it
// is sent.
package notify

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/mail"
)

// Kind names a message.
type Kind string

const (
	KindPurchase     Kind = "purchase"      // an order paid and booked
	KindPurchaseLate Kind = "purchase_late" // a stuck order that completed after all
	KindOrderGivenUp Kind = "order_given_up"
	KindEdit         Kind = "edit"   // tickets added, removed or moved; money paid or refunded
	KindSwap         Kind = "swap"   // seats swapped
	KindRefund       Kind = "refund" // a payment given back because its change could not be made
)

// Notice is what a message says, as known when its cause happens. The current tickets are
// read when the message is composed. Lang is the language of the visit that caused it ("en",
// "de"; empty: the site's fallback): the message is written in it, however much later it is
// sent.
type Notice struct {
	Kind          Kind      `json:"kind"`
	Key           string    `json:"key"` // one message per key, however often its cause is seen
	To            string    `json:"to"`
	Name          string    `json:"name,omitempty"`
	Lang          string    `json:"lang,omitempty"`
	CinemaID      string    `json:"cinema"`
	BookingNumber int64     `json:"number,omitempty"`
	Reference     string    `json:"ref,omitempty"` // the order's reference (purchases)
	Film          string    `json:"film,omitempty"`
	Showtime      time.Time `json:"showtime,omitzero"`
	Screen        string    `json:"screen,omitempty"`
	// FromFilm, FromShowtime and FromScreen are the show an edit moved the booking away from
	// (zero FromShowtime: the booking stayed at its show).
	FromFilm     string    `json:"fromFilm,omitempty"`
	FromShowtime time.Time `json:"fromShowtime,omitzero"`
	FromScreen   string    `json:"fromScreen,omitempty"`
	// Lines say what changed (edit, swap) or what was bought (purchase).
	Lines []Line `json:"lines,omitempty"`
	// Money says what money moved.
	Money []MoneyLine `json:"money,omitempty"`
	// Total is what the booking costs (purchase), OldTotal and NewTotal before and after a
	// change (zero Currency: not known).
	Total    cinema.Money `json:"total,omitzero"`
	OldTotal cinema.Money `json:"oldTotal,omitzero"`
	NewTotal cinema.Money `json:"newTotal,omitzero"`
	// Policy is the operator's words on an order given up, shown as they are (empty: the
	// catalog's default, in the message's language).
	Policy string `json:"policy,omitempty"`
	// Outcome says what happened to an order given up (OutcomeCancelled, OutcomeNotCancelled),
	// after waiting Waited for the cinema's confirmation.
	Outcome string        `json:"outcome,omitempty"`
	Waited  time.Duration `json:"waited,omitempty"`
	// Replaced are the tickets the change replaced: no longer valid.
	Replaced []changes.Ticket `json:"replaced,omitempty"`
}

// Line is one ticket of a change or a purchase.
type Line struct {
	Change      string       `json:"change"` // added | removed | moved | kept | bought
	Description string       `json:"desc"`
	Seat        string       `json:"seat,omitempty"`
	From        string       `json:"from,omitempty"` // the seat before a move
	Amount      cinema.Money `json:"amount,omitzero"`
}

// Line changes.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ChangeMoved   = "moved"
	ChangeKept    = "kept"
	ChangeBought  = "bought"
)

// MoneyLine is one movement of money.
type MoneyLine struct {
	What   string       `json:"what"` // paid | refunded | at-cinema
	Amount cinema.Money `json:"amount"`
	Card   string       `json:"card,omitempty"` // "Visa •••• 4242"
}

// Money movements.
const (
	MoneyPaid     = "paid"
	MoneyRefunded = "refunded"
	MoneyAtCinema = "at-cinema" // the amount to pay at the cinema changed
)

// Validate reports a notice that cannot become a message.
func (n Notice) Validate() error {
	switch {
	case n.Key == "":
		return fmt.Errorf("notify: %s notice has no key", n.Kind)
	case n.To == "":
		return fmt.Errorf("notify: %s notice %s has no recipient", n.Kind, n.Key)
	case n.CinemaID == "":
		return fmt.Errorf("notify: %s notice %s has no cinema", n.Kind, n.Key)
	case n.BookingNumber == 0 && n.Kind != KindOrderGivenUp:
		return fmt.Errorf("notify: %s notice %s has no booking number", n.Kind, n.Key)
	}
	return nil
}

// Tx is what Write needs of a transaction (*sql.Tx).
type Tx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Write records the notice inside the caller's transaction: the booking change (when the notice
// replaced tickets) and the outbox message. A notice whose key is already in the outbox is not
// written again (inserted=false).
func Write(ctx context.Context, tx Tx, n Notice, now time.Time) (inserted bool, err error) {
	if err := n.Validate(); err != nil {
		return false, err
	}
	payload, err := json.Marshal(n)
	if err != nil {
		return false, fmt.Errorf("notify: encode %s notice: %w", n.Kind, err)
	}
	_, inserted, err = mail.Enqueue(ctx, tx, mail.Message{Key: n.Key, Kind: string(n.Kind), To: n.To, Lang: n.Lang, Payload: payload}, now)
	if err != nil {
		return false, fmt.Errorf("notify: %s notice: %w", n.Kind, err)
	}
	if inserted && (n.Kind == KindEdit || n.Kind == KindSwap) {
		kind := changes.KindEdit
		if n.Kind == KindSwap {
			kind = changes.KindSwap
		}
		if err := changes.Record(ctx, tx, changes.Change{CinemaID: n.CinemaID, BookingNumber: n.BookingNumber, Kind: kind, Replaced: n.Replaced, At: now}); err != nil {
			return false, err
		}
	}
	return inserted, nil
}

// WriteAlone records the notice in a transaction of its own, for a change that has no write of
// ours to join (a seat swap, an edit without money: the change itself is done upstream). Its
// booking change and outbox message still go in together, or neither does.
func WriteAlone(ctx context.Context, db *sql.DB, n Notice, now time.Time) (inserted bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("notify: begin %s notice: %w", n.Kind, err)
	}
	defer tx.Rollback()
	if inserted, err = Write(ctx, tx, n, now); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("notify: commit %s notice: %w", n.Kind, err)
	}
	return inserted, nil
}

// Decode reads the notice of an outbox message.
func Decode(m mail.Message) (Notice, error) {
	var n Notice
	if err := json.Unmarshal(m.Payload, &n); err != nil {
		return n, fmt.Errorf("notify: message %s: %w: %w", m.ID, mail.ErrPermanent, err)
	}
	return n, nil
}

func jsonOf(n Notice) ([]byte, error) { return json.Marshal(n) }
