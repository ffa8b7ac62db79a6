package bff

import (
	"context"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/checkout"
	"github.com/cinemabff/cinemabff/internal/i18n"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/storage"
)

// Customer messages: every purchase, late completion, given-up order, edit, swap and refund
// writes a notice to the outbox in the same transaction as the step that causes it (the
// checkout record's and the ledger's hooks, or its own transaction for a swap and an edit
// without money). A sender delivers them (internal/mail). Pages say a message is on its way
// only when it is in the outbox. Each notice carries the language of the visit that caused it
// (noticeLang), so the message is written in that language whenever it is sent.

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

func (s *Server) setUpMail(d MailDeps, db *storage.DB) error {
	m, err := notify.NewMailer(db.SQL, s.Kernel.Now, notify.MailerOptions{TicketKey: d.TicketKey, Dir: d.Dir, ShowMailbox: d.ShowMailbox, Logger: s.Kernel.Logger,
		Order: notify.OrderWords{GiveUpAfter: checkout.GiveUpAfter, WatchFor: s.Settings.WatchOrdersFor(), Policy: s.Settings.FailedOrderPolicy}})
	if err != nil {
		return fmt.Errorf("bff: %w", err)
	}
	if d.Transport != nil {
		// The visits are built after the mail (they send it): they are asked when a message is
		// written.
		read := func(ctx context.Context, cinemaID string, number int64) (cinema.Booking, error) {
			return s.Visits.ReadBooking(ctx, cinemaID, number)
		}
		cinemaOf := func(ctx context.Context, id string) cinema.Cinema { return s.Visits.CinemaByID(ctx, id) }
		comp := &notify.Composer{Booking: read, Cinema: cinemaOf, Signer: m.Signer, Catalog: s.Kernel.Langs, SiteName: s.Kernel.Cfg.SiteName,
			Calendar: func(ctx context.Context, l *i18n.Localizer, b cinema.Booking) ([]byte, error) {
				return s.Visits.BookingCalendar(ctx, l, b)
			},
			// The wallet flow is built after the mail: its links are read when a message is written.
			WalletLinks: func(cinemaID string, number int64) (string, string) {
				if s.walletMailLinks == nil {
					return "", ""
				}
				return s.walletMailLinks(cinemaID, number)
			}}
		s.afterRoutes(func() { comp.FindURL = s.Kernel.AbsURL("booking.find") })
		m.Sender = &mail.Sender{Outbox: m.Outbox, Compose: comp.Compose, Transport: d.Transport, From: d.From,
			Logger: s.Kernel.Logger.With("component", "mail"), Backoff: d.Backoff}
	}
	s.Mail = m
	s.Ledger.OnTransition(m.LedgerHook)
	s.Purchases.OnChange(m.CheckoutHook(visit.NoticeLang))
	return nil
}

// StartMailSender delivers the outbox until ctx ends (no-op without a transport).
func (s *Server) StartMailSender(ctx context.Context, every time.Duration) {
	if s.Mail == nil || s.Mail.Sender == nil {
		return
	}
	go s.Mail.Sender.Run(ctx, every)
}

// DeliverMail delivers what is due now (tests, and the `web` start-up).
func (s *Server) DeliverMail(ctx context.Context) (int, error) {
	if s.Mail == nil || s.Mail.Sender == nil {
		return 0, nil
	}
	return s.Mail.Sender.RunOnce(ctx)
}
