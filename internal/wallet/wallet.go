// Package wallet makes a booking's passes for the phone's wallet from the booking as the
// ticketing system has it now: the Apple Wallet pass (applepass) and the Google Wallet event
// ticket objects (googlepass). It reads the booking each time, so a pass never shows a seat or a
// ticket the booking no longer has.
package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

// ErrNoTickets is returned for a booking with no ticket left to show.
var ErrNoTickets = errors.New("wallet: the booking has no ticket")

// Bookings reads a booking as it is now.
type Bookings interface {
	ReadBooking(ctx context.Context, cinemaID string, number int64, also ...func(context.Context, cinema.Booking)) (cinema.Booking, error)
}

// Cinemas names a cinema and gives its time zone.
type Cinemas interface {
	CinemaByID(ctx context.Context, id string) cinema.Cinema
}

// Service makes the passes.
type Service struct {
	Bookings     Bookings
	Cinemas      Cinemas
	Codes        *tickets.Signer // signs each ticket's code, as its QR carries it
	Organization string          // the operator's name on the pass
	Colors       applepass.Colors
	Apple        applepass.Identity
	Google       googlepass.Issuer
	GoogleKey    googlepass.ServiceAccount
	Now          func() time.Time
	// Passes keeps each booking's Apple pass (its serial, its token, when it last changed);
	// WebServiceURL is where Wallet asks for the pass again after a change ("": a pass that
	// never updates, and no Passes needed).
	Passes        *passes.Store
	WebServiceURL string
}

func (s *Service) read(ctx context.Context, cinemaID string, number int64) (cinema.Booking, cinema.Cinema, []tickets.Card, error) {
	b, err := s.Bookings.ReadBooking(ctx, cinemaID, number)
	if err != nil {
		return b, cinema.Cinema{}, nil, err
	}
	c := s.Cinemas.CinemaByID(ctx, cinemaID)
	cards, err := tickets.Cards(b, s.Codes, c.Location(), "en")
	if err != nil {
		return b, c, nil, fmt.Errorf("wallet: codes of booking %d: %w", number, err)
	}
	if len(cards) == 0 {
		return b, c, nil, ErrNoTickets
	}
	return b, c, cards, nil
}

// ApplePass is the booking's signed .pkpass: the film, the show time in the cinema's zone, the
// screen, every seat and the booking number, with the first ticket's signed code as its QR
// code. It returns when it was made as its modification time.
func (s *Service) ApplePass(ctx context.Context, cinemaID string, number int64) ([]byte, time.Time, error) {
	serial, token, modified := fmt.Sprintf("%s-%d", cinemaID, number), "", s.now()
	if s.Passes != nil && s.WebServiceURL != "" {
		issued, err := s.Passes.Ensure(ctx, s.Apple.PassTypeID, cinemaID, number)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("wallet: pass of booking %d: %w", number, err)
		}
		serial, token, modified = issued.Serial, issued.Token, issued.UpdatedAt
	}
	return s.applePass(ctx, cinemaID, number, serial, token, modified)
}

// LatestPass is the pass Wallet asks for after a change: the booking's pass as it is now, signed
// again (so a pass issued before a certificate was renewed carries the new one).
func (s *Service) LatestPass(ctx context.Context, passType, serial string) ([]byte, time.Time, error) {
	p, err := s.Passes.Lookup(ctx, passType, serial)
	if err != nil {
		return nil, time.Time{}, err
	}
	return s.applePass(ctx, p.CinemaID, p.BookingNumber, p.Serial, s.Passes.Token(passType, serial), p.UpdatedAt)
}

func (s *Service) applePass(ctx context.Context, cinemaID string, number int64, serial, token string, modified time.Time) ([]byte, time.Time, error) {
	b, c, cards, err := s.read(ctx, cinemaID, number)
	if err != nil {
		return nil, time.Time{}, err
	}
	p := applepass.Pass{
		SerialNumber:     serial,
		Description:      fmt.Sprintf("%s: %s", s.Organization, b.Session.FilmTitle),
		OrganizationName: s.Organization,
		Colors:           s.Colors,
		FilmTitle:        b.Session.FilmTitle,
		ShowStart:        b.Session.Showtime,
		TimeZone:         c.Location(),
		Venue:            c.Name,
		Screen:           b.Session.ScreenName,
		BookingNumber:    fmt.Sprint(number),
		BarcodeMessage:   cards[0].Payload,
		BarcodeAltText:   cards[0].SeatText,
	}
	if token != "" {
		p.WebServiceURL, p.AuthenticationToken = s.WebServiceURL, token
	}
	for _, card := range cards {
		if card.Row != "" {
			p.Seats = append(p.Seats, applepass.Seat{Row: card.Row, Number: card.Seat})
		}
	}
	out, err := applepass.Sign(s.Apple, p, nil)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("wallet: pass of booking %d: %w", number, err)
	}
	return out, modified, nil
}

// GoogleSaveURL is the booking's Add to Google Wallet link: one event ticket object per ticket.
func (s *Service) GoogleSaveURL(ctx context.Context, cinemaID string, number int64, lang string) (string, error) {
	b, _, cards, err := s.read(ctx, cinemaID, number)
	if err != nil {
		return "", err
	}
	ts := make([]googlepass.Ticket, 0, len(cards))
	for _, card := range cards {
		ts = append(ts, googlepass.Ticket{
			Serial: fmt.Sprintf("%s-%d-%d", cinemaID, number, card.Line), Film: card.Film, Row: card.Row, Seat: card.Seat,
			Barcode: card.Payload, Booking: fmt.Sprint(number), Start: b.Session.Showtime, Active: true,
		})
	}
	return s.Google.SaveURL(s.GoogleKey, ts, lang, s.now())
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
