package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cinemabff/cinemabff/internal/calendar"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/mailview"
)

// Composer turns outbox messages into e-mails with the booking's current tickets, in the
// language the booking was made in (the message's Lang).
type Composer struct {
	// Booking reads a booking as it stands now (internal/bookings).
	Booking func(ctx context.Context, cinemaID string, number int64) (cinema.Booking, error)
	// Cinema gives a cinema's name and time zone.
	Cinema func(ctx context.Context, id string) cinema.Cinema
	Signer *tickets.Signer
	// Catalog has the words of every language (internal/i18n); required.
	Catalog *i18n.Catalog
	// SiteName signs the message; FindURL is where a booking is found online.
	SiteName string
	FindURL  string
	// QRPixels is the width of the QR images (default 320).
	QRPixels int
	// Calendar makes the booking's calendar file (.ics) in l's language; every confirmation
	// (purchase, late purchase, edit, swap) carries it as an attachment. nil: none.
	Calendar func(ctx context.Context, l *i18n.Localizer, b cinema.Booking) ([]byte, error)
	// WalletLinks are the booking's Add to Apple Wallet and Add to Google Wallet addresses
	// (absolute; each carries a token good for that booking's passes only); every confirmation
	// offers them. nil or "": none.
	WalletLinks func(cinemaID string, number int64) (apple, google string)
}

// Confirms reports whether a message of this kind confirms the booking as it stands, and so
// carries its calendar event.
func (k Kind) Confirms() bool {
	return k == KindPurchase || k == KindPurchaseLate || k == KindEdit || k == KindSwap
}

// ErrNoBooking wraps mail.ErrPermanent: the booking a message is about does not exist.
var ErrNoBooking = fmt.Errorf("notify: the booking does not exist: %w", mail.ErrPermanent)

// errNoCatalog: the Composer was set up without its catalog (retried: a configuration fault
// that a fixed deployment mends, not a fault of the message).
var errNoCatalog = errors.New("notify: the composer has no message catalog")

// Compose is a mail.Composer.
func (c *Composer) Compose(ctx context.Context, m mail.Message) (mail.Rendered, error) {
	n, err := Decode(m)
	if err != nil {
		return mail.Rendered{}, err
	}
	if c.Catalog == nil {
		return mail.Rendered{}, errNoCatalog
	}
	// The language was chosen when the message was written, by the visit that caused it; the
	// sender's context (a background worker) has none of its own.
	lang := m.Lang
	if lang == "" {
		lang = n.Lang
	}
	l := c.Catalog.ForCode(lang)
	cin := c.Cinema(ctx, n.CinemaID)
	var b *cinema.Booking
	if n.BookingNumber != 0 {
		got, err := c.Booking(i18n.NewContext(ctx, l), n.CinemaID, n.BookingNumber) // its names in the message's language
		if errors.Is(err, upstream.ErrNotFound) {
			return mail.Rendered{}, fmt.Errorf("booking %d: %w", n.BookingNumber, ErrNoBooking)
		}
		if err != nil {
			return mail.Rendered{}, fmt.Errorf("read booking %d for the %s message: %w", n.BookingNumber, n.Kind, err)
		}
		b = &got
	}
	v, err := c.view(l, n, b, cin)
	if err != nil {
		return mail.Rendered{}, err
	}
	r := mail.Rendered{To: n.To, Subject: v.Subject, Lang: l.Lang()}
	px := c.QRPixels
	if px <= 0 {
		px = 320
	}
	for i, t := range v.Tickets {
		if t.Payload == "" {
			continue // a ticket whose labels no code can carry: listed without one
		}
		img, err := tickets.PNG(t.Payload, px)
		if err != nil {
			return mail.Rendered{}, fmt.Errorf("QR code of ticket %d: %w", t.Line, err)
		}
		cid := fmt.Sprintf("ticket-%d-%d@tickets", n.BookingNumber, t.Line)
		v.Tickets[i].Src = "cid:" + cid
		r.Inline = append(r.Inline, mail.Inline{CID: cid, Filename: fmt.Sprintf("ticket-%d.png", t.Line), ContentType: "image/png", Data: img})
	}
	if b != nil && c.Calendar != nil && n.Kind.Confirms() {
		// The booking as read above: after the change, so the event has its new time and seats.
		ics, err := c.Calendar(ctx, l, *b)
		if err != nil {
			return mail.Rendered{}, fmt.Errorf("calendar event of booking %d: %w", n.BookingNumber, err)
		}
		r.Attachments = append(r.Attachments, mail.Attachment{Filename: calendar.Filename(n.BookingNumber), ContentType: calendar.ContentType, Data: ics})
	}
	var html bytes.Buffer
	if err := mailview.Message(v).Render(i18n.NewContext(ctx, l), &html); err != nil {
		return mail.Rendered{}, fmt.Errorf("render the %s message: %w", n.Kind, err)
	}
	r.HTML, r.Text = html.String(), Text(l, v)
	return r, nil
}

// view is what the message says, for both parts, in l's language.
func (c *Composer) view(l *i18n.Localizer, n Notice, b *cinema.Booking, cin cinema.Cinema) (mailview.MessageView, error) {
	loc := cin.Location()
	v := mailview.MessageView{Lang: l.Lang(), SiteName: c.SiteName,
		Footer: l.T("mail.footer", "Site", c.SiteName, "Cinema", cin.Name, "To", n.To)}
	if err := headWords(&v, l, n, openingOf(l, n, b, loc), loc); err != nil {
		return v, err
	}
	addSections(&v, l, n)
	if b != nil {
		if err := c.addTickets(&v, l, n, *b, loc); err != nil {
			return v, err
		}
	}
	return v, nil
}

// opening is what every kind of message starts from: the greeting, the film and the showing
// (as the booking stands now when there is one, else as the notice recorded it), the number.
type opening struct {
	hello, film, showing, number string
}

func openingOf(l *i18n.Localizer, n Notice, b *cinema.Booking, loc *time.Location) opening {
	o := opening{hello: l.T("mail.hello"), film: n.Film, number: fmt.Sprint(n.BookingNumber)}
	if n.Name != "" {
		o.hello = l.T("mail.hello_name", "Name", n.Name)
	}
	if b != nil {
		o.film = b.Session.FilmTitle
		o.showing = joinWords(b.Session.FilmTitle, when(l, b.Session.Showtime, loc), b.Session.ScreenName)
	} else if n.Film != "" {
		o.showing = joinWords(n.Film, when(l, n.Showtime, loc), n.Screen)
	}
	return o
}

// headWords sets the subject, the heading and the opening lines of the message's kind; an
// unknown kind is a permanent error.
func headWords(v *mailview.MessageView, l *i18n.Localizer, n Notice, o opening, loc *time.Location) error {
	ticketsBelow := l.T("mail.tickets_below")
	switch n.Kind {
	case KindPurchase:
		v.Subject = l.T("mail.subject_purchase", "Film", o.film, "Number", o.number)
		v.Heading = l.T("mail.heading_purchase", "Number", o.number)
		v.Intro = []string{o.hello, l.T("mail.purchase_thanks") + " " + ticketsBelow, o.showing}
	case KindPurchaseLate:
		v.Subject = l.T("mail.subject_purchase_late", "Number", o.number)
		v.Heading = l.T("mail.heading_purchase", "Number", o.number)
		v.Intro = []string{o.hello, l.T("mail.purchase_late") + " " + ticketsBelow, o.showing}
	case KindOrderGivenUp:
		orderGivenUpWords(v, l, n, o)
	case KindEdit:
		editWords(v, l, n, o, loc)
	case KindSwap:
		v.Subject = l.T("mail.subject_swap", "Number", o.number)
		v.Heading = l.T("mail.heading_swap", "Number", o.number)
		v.Intro = []string{o.hello, l.T("mail.swap_intro"), o.showing}
	case KindRefund:
		v.Subject = l.T("mail.refund", "Number", o.number)
		v.Heading = v.Subject
		v.Intro = []string{o.hello, l.T("mail.refund_intro")}
	default:
		return fmt.Errorf("notify: unknown message kind %q: %w", n.Kind, mail.ErrPermanent)
	}
	return nil
}

// orderGivenUpWords tells what became of an order given up and what happens to the money.
func orderGivenUpWords(v *mailview.MessageView, l *i18n.Localizer, n Notice, o opening) {
	v.Subject = l.T("mail.order_given_up", "Reference", n.Reference)
	v.Heading = v.Subject
	v.Intro = []string{o.hello, outcome(l, n)}
	if o.showing != "" {
		v.Intro = append(v.Intro, l.T("mail.order_was_for", "Showing", o.showing))
	}
	policy := n.Policy
	if policy == "" {
		policy = l.T("mail.default_policy")
	}
	v.Sections = append(v.Sections, mailview.Section{Heading: l.T("mail.about_your_money"), Items: []string{policy}})
}

// editWords tells of a changed booking; a move to another showtime names the old show and the
// new one.
func editWords(v *mailview.MessageView, l *i18n.Localizer, n Notice, o opening, loc *time.Location) {
	v.Subject = l.T("mail.subject_edit", "Number", o.number)
	v.Heading = l.T("mail.heading_edit", "Number", o.number)
	v.Intro = []string{o.hello, l.T("mail.edit_intro"), o.showing}
	if !n.FromShowtime.IsZero() {
		// A move to another showtime: the old show and the new one, by name.
		v.Subject = l.T("mail.subject_moved", "Number", o.number)
		from := joinWords(n.FromFilm, when(l, n.FromShowtime, loc), n.FromScreen)
		v.Intro = []string{o.hello, l.T("mail.moved_intro"), l.T("mail.moved_from", "Showing", from), l.T("mail.moved_to", "Showing", o.showing)}
	}
}

// addSections lists what changed (or was bought), the money, and the tickets replaced.
func addSections(v *mailview.MessageView, l *i18n.Localizer, n Notice) {
	if items := changeItems(l, n); len(items) > 0 {
		h := l.T("mail.what_changed")
		if n.Kind == KindPurchase || n.Kind == KindPurchaseLate {
			h = l.T("mail.what_you_bought")
		}
		v.Sections = append(v.Sections, mailview.Section{Heading: h, Items: items})
	}
	if items := moneyItems(l, n); len(items) > 0 {
		v.Sections = append(v.Sections, mailview.Section{Heading: l.T("mail.money"), Items: items})
	}
	for _, r := range n.Replaced {
		v.Replaced = append(v.Replaced, joinSpace(r.Description, parens(r.Seat)))
	}
}

// addTickets adds the booking's tickets as they stand, the link to it online and, to a
// confirmation with tickets, the wallet links.
func (c *Composer) addTickets(v *mailview.MessageView, l *i18n.Localizer, n Notice, b cinema.Booking, loc *time.Location) error {
	cards, err := tickets.Cards(b, c.Signer, loc, "")
	if len(cards) == 0 && err != nil {
		return fmt.Errorf("tickets of booking %d: %w", b.Number, err)
	}
	for _, t := range LocalizeCards(cards, b, l, loc) {
		v.Tickets = append(v.Tickets, mailview.Ticket{Card: t})
	}
	v.LinkURL, v.LinkText = c.FindURL, l.T("mail.see_online", "Number", fmt.Sprint(b.Number))
	if c.WalletLinks != nil && n.Kind.Confirms() && len(cards) > 0 {
		v.AppleWalletURL, v.GoogleWalletURL = c.WalletLinks(b.CinemaID, b.Number)
		v.AppleWalletText, v.GoogleWalletText = l.T("wallet.add_apple"), l.T("wallet.add_google")
	}
	return nil
}

// Outcomes of an order given up (Notice.Outcome); any other text is an older notice's own
// words, shown as they are.
const (
	OutcomeCancelled    = "cancelled"     // cancelled upstream: its seats are free again
	OutcomeNotCancelled = "not-cancelled" // the ticketing system would not cancel it
)

func outcome(l *i18n.Localizer, n Notice) string {
	wait := l.Duration(n.Waited)
	switch n.Outcome {
	case OutcomeCancelled:
		return l.T("mail.given_up_cancelled", "Wait", wait)
	case OutcomeNotCancelled:
		return l.T("mail.given_up_not_cancelled", "Wait", wait)
	}
	return n.Outcome
}

func changeItems(l *i18n.Localizer, n Notice) []string {
	var out []string
	for _, ln := range n.Lines {
		ticket := joinSpace(ln.Description, parens(ln.Seat))
		if ln.Amount.Currency != "" && ln.Change != ChangeMoved {
			ticket += ", " + l.Money(ln.Amount)
		}
		switch ln.Change {
		case ChangeAdded:
			out = append(out, l.T("mail.line_added", "Ticket", ticket))
		case ChangeRemoved:
			out = append(out, l.T("mail.line_removed", "Ticket", ticket))
		case ChangeMoved:
			out = append(out, l.T("mail.line_moved", "Ticket", ln.Description, "From", ln.From, "To", ln.Seat))
		case ChangeBought:
			out = append(out, ticket)
		}
	}
	if n.OldTotal.Currency != "" && n.NewTotal.Currency != "" {
		out = append(out, l.T("mail.totals", "Before", l.Money(n.OldTotal), "Now", l.Money(n.NewTotal)))
	} else if n.Total.Currency != "" {
		out = append(out, l.T("mail.total", "Total", l.Money(n.Total)))
	}
	return out
}

func moneyItems(l *i18n.Localizer, n Notice) []string {
	var out []string
	for _, m := range n.Money {
		amount := l.Money(m.Amount)
		switch m.What {
		case MoneyPaid:
			if m.Card != "" {
				out = append(out, l.T("mail.paid_card", "Amount", amount, "Card", m.Card))
			} else {
				out = append(out, l.T("mail.paid", "Amount", amount))
			}
		case MoneyRefunded:
			s := l.T("mail.refunded", "Amount", amount)
			if m.Card != "" {
				s = l.T("mail.refunded_card", "Amount", amount, "Card", m.Card)
			}
			out = append(out, s+" "+l.T("mail.refund_takes"))
		case MoneyAtCinema:
			if m.Amount.Cents < 0 {
				out = append(out, l.T("mail.at_cinema_less", "Amount", l.Money(m.Amount.Neg())))
			} else {
				out = append(out, l.T("mail.at_cinema_more", "Amount", amount))
			}
		}
	}
	return out
}

// LocalizeCards writes the words of tickets.Cards' cards for booking b in l's language: the
// day and time of the showing in loc (the cinema's time zone), the seat and the price. The
// signed codes are left as they are.
func LocalizeCards(cards []tickets.Card, b cinema.Booking, l *i18n.Localizer, loc *time.Location) []tickets.Card {
	prices := map[int]cinema.Money{}
	for _, t := range b.Tickets {
		prices[t.Seq] = t.Price
	}
	out := make([]tickets.Card, len(cards))
	for i, c := range cards {
		if st := b.Session.Showtime; !st.IsZero() {
			c.Date, c.Time = l.Time(st, loc, i18n.DayLong), l.Time(st, loc, i18n.Clock)
		}
		c.SeatText = tickets.SeatWords(l, c.Row, c.Seat)
		if p, ok := prices[c.Line]; ok && p.Currency != "" {
			c.Price = l.Money(p)
		}
		out[i] = c
	}
	return out
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// joinSpace joins the non-empty parts with a space.
func joinSpace(parts ...string) string { return strings.Join(nonEmpty(parts), " ") }

// joinWords joins the non-empty parts with a comma: film, time, screen.
func joinWords(parts ...string) string { return strings.Join(nonEmpty(parts), ", ") }

func nonEmpty(parts []string) []string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// when is the showtime in the cinema's time zone, with its year: "Tuesday 24 November 2026,
// 20:30", a show after midnight with the night it belongs to, as the pages write it.
func when(l *i18n.Localizer, t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return l.Showtime(t, loc)
}

// Text is the text/plain part: the same words as the HTML part, in l's language.
func Text(l *i18n.Localizer, v mailview.MessageView) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteString("\r\n") }
	line(v.Heading)
	line(strings.Repeat("=", min(utf8.RuneCountInString(v.Heading), 72)))
	line("")
	for _, p := range v.Intro {
		if p != "" {
			line(p)
			line("")
		}
	}
	for _, s := range v.Sections {
		line(s.Heading + ":")
		for _, it := range s.Items {
			line("- " + it)
		}
		line("")
	}
	if len(v.Tickets) > 0 {
		line(l.T("mail.tickets_text"))
		for _, t := range v.Tickets {
			line("- " + l.T("mail.ticket_line", "Film", t.Film, "Date", t.Date, "Time", t.Time, "Screen", t.Screen,
				"Seat", t.SeatText, "Type", t.Type, "Price", t.Price, "Number", t.BookingNumber))
		}
		line("")
	}
	if len(v.Replaced) > 0 {
		line(l.T("mail.no_longer_valid") + ":")
		line(l.T("mail.replaced_text"))
		for _, r := range v.Replaced {
			line("- " + r)
		}
		line("")
	}
	if v.AppleWalletURL != "" {
		line(v.AppleWalletText + ": " + v.AppleWalletURL)
	}
	if v.GoogleWalletURL != "" {
		line(v.GoogleWalletText + ": " + v.GoogleWalletURL)
	}
	if v.AppleWalletURL != "" || v.GoogleWalletURL != "" {
		line("")
	}
	if v.LinkURL != "" {
		line(v.LinkText + ": " + v.LinkURL)
		line("")
	}
	line("-- ")
	line(v.Footer)
	return b.String()
}
