package notify

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/tickets"
)

// Mailer is the customers' messages as the site sends them: notices written to the outbox,
// alone or in the transaction of the money or order change that causes them (the hooks), the
// sender woken when one is written, the key that signs ticket codes and the record of tickets
// a change replaced.
type Mailer struct {
	Outbox  *mail.Outbox
	Sender  *mail.Sender // nil: no transport configured (messages wait in the outbox)
	Signer  *tickets.Signer
	Changes *changes.Store
	// Dir is where .eml files are written (the sandbox's mailbox page); "" for SMTP.
	// ShowMailbox opens that page (the embedded sandbox only).
	Dir         string
	ShowMailbox bool
	// BookingChanged hears of every change of a booking this service confirmed (an edit, a seat
	// swap, a move to another show: each writes its notice here), shortly after it is written,
	// so the booking's wallet passes follow it. nil: nobody listens.
	BookingChanged func(cinemaID string, number int64)

	db     *sql.DB
	now    func() time.Time
	logger *slog.Logger
	order  OrderWords
}

// OrderWords is what a message about a purchase says besides the order: after how long a late
// confirmation counts as late, how long an unconfirmed order was watched and the operator's
// words on money taken for an order that was given up.
type OrderWords struct {
	GiveUpAfter time.Duration
	WatchFor    time.Duration
	Policy      string
}

// MailerOptions configure NewMailer.
type MailerOptions struct {
	TicketKey   []byte
	Dir         string
	ShowMailbox bool
	Order       OrderWords
	Logger      *slog.Logger
}

// NewMailer builds the mailer over the service's database; a transport is added with Send.
func NewMailer(db *sql.DB, now func() time.Time, o MailerOptions) (*Mailer, error) {
	if len(o.TicketKey) == 0 {
		return nil, errors.New("notify: a ticket signing key is required")
	}
	signer, err := tickets.NewSigner(o.TicketKey)
	if err != nil {
		return nil, fmt.Errorf("notify: ticket signing key: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Mailer{Outbox: mail.NewOutbox(db, now), Signer: signer, Changes: changes.New(db), Dir: o.Dir, ShowMailbox: o.ShowMailbox,
		db: db, now: now, logger: o.Logger, order: o.Order}, nil
}

// Start runs the sender until ctx ends (nothing without a transport).
func (m *Mailer) Start(ctx context.Context, every time.Duration) {
	if m == nil || m.Sender == nil {
		return
	}
	go m.Sender.Run(ctx, every)
}

// DeliverOnce sends what is due now and reports how many were sent.
func (m *Mailer) DeliverOnce(ctx context.Context) (int, error) {
	if m == nil || m.Sender == nil {
		return 0, nil
	}
	return m.Sender.RunOnce(ctx)
}

// Kick wakes the sender shortly after a message was written (after its transaction commits).
func (m *Mailer) Kick() {
	if m != nil && m.Sender != nil {
		time.AfterFunc(50*time.Millisecond, m.Sender.Kick)
	}
}

// Write puts a notice in the outbox in its own transaction and wakes the sender. A message is
// never worth failing the change it tells of: an error is only returned to be logged.
func (m *Mailer) Write(ctx context.Context, n Notice) error {
	if m == nil {
		return nil
	}
	inserted, err := WriteAlone(ctx, m.db, n, m.now())
	if err != nil {
		return err
	}
	m.Kick()
	if inserted {
		m.changed(n)
	}
	return nil
}

// changed tells BookingChanged of a notice that tells of a change, after its transaction has
// had time to commit. A change whose transaction then rolls back only makes the passes be read
// again: they are built from the booking as it is.
func (m *Mailer) changed(n Notice) {
	if m.BookingChanged == nil || (n.Kind != KindEdit && n.Kind != KindSwap) {
		return
	}
	time.AfterFunc(50*time.Millisecond, func() { m.BookingChanged(n.CinemaID, n.BookingNumber) })
}

// LedgerHook writes, in the ledger's own transaction, the message a money step's end asks for:
// the change's notice with the money moved once its entries are applied, or a refund's notice
// when a payment is given back.
func (m *Mailer) LedgerHook(ctx context.Context, tx *sql.Tx, moved []ledger.Entry) error {
	if len(moved) == 0 || moved[0].Notice == "" {
		return nil // entries from before notices, or none asked for
	}
	lead := moved[0]
	var n Notice
	if err := json.Unmarshal([]byte(lead.Notice), &n); err != nil {
		m.logger.Error("ledger entry notice unreadable", "entry", lead.ID, "err", err)
		return nil // never block money on a message
	}
	switch {
	case lead.State == ledger.StateApplied:
		for _, e := range moved {
			line := MoneyLine{What: MoneyPaid, Amount: cinema.Money{Cents: e.AmountCents, Currency: e.Currency},
				Card: strings.TrimSpace(e.CardType + " " + e.CardMasked)}
			if e.Kind == ledger.KindRefund {
				line.What = MoneyRefunded
			}
			n.Money = append(n.Money, line)
		}
	case lead.Kind == ledger.KindPayment && lead.State == ledger.StateRefunded:
		n = Notice{Kind: KindRefund, Key: "refund:" + lead.ID, To: n.To, Name: n.Name, Lang: n.Lang, CinemaID: n.CinemaID,
			BookingNumber: n.BookingNumber, Money: []MoneyLine{{What: MoneyRefunded,
				Amount: cinema.Money{Cents: lead.AmountCents, Currency: lead.Currency}, Card: strings.TrimSpace(lead.CardType + " " + lead.CardMasked)}}}
	default:
		return nil
	}
	inserted, err := Write(ctx, tx, n, m.now())
	if err != nil {
		return err
	}
	m.Kick()
	if inserted {
		m.changed(n)
	}
	return nil
}

// CheckoutHook writes, in the payment record's own transaction, the message of a purchase
// that completed (late, when it came after the landing page gave up) or was given up. lang is
// the language of a record from before languages were kept.
func (m *Mailer) CheckoutHook(lang func(ctx context.Context) string) purchases.Hook {
	return func(ctx context.Context, tx *sql.Tx, before, after purchases.Record) error {
		if after.CustomerEmail == "" {
			return nil // a counter sale without an e-mail address: the tickets are printed there
		}
		var sn purchases.Snapshot
		_ = json.Unmarshal([]byte(after.Summary), &sn)
		l := sn.Lang
		if l == "" {
			l = lang(ctx)
		}
		n := Notice{To: after.CustomerEmail, Name: after.CustomerName, Lang: l, CinemaID: after.CinemaID, BookingNumber: after.BookingNumber,
			Reference: after.Reference(), Film: sn.FilmTitle, Showtime: sn.Showtime, Screen: sn.Screen,
			Total: cinema.Money{Cents: sn.Total, Currency: sn.Currency}}
		for _, t := range sn.Tickets {
			n.Lines = append(n.Lines, Line{Change: ChangeBought, Description: t.Description, Seat: t.Seat, Amount: cinema.Money{Cents: t.Cents, Currency: sn.Currency}})
		}
		switch after.State {
		case purchases.StateCompleted:
			n.Kind, n.Key = KindPurchase, "purchase:"+after.ID
			if before.State == purchases.StateGivenUp || (!after.Returned.IsZero() && after.Completed.Sub(after.Returned) > m.order.GiveUpAfter) {
				n.Kind = KindPurchaseLate
			}
		case purchases.StateGivenUp:
			n.Kind, n.Key, n.BookingNumber = KindOrderGivenUp, "given-up:"+after.ID, 0
			n.Policy, n.Waited, n.Outcome = m.order.Policy, m.order.WatchFor, OutcomeNotCancelled
			if after.OrderCancelled {
				n.Outcome = OutcomeCancelled
			}
		default:
			return nil
		}
		if _, err := Write(ctx, tx, n, m.now()); err != nil {
			return err
		}
		m.Kick()
		return nil
	}
}
