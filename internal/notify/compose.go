package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/upstream"
	mailview "github.com/cinemabff/cinemabff/views/mail"
)

// Composer turns outbox messages into e-mails with the booking's current tickets.
type Composer struct {
	// Booking reads a booking as it stands now (internal/bookings).
	Booking func(ctx context.Context, cinemaID string, number int64) (cinema.Booking, error)
	// Cinema gives a cinema's name, time zone and locale.
	Cinema func(ctx context.Context, id string) cinema.Cinema
	Signer *tickets.Signer
	// SiteName signs the message; FindURL is where a booking is found online.
	SiteName string
	FindURL  string
	// QRPixels is the width of the QR images (default 320).
	QRPixels int
}

// ErrNoBooking wraps mail.ErrPermanent: the booking a message is about does not exist.
var ErrNoBooking = fmt.Errorf("notify: the booking does not exist: %w", mail.ErrPermanent)

// Compose is a mail.Composer.
func (c *Composer) Compose(ctx context.Context, m mail.Message) (mail.Rendered, error) {
	n, err := Decode(m)
	if err != nil {
		return mail.Rendered{}, err
	}
	cin := c.Cinema(ctx, n.CinemaID)
	var b *cinema.Booking
	if n.BookingNumber != 0 {
		got, err := c.Booking(ctx, n.CinemaID, n.BookingNumber)
		if errors.Is(err, upstream.ErrNotFound) {
			return mail.Rendered{}, fmt.Errorf("booking %d: %w", n.BookingNumber, ErrNoBooking)
		}
		if err != nil {
			return mail.Rendered{}, fmt.Errorf("read booking %d for the %s message: %w", n.BookingNumber, n.Kind, err)
		}
		b = &got
	}
	v, err := c.view(n, b, cin)
	if err != nil {
		return mail.Rendered{}, err
	}
	r := mail.Rendered{To: n.To, Subject: subject(n, b, cin)}
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
	var html bytes.Buffer
	if err := mailview.Message(v).Render(ctx, &html); err != nil {
		return mail.Rendered{}, fmt.Errorf("render the %s message: %w", n.Kind, err)
	}
	r.HTML, r.Text = html.String(), Text(v)
	return r, nil
}

// subject is the message's subject line.
func subject(n Notice, b *cinema.Booking, cin cinema.Cinema) string {
	film := n.Film
	if b != nil && b.Session.FilmTitle != "" {
		film = b.Session.FilmTitle
	}
	switch n.Kind {
	case KindPurchase:
		return fmt.Sprintf("Your tickets for %s: booking %d", film, n.BookingNumber)
	case KindPurchaseLate:
		return fmt.Sprintf("Your booking is confirmed after all: booking %d", n.BookingNumber)
	case KindOrderGivenUp:
		return fmt.Sprintf("Your order %s was not completed", n.Reference)
	case KindEdit:
		return fmt.Sprintf("Booking %d was changed: your new tickets", n.BookingNumber)
	case KindSwap:
		return fmt.Sprintf("New seats for booking %d: your new tickets", n.BookingNumber)
	case KindRefund:
		return fmt.Sprintf("Refund for booking %d", n.BookingNumber)
	}
	return fmt.Sprintf("About your booking at %s", cin.Name)
}

// view is what the message says, for both parts.
func (c *Composer) view(n Notice, b *cinema.Booking, cin cinema.Cinema) (mailview.MessageView, error) {
	loc := cin.Location()
	v := mailview.MessageView{SiteName: c.SiteName, Footer: fmt.Sprintf("%s · %s. This message was sent to %s.", c.SiteName, cin.Name, n.To)}
	hello := "Hello,"
	if n.Name != "" {
		hello = "Hello " + n.Name + ","
	}
	money := func(m cinema.Money) string { return m.Format(cin.Locale) }
	showing := ""
	if b != nil {
		showing = fmt.Sprintf("%s, %s, %s", b.Session.FilmTitle, when(b.Session.Showtime, loc), b.Session.ScreenName)
	} else if n.Film != "" {
		showing = fmt.Sprintf("%s, %s, %s", n.Film, when(n.Showtime, loc), n.Screen)
	}
	switch n.Kind {
	case KindPurchase, KindPurchaseLate:
		v.Heading = fmt.Sprintf("You're booked: booking %d", n.BookingNumber)
		v.Intro = []string{hello, "Thank you for your booking. Your tickets are below: show them on your phone at the door, or print them.", showing}
		if n.Kind == KindPurchaseLate {
			v.Intro[1] = "The cinema has now confirmed your booking. We are sorry it took so long. Your tickets are below: show them on your phone at the door, or print them."
		}
	case KindOrderGivenUp:
		v.Heading = fmt.Sprintf("Your order %s was not completed", n.Reference)
		v.Intro = []string{hello, n.Outcome}
		if showing != "" {
			v.Intro = append(v.Intro, "The order was for: "+showing+".")
		}
		v.Sections = append(v.Sections, mailview.Section{Heading: "About your money", Items: []string{n.Policy}})
	case KindEdit:
		v.Heading = fmt.Sprintf("Booking %d was changed", n.BookingNumber)
		v.Intro = []string{hello, "Your booking was changed. Your new tickets are below; tickets you had before that are not listed there are no longer valid.", showing}
	case KindSwap:
		v.Heading = fmt.Sprintf("New seats for booking %d", n.BookingNumber)
		v.Intro = []string{hello, "Your seats were changed. Your new tickets are below; the old ones are no longer valid.", showing}
	case KindRefund:
		v.Heading = fmt.Sprintf("Refund for booking %d", n.BookingNumber)
		v.Intro = []string{hello, "Your change to the booking could not be completed, so the payment you made for it was given back. Your booking is as it was before; its tickets are below."}
	default:
		return v, fmt.Errorf("notify: unknown message kind %q: %w", n.Kind, mail.ErrPermanent)
	}
	if items := changeItems(n, money); len(items) > 0 {
		h := "What changed"
		if n.Kind == KindPurchase || n.Kind == KindPurchaseLate {
			h = "What you bought"
		}
		v.Sections = append(v.Sections, mailview.Section{Heading: h, Items: items})
	}
	if items := moneyItems(n, money); len(items) > 0 {
		v.Sections = append(v.Sections, mailview.Section{Heading: "Money", Items: items})
	}
	for _, r := range n.Replaced {
		v.Replaced = append(v.Replaced, strings.TrimSpace(r.Description+" "+parens(r.Seat)))
	}
	if b != nil {
		cards, err := tickets.Cards(*b, c.Signer, loc, cin.Locale)
		if len(cards) == 0 && err != nil {
			return v, fmt.Errorf("tickets of booking %d: %w", b.Number, err)
		}
		for _, t := range cards {
			v.Tickets = append(v.Tickets, mailview.Ticket{Card: t})
		}
		v.LinkURL, v.LinkText = c.FindURL, fmt.Sprintf("See or change booking %d online", b.Number)
	}
	return v, nil
}

func changeItems(n Notice, money func(cinema.Money) string) []string {
	var out []string
	for _, l := range n.Lines {
		amount := ""
		if l.Amount.Currency != "" {
			amount = ", " + money(l.Amount)
		}
		switch l.Change {
		case ChangeAdded:
			out = append(out, "Added: "+l.Description+" "+parens(l.Seat)+amount)
		case ChangeRemoved:
			out = append(out, "Removed: "+l.Description+" "+parens(l.Seat)+amount)
		case ChangeMoved:
			out = append(out, fmt.Sprintf("Moved: %s from %s to %s", l.Description, l.From, l.Seat))
		case ChangeBought:
			out = append(out, l.Description+" "+parens(l.Seat)+amount)
		}
	}
	for i := range out {
		out[i] = strings.Join(strings.Fields(out[i]), " ")
		out[i] = strings.ReplaceAll(out[i], " ,", ",")
	}
	if n.OldTotal.Currency != "" && n.NewTotal.Currency != "" {
		out = append(out, fmt.Sprintf("Total before: %s. Total now: %s.", money(n.OldTotal), money(n.NewTotal)))
	} else if n.Total.Currency != "" {
		out = append(out, "Total: "+money(n.Total))
	}
	return out
}

func moneyItems(n Notice, money func(cinema.Money) string) []string {
	var out []string
	for _, m := range n.Money {
		card := ""
		if m.Card != "" {
			card = " (" + m.Card + ")"
		}
		switch m.What {
		case MoneyPaid:
			out = append(out, "Paid: "+money(m.Amount)+card)
		case MoneyRefunded:
			out = append(out, "Refunded: "+money(m.Amount)+" to your payment"+card+". Refunds usually reach your account within 5 to 10 working days.")
		case MoneyAtCinema:
			out = append(out, "The amount to pay at the cinema changed by "+money(m.Amount)+".")
		}
	}
	return out
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func when(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("Monday 2 January 2006, 15:04")
}

// Text is the text/plain part: the same words as the HTML part.
func Text(v mailview.MessageView) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteString("\r\n") }
	line(v.Heading)
	line(strings.Repeat("=", min(len(v.Heading), 72)))
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
		line("Your tickets (the QR codes are in the HTML version of this message):")
		for _, t := range v.Tickets {
			line(fmt.Sprintf("- %s, %s %s, %s: %s. %s, %s. Booking %s.", t.Film, t.Date, t.Time, t.Screen, t.SeatText, t.Type, t.Price, t.BookingNumber))
		}
		line("")
	}
	if len(v.Replaced) > 0 {
		line("No longer valid (replaced, not accepted at the door):")
		for _, r := range v.Replaced {
			line("- " + r)
		}
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
