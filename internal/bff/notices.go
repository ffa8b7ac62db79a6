package bff

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/checkout"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages/booking"
)

// Customer messages: every purchase, late completion, given-up order, edit, swap and refund
// writes a notice to the outbox in the same transaction as the step that causes it (the
// checkout record's and the ledger's hooks, or its own transaction for a swap and an edit
// without money). A sender delivers them (internal/mail). Pages say a message is on its way
// only when it is in the outbox. Each notice carries the language of the visit that caused it
// (noticeLang), so the message is written in that language whenever it is sent.

// mailer is the server's part of customer e-mail.
type mailer struct {
	outbox *mail.Outbox
	sender *mail.Sender // nil: no transport configured (messages wait in the outbox)
	dir    string       // where .eml files are written (sandbox page); "" for SMTP
	// showMailbox: the embedded sandbox lists the files at /sandbox/mail.
	showMailbox bool
	signer      *tickets.Signer
	store       *changes.Store
}

// MailDeps configure customer e-mail.
type MailDeps struct {
	// Transport delivers (SMTP or .eml files); nil: messages are written to the outbox and wait.
	Transport mail.Transport
	From      string
	// Dir is the folder a file transport writes to; with ShowMailbox, /sandbox/mail lists it.
	Dir         string
	ShowMailbox bool
	// TicketKey signs the codes in the tickets' QR codes (at least 16 bytes).
	TicketKey []byte
	// Backoff is the wait after a failed delivery attempt (nil: mail.DefaultBackoff).
	Backoff func(attempt int) time.Duration
}

func (s *Server) setUpMail(d MailDeps) error {
	key := d.TicketKey
	if len(key) == 0 {
		return errors.New("bff: a ticket signing key is required")
	}
	signer, err := tickets.NewSigner(key)
	if err != nil {
		return fmt.Errorf("bff: ticket signing key: %w", err)
	}
	m := &mailer{outbox: mail.NewOutbox(s.sql, s.Now), signer: signer, store: changes.New(s.sql), dir: d.Dir, showMailbox: d.ShowMailbox}
	if d.Transport != nil {
		read := func(ctx context.Context, cinemaID string, number int64) (cinema.Booking, error) {
			return s.readBooking(ctx, cinemaID, number)
		}
		comp := &notify.Composer{Booking: read, Cinema: s.CinemaByID, Signer: signer, Catalog: s.Langs, SiteName: s.Cfg.SiteName,
			FindURL: s.AbsURL(web.RouteFindBooking)}
		m.sender = &mail.Sender{Outbox: m.outbox, Compose: comp.Compose, Transport: d.Transport, From: d.From,
			Logger: s.Logger.With("component", "mail"), Backoff: d.Backoff}
	}
	s.mail = m
	s.Ledger.OnTransition(s.ledgerNotices)
	s.checkout().store.OnChange(s.checkoutNotices)
	return nil
}

// StartMailSender delivers the outbox until ctx ends (no-op without a transport).
func (s *Server) StartMailSender(ctx context.Context, every time.Duration) {
	if s.mail == nil || s.mail.sender == nil {
		return
	}
	go s.mail.sender.Run(ctx, every)
}

// DeliverMail delivers what is due now (tests, and the `web` start-up).
func (s *Server) DeliverMail(ctx context.Context) (int, error) {
	if s.mail == nil || s.mail.sender == nil {
		return 0, nil
	}
	return s.mail.sender.RunOnce(ctx)
}

// kickMail asks the sender to deliver soon: after the transaction that wrote the message has
// committed (hooks run inside it), so a moment later.
func (s *Server) kickMail() {
	if s.mail != nil && s.mail.sender != nil {
		time.AfterFunc(50*time.Millisecond, s.mail.sender.Kick)
	}
}

// writeNotice records a notice in its own transaction (a swap, an edit without money).
func (s *Server) writeNotice(ctx context.Context, n notify.Notice) {
	if s.mail == nil {
		return
	}
	if _, err := notify.WriteAlone(ctx, s.sql, n, s.Now()); err != nil {
		// The change itself is done upstream; the page shows it and says no message was written.
		web.LoggerFrom(ctx, s.Logger).Error("customer message not written", "kind", n.Kind, "booking", n.BookingNumber, "err", err)
		return
	}
	s.kickMail()
}

// noticeLang is the language of the visit behind ctx, for its notices ("" without one: the
// message is then written in the site's fallback).
func noticeLang(ctx context.Context) string {
	if l := i18n.FromContext(ctx); l != nil {
		return l.Lang()
	}
	return ""
}

// editNotice is what an edit will tell the customer, written with its ledger entries (or at
// once when no money moves), in the language of the visit behind ctx.
func editNotice(ctx context.Context, e editVisit, lines []notify.Line, oldTotal, newTotal cinema.Money) notify.Notice {
	n := notify.Notice{Kind: notify.KindEdit, Key: "edit:" + e.UserSessionID, To: e.Email, Lang: noticeLang(ctx), CinemaID: e.CinemaID,
		BookingNumber: e.BookingNumber, Film: e.FilmTitle, Showtime: e.Showtime, Lines: lines, OldTotal: oldTotal, NewTotal: newTotal}
	for _, l := range lines {
		switch l.Change {
		case notify.ChangeRemoved:
			n.Replaced = append(n.Replaced, changes.Ticket{Description: l.Description, Seat: l.Seat})
		case notify.ChangeMoved:
			n.Replaced = append(n.Replaced, changes.Ticket{Description: l.Description, Seat: l.From})
		}
	}
	return n
}

// ledgerNotices writes the customer message of a ledger step, inside its transaction: an
// edit applied (with what was paid or refunded), or a payment given back because its edit
// could not be completed.
func (s *Server) ledgerNotices(ctx context.Context, tx *sql.Tx, moved []ledger.Entry) error {
	if len(moved) == 0 || moved[0].Notice == "" {
		return nil // entries from before notices, or none asked for
	}
	lead := moved[0]
	var n notify.Notice
	if err := json.Unmarshal([]byte(lead.Notice), &n); err != nil {
		s.Logger.Error("ledger entry notice unreadable", "entry", lead.ID, "err", err)
		return nil // never block money on a message
	}
	switch {
	case lead.State == ledger.StateApplied:
		for _, e := range moved {
			line := notify.MoneyLine{What: notify.MoneyPaid, Amount: cinema.Money{Cents: e.AmountCents, Currency: e.Currency},
				Card: strings.TrimSpace(e.CardType + " " + e.CardMasked)}
			if e.Kind == ledger.KindRefund {
				line.What = notify.MoneyRefunded
			}
			n.Money = append(n.Money, line)
		}
	case lead.Kind == ledger.KindPayment && lead.State == ledger.StateRefunded:
		n = notify.Notice{Kind: notify.KindRefund, Key: "refund:" + lead.ID, To: n.To, Name: n.Name, Lang: n.Lang, CinemaID: n.CinemaID,
			BookingNumber: n.BookingNumber, Money: []notify.MoneyLine{{What: notify.MoneyRefunded,
				Amount: cinema.Money{Cents: lead.AmountCents, Currency: lead.Currency}, Card: strings.TrimSpace(lead.CardType + " " + lead.CardMasked)}}}
	default:
		return nil
	}
	if _, err := notify.Write(ctx, tx, n, s.Now()); err != nil {
		return err
	}
	s.kickMail()
	return nil
}

// checkoutNotices writes the customer message of a purchase that completed (late, when it had
// been given up or completed long after the customer came back) or was given up. It often runs
// in a background watcher: the language is the one the order was made in, kept in its snapshot.
func (s *Server) checkoutNotices(ctx context.Context, tx *sql.Tx, before, after checkout.Record) error {
	if after.CustomerEmail == "" {
		return nil // a counter sale without an e-mail address: the tickets are printed there
	}
	var sn buySnapshot
	_ = json.Unmarshal([]byte(after.Summary), &sn)
	lang := sn.Lang
	if lang == "" {
		lang = noticeLang(ctx) // an order from before languages were kept
	}
	n := notify.Notice{To: after.CustomerEmail, Name: after.CustomerName, Lang: lang, CinemaID: after.CinemaID, BookingNumber: after.BookingNumber,
		Reference: after.Reference(), Film: sn.FilmTitle, Showtime: sn.Showtime, Screen: sn.Screen,
		Total: cinema.Money{Cents: sn.Total, Currency: sn.Currency}}
	for _, t := range sn.Tickets {
		n.Lines = append(n.Lines, notify.Line{Change: notify.ChangeBought, Description: t.Description, Seat: t.Seat, Amount: cinema.Money{Cents: t.Cents, Currency: sn.Currency}})
	}
	switch after.State {
	case checkout.StateCompleted:
		n.Kind, n.Key = notify.KindPurchase, "purchase:"+after.ID
		if before.State == checkout.StateGivenUp || (!after.Returned.IsZero() && after.Completed.Sub(after.Returned) > checkoutGiveUpAfter) {
			n.Kind = notify.KindPurchaseLate
		}
	case checkout.StateGivenUp:
		n.Kind, n.Key, n.BookingNumber = notify.KindOrderGivenUp, "given-up:"+after.ID, 0
		// The operator's own words, or (none configured) the catalog's default in the message's
		// language; what happened, as a code the message puts in words.
		n.Policy, n.Waited, n.Outcome = s.Cfg.FailedOrderPolicy, s.orderWatchFor(), notify.OutcomeNotCancelled
		if after.OrderCancelled {
			n.Outcome = notify.OutcomeCancelled
		}
	default:
		return nil
	}
	if _, err := notify.Write(ctx, tx, n, s.Now()); err != nil {
		return err
	}
	s.kickMail()
	return nil
}

// mailLine says where the message with the given key stands, in words for the page (in the
// request's language): only what the outbox shows ("" when there is no such message).
func (s *Server) mailLine(ctx context.Context, key string) string {
	if s.mail == nil || key == "" {
		return ""
	}
	m, err := s.mail.outbox.ByKey(ctx, key)
	if err != nil {
		return ""
	}
	l := i18n.FromContext(ctx)
	to := maskEmail(l, m.To)
	switch m.State {
	case mail.StateSent:
		return l.T("notice.mail_sent", "Address", to)
	case mail.StateUndeliverable:
		return l.T("notice.mail_undeliverable", "Address", to)
	}
	return l.T("notice.mail_on_its_way", "Address", to)
}

// maskEmail shows the first letter of the mailbox and the domain: a…@example.com.
func maskEmail(l *i18n.Localizer, addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 1 {
		return l.T("notice.your_address")
	}
	first := []rune(addr[:at])[0]
	return string(first) + "…" + addr[at:]
}

// ticketsView makes the booking's tickets with their QR codes, and the tickets its recorded
// changes replaced, in the request's language.
func (s *Server) ticketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView {
	v := components.TicketsView{PrintURL: printURL}
	if s.mail == nil {
		return v
	}
	l := i18n.FromContext(ctx)
	cin := s.CinemaByID(ctx, b.CinemaID)
	loc := cin.Location()
	log := web.LoggerFrom(ctx, s.Logger)
	cards, err := tickets.Cards(b, s.mail.signer, loc, cin.Locale)
	if err != nil {
		log.Warn("tickets without codes", "booking", b.Number, "err", err)
	}
	// A replaced ticket is known by the words its change recorded, in the language of the
	// visit that made it: a current ticket is matched in every language.
	current := map[string]bool{}
	for _, c := range cards {
		seats := []string{c.SeatText}
		for _, t := range i18n.Languages {
			seats = append(seats, tickets.SeatWords(s.Langs.For(t), c.Row, c.Seat))
		}
		for _, st := range seats {
			current[changes.Key(0, st)], current[changes.Key(c.Line, st)] = true, true
		}
	}
	for _, c := range notify.LocalizeCards(cards, b, l, loc) {
		card := components.TicketCard{Card: c}
		if c.Payload == "" {
			// listed without a code (logged above)
		} else if svg, err := tickets.SVG(c.Payload, l.T("notice.qr_code", "Seat", c.SeatText), 168); err == nil {
			card.QR = svg
		} else {
			log.Warn("ticket QR code", "booking", b.Number, "line", c.Line, "err", err)
		}
		v.Cards = append(v.Cards, card)
	}
	all, err := s.mail.store.ForBooking(ctx, b.CinemaID, b.Number)
	if err != nil {
		log.Warn("booking changes", "booking", b.Number, "err", err)
	}
	for _, r := range changes.NoLongerValid(all, current) {
		when := l.Time(r.At, loc, i18n.DateTimeShort)
		by := l.T("notice.replaced_by_edit", "When", when)
		if r.By == changes.KindSwap {
			by = l.T("notice.replaced_by_swap", "When", when)
		}
		v.Replaced = append(v.Replaced, components.ReplacedTicket{Description: r.Description, Seat: r.Seat, When: by})
	}
	return v
}

// noticeLines says what an edit changes, for its message.
func noticeLines(lines []booking.LineView) []notify.Line {
	var out []notify.Line
	for _, l := range lines {
		n := notify.Line{Description: l.Description, Seat: l.Seat}
		switch l.State {
		case "added":
			n.Change = notify.ChangeAdded
		case "removed":
			n.Change = notify.ChangeRemoved
		case lineMoved:
			n.Change, n.From = notify.ChangeMoved, l.From
		default:
			n.Change = notify.ChangeKept
		}
		out = append(out, n)
	}
	return out
}
