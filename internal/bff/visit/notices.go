package visit

import (
	"context"
	"strings"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/changes"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/views/components"
)

// WriteNotice records a notice in its own transaction (a swap, an edit without money).
func (v *Visits) WriteNotice(ctx context.Context, n notify.Notice) {
	if v.mail == nil {
		return
	}
	if err := v.mail.Write(ctx, n); err != nil {
		// The change itself is done upstream; the page shows it and says no message was written.
		web.LoggerFrom(ctx, v.kernel.Logger).Error("customer message not written", "kind", n.Kind, "booking", n.BookingNumber, "err", err)
	}
}

// MailLine says where the message with the given key stands, in words for the page (in the
// request's language): only what the outbox shows ("" when there is no such message).
func (v *Visits) MailLine(ctx context.Context, key string) string {
	return v.mailLine(ctx, key, false)
}

func (v *Visits) mailLine(ctx context.Context, key string, staff bool) string {
	if v.mail == nil || key == "" {
		return ""
	}
	m, err := v.mail.Outbox.ByKey(ctx, key)
	if err != nil {
		return ""
	}
	l := i18n.FromContext(ctx)
	to := maskEmail(l, m.To)
	if staff {
		switch m.State {
		case mail.StateSent:
			return l.T("notice.counter.mail_sent", "Address", to)
		case mail.StateUndeliverable:
			return l.T("notice.counter.mail_undeliverable", "Address", to)
		}
		return l.T("notice.counter.mail_on_its_way", "Address", to)
	}
	switch m.State {
	case mail.StateSent:
		return l.T("notice.mail_sent", "Address", to)
	case mail.StateUndeliverable:
		return l.T("notice.mail_undeliverable", "Address", to)
	}
	return l.T("notice.mail_on_its_way", "Address", to)
}

// CounterMailLine is MailLine in the box office's words: the customer's e-mail, not "your".
func (v *Visits) CounterMailLine(ctx context.Context, key string) string {
	return v.mailLine(ctx, key, true)
}

// TicketsView makes the booking's tickets with their QR codes, and the tickets its recorded
// changes replaced, in the request's language.
func (v *Visits) TicketsView(ctx context.Context, b cinema.Booking, printURL string) components.TicketsView {
	view := components.TicketsView{PrintURL: printURL}
	if v.mail == nil {
		return view
	}
	l := i18n.FromContext(ctx)
	cin := v.CinemaByID(ctx, b.CinemaID)
	loc := cin.Location()
	log := web.LoggerFrom(ctx, v.kernel.Logger)
	cards, err := tickets.Cards(b, v.mail.Signer, loc, cin.Locale)
	if err != nil {
		log.Warn("tickets without codes", "booking", b.Number, "err", err)
	}
	// A replaced ticket is known by the words its change recorded, in the language of the
	// visit that made it: a current ticket is matched in every language.
	current := map[string]bool{}
	for _, c := range cards {
		seats := []string{c.SeatText}
		for _, t := range i18n.Languages {
			seats = append(seats, tickets.SeatWords(v.kernel.Langs.For(t), c.Row, c.Seat))
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
		view.Cards = append(view.Cards, card)
	}
	all, err := v.mail.Changes.ForBooking(ctx, b.CinemaID, b.Number)
	if err != nil {
		log.Warn("booking changes", "booking", b.Number, "err", err)
	}
	for _, r := range changes.NoLongerValid(all, current) {
		when := l.Time(r.At, loc, i18n.DateTimeShort)
		by := l.T("notice.replaced_by_edit", "When", when)
		if r.By == changes.KindSwap {
			by = l.T("notice.replaced_by_swap", "When", when)
		}
		view.Replaced = append(view.Replaced, components.ReplacedTicket{Description: r.Description, Seat: r.Seat, When: by})
	}
	return view
}

// EditNoticeKey is the outbox key of the message about the edit with that userSessionId: one
// message per edit, however often its completion is asked for.
func EditNoticeKey(editSessionID string) string { return "edit:" + editSessionID }

// EditNotice is what an edit will tell the customer, written with its ledger entries (or at
// once when no money moves), in the language of the visit behind ctx.
func EditNotice(ctx context.Context, e Edit, lines []notify.Line, oldTotal, newTotal cinema.Money) notify.Notice {
	n := notify.Notice{Kind: notify.KindEdit, Key: EditNoticeKey(e.UserSessionID), To: e.Email, Lang: NoticeLang(ctx), CinemaID: e.CinemaID,
		BookingNumber: e.BookingNumber, Film: e.FilmTitle, Showtime: e.Showtime, Screen: e.Screen, Lines: lines, OldTotal: oldTotal, NewTotal: newTotal}
	if e.MovedFrom != nil {
		n.FromFilm, n.FromShowtime, n.FromScreen = e.MovedFrom.FilmTitle, e.MovedFrom.Showtime, e.MovedFrom.Screen
	}
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

// NoticeLang is the language of the visit behind ctx, for its notices ("" without one: the
// message is then written in the site's fallback).
func NoticeLang(ctx context.Context) string {
	if l := i18n.FromContext(ctx); l != nil {
		return l.Lang()
	}
	return ""
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

// RememberMail keeps the outbox key of the message about the visit's last change, for the
// booking page to say where that message stands.
func (v *Visits) RememberMail(ctx context.Context, key string) {
	v.kernel.Sessions.Put(ctx, SessMailKey, key)
}
