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
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlewallet"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

// ErrNoTickets is returned for a booking with no ticket left to show: it was cancelled.
var ErrNoTickets = errors.New("wallet: the booking has no ticket")

// ErrLinkExpired is what a LinkExpiredError is (errors.Is).
var ErrLinkExpired = errors.New("wallet: the wallet link has expired")

// DefaultLinkValidFor is how long after its show a booking's wallet links work by default.
const DefaultLinkValidFor = 7 * 24 * time.Hour

// LinkExpiredError says that a booking's wallet links no longer work: its show was longer ago
// than Service.LinkValidFor. Until is when they stopped, Zone the cinema's time zone.
type LinkExpiredError struct {
	Until time.Time
	Zone  *time.Location
}

func (e *LinkExpiredError) Error() string {
	return fmt.Sprintf("wallet: the wallet link expired at %s", e.Until.UTC().Format(time.RFC3339))
}

func (e *LinkExpiredError) Unwrap() error { return ErrLinkExpired }

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
	// Langs writes the pass's words in each of the site's languages (nil: English only).
	Langs  *i18n.Catalog
	Colors applepass.Colors
	// Locations is where each cinema is, by id: Wallet shows the pass on the lock screen near
	// it. A cinema not named has none.
	Locations map[string]applepass.Location
	Apple     applepass.Identity
	Google    googlepass.Issuer
	GoogleKey googlepass.ServiceAccount
	Now       func() time.Time
	// Passes keeps each booking's Apple pass (its serial, its token, when it last changed);
	// WebServiceURL is where Wallet asks for the pass again after a change ("": a pass that
	// never updates, and no Passes needed).
	Passes        *passes.Store
	WebServiceURL string
	// Notifier tells the phones holding a booking's Apple pass that it changed (nil: they see
	// it when Wallet next asks); GoogleAPI patches the Google objects handed out (nil: the
	// objects keep what they were saved with). Both need Passes.
	Notifier  *passes.Notifier
	GoogleAPI ObjectPatcher
	// LinkValidFor is how long after the show a booking's wallet links (ApplePass,
	// GoogleSaveURL) work; 0: DefaultLinkValidFor. A pass already in a wallet keeps updating.
	LinkValidFor time.Duration
}

// ObjectPatcher patches Google Wallet objects (a *googlewallet.Client).
type ObjectPatcher interface {
	Patch(ctx context.Context, o *googlepass.Object) error
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
// It answers a LinkExpiredError after the link's time and ErrNoTickets for a cancelled booking
// (whose passes are then voided), and issues no pass for either.
// The pass reads in lang (the language of the page it was asked from: the purchase's) where the
// phone has none of the site's languages, and in the phone's where it has (Words).
func (s *Service) ApplePass(ctx context.Context, cinemaID string, number int64, lang string) ([]byte, time.Time, error) {
	b, c, cards, err := s.readForLink(ctx, cinemaID, number)
	if err != nil {
		return nil, time.Time{}, err
	}
	serial, token, modified := fmt.Sprintf("%s-%d", cinemaID, number), "", s.now()
	if s.Passes != nil && s.WebServiceURL != "" {
		issued, err := s.Passes.Ensure(ctx, s.Apple.PassTypeID, cinemaID, number)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("wallet: pass of booking %d: %w", number, err)
		}
		serial, token, modified = issued.Serial, issued.Token, issued.UpdatedAt
	}
	return s.signPass(b, c, cards, cinemaID, number, serial, token, modified, lang)
}

// readForLink reads the booking for one of its wallet links: a cancelled booking (no ticket
// left) has its passes voided and answers ErrNoTickets; a show longer ago than LinkValidFor
// answers a LinkExpiredError.
func (s *Service) readForLink(ctx context.Context, cinemaID string, number int64) (cinema.Booking, cinema.Cinema, []tickets.Card, error) {
	b, c, cards, err := s.read(ctx, cinemaID, number)
	if errors.Is(err, ErrNoTickets) {
		// Cancelled where no change of ours saw it: the passes already in wallets say so too.
		return b, c, nil, errors.Join(err, s.Changed(ctx, cinemaID, number))
	}
	if err != nil {
		return b, c, nil, err
	}
	validFor := s.LinkValidFor
	if validFor <= 0 {
		validFor = DefaultLinkValidFor
	}
	if until := b.Session.Showtime.Add(validFor); !b.Session.Showtime.IsZero() && !s.now().Before(until) {
		return b, c, nil, &LinkExpiredError{Until: until, Zone: c.Location()}
	}
	return b, c, cards, nil
}

// LatestPass is the pass Wallet asks for after a change: the booking's pass as it is now, signed
// again (so a pass issued before a certificate was renewed carries the new one).
func (s *Service) LatestPass(ctx context.Context, passType, serial string) ([]byte, time.Time, error) {
	p, err := s.Passes.Lookup(ctx, passType, serial)
	if err != nil {
		return nil, time.Time{}, err
	}
	if p.Voided {
		return s.voidedPass(ctx, p)
	}
	out, modified, err := s.applePass(ctx, p.CinemaID, p.BookingNumber, p.Serial, s.Passes.Token(passType, serial), p.UpdatedAt)
	if !errors.Is(err, ErrNoTickets) {
		return out, modified, err
	}
	// The booking was cancelled where no change of ours saw it: Wallet is given the pass as
	// void (and the other devices holding it are told), as after a cancellation seen here.
	if err := s.void(ctx, passType, serial); err != nil {
		return nil, time.Time{}, err
	}
	if p, err = s.Passes.Lookup(ctx, passType, serial); err != nil {
		return nil, time.Time{}, err
	}
	return s.voidedPass(ctx, p)
}

// void marks a pass void and tells its devices (only marks it without a Notifier).
func (s *Service) void(ctx context.Context, passType, serial string) error {
	if s.Notifier != nil {
		return s.Notifier.Voided(ctx, passType, serial)
	}
	_, err := s.Passes.Void(ctx, passType, serial)
	return err
}

// voidedPass is the pass of a booking with no ticket left: Wallet shows it as void, and its
// code is no ticket's, so no door lets it in.
func (s *Service) voidedPass(ctx context.Context, v passes.Pass) ([]byte, time.Time, error) {
	b, err := s.Bookings.ReadBooking(ctx, v.CinemaID, v.BookingNumber)
	if err != nil {
		return nil, time.Time{}, err
	}
	p := s.passOf(b, s.Cinemas.CinemaByID(ctx, v.CinemaID), v.CinemaID, v.BookingNumber, v.Serial, s.Passes.Token(v.PassType, v.Serial))
	p.BarcodeMessage, p.BarcodeAltText, p.Voided = fmt.Sprintf("CANCELLED %d", v.BookingNumber), "Cancelled", true
	p.Locations = nil // nothing to bring up on the lock screen at the door
	out, err := applepass.Sign(s.Apple, p, nil)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("wallet: voided pass of booking %d: %w", v.BookingNumber, err)
	}
	return out, v.UpdatedAt, nil
}

// passOf is what every pass of the booking shows: the film, the show in the cinema's zone, the
// screen and the booking number, where the cinema is, and the web service's address with the
// pass's token ("": a pass that never updates).
func (s *Service) passOf(b cinema.Booking, c cinema.Cinema, cinemaID string, number int64, serial, token string) applepass.Pass {
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
	}
	if token != "" {
		p.WebServiceURL, p.AuthenticationToken = s.WebServiceURL, token
	}
	if at, ok := s.Locations[cinemaID]; ok {
		at.RelevantText = fmt.Sprintf("%s at %s", b.Session.FilmTitle, c.Name)
		p.Locations = []applepass.Location{at}
	}
	return p
}

func (s *Service) applePass(ctx context.Context, cinemaID string, number int64, serial, token string, modified time.Time) ([]byte, time.Time, error) {
	b, c, cards, err := s.read(ctx, cinemaID, number)
	if err != nil {
		return nil, time.Time{}, err
	}
	return s.signPass(b, c, cards, cinemaID, number, serial, token, modified, "")
}

// signPass is the booking's pass with its tickets' seats and the first one's code, signed.
func (s *Service) signPass(b cinema.Booking, c cinema.Cinema, cards []tickets.Card, cinemaID string, number int64, serial, token string, modified time.Time, lang string) ([]byte, time.Time, error) {
	p := s.passOf(b, c, cinemaID, number, serial, token)
	p.BarcodeMessage, p.BarcodeAltText = cards[0].Payload, cards[0].SeatText
	for _, card := range cards {
		if card.Row != "" {
			p.Seats = append(p.Seats, applepass.Seat{Row: card.Row, Number: card.Seat})
		}
	}
	p.Words = s.passWords(p, lang)
	out, err := applepass.Sign(s.Apple, p, nil)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("wallet: pass of booking %d: %w", number, err)
	}
	return out, modified, nil
}

// GoogleSaveURL is the booking's Add to Google Wallet link: one event ticket object per
// ticket. With Passes, the objects are noted, so that a change can patch them. Like ApplePass
// it answers a LinkExpiredError or ErrNoTickets.
func (s *Service) GoogleSaveURL(ctx context.Context, cinemaID string, number int64, lang string) (string, error) {
	b, _, cards, err := s.readForLink(ctx, cinemaID, number)
	if err != nil {
		return "", err
	}
	ts := googleTickets(cinemaID, number, b, cards, s.filmHeader(lang))
	if s.Passes != nil {
		issued := make([]passes.GoogleObject, 0, len(cards))
		for i, t := range ts {
			id, err := s.Google.ObjectID(t.Serial)
			if err != nil {
				return "", err
			}
			issued = append(issued, passes.GoogleObject{ID: id, Line: cards[i].Line})
		}
		if err := s.Passes.IssueGoogleObjects(ctx, cinemaID, number, issued); err != nil {
			return "", fmt.Errorf("wallet: google objects of booking %d: %w", number, err)
		}
	}
	return s.Google.SaveURL(s.GoogleKey, ts, lang, s.now())
}

// googleTickets are the booking's tickets as Google objects show them, in the cards' order.
// A ticket's serial is its line in the booking, which a seat swap keeps: the moved ticket's
// object is patched, not replaced.
func googleTickets(cinemaID string, number int64, b cinema.Booking, cards []tickets.Card, filmHeader []googlepass.Translation) []googlepass.Ticket {
	ts := make([]googlepass.Ticket, 0, len(cards))
	for _, card := range cards {
		ts = append(ts, googlepass.Ticket{
			Serial: fmt.Sprintf("%s-%d-%d", cinemaID, number, card.Line), Film: card.Film, Row: card.Row, Seat: card.Seat,
			Barcode: card.Payload, Booking: fmt.Sprint(number), Start: b.Session.Showtime, Active: true, FilmHeader: filmHeader,
		})
	}
	return ts
}

// Changed keeps the booking's passes true after a confirmed change: the Apple pass is marked
// updated and its phones are told (voided when no ticket is left), and each Google object
// handed out is patched to its ticket as it is now, or made inactive when its ticket is gone.
// Every failure is returned, joined; what did not fail is done.
func (s *Service) Changed(ctx context.Context, cinemaID string, number int64) error {
	if s.Passes == nil {
		return nil
	}
	// Most bookings never reach a wallet: the store is asked before the ticketing system.
	apple, err := s.Passes.PassOf(ctx, s.Apple.PassTypeID, cinemaID, number)
	if err != nil && !errors.Is(err, passes.ErrUnknownPass) {
		return fmt.Errorf("wallet: booking %d changed: %w", number, err)
	}
	tellApple := err == nil && !apple.Voided && s.Notifier != nil
	var issued []passes.GoogleObject
	if s.GoogleAPI != nil {
		if issued, err = s.Passes.ActiveGoogleObjects(ctx, cinemaID, number); err != nil {
			return fmt.Errorf("wallet: booking %d changed: %w", number, err)
		}
	}
	if !tellApple && len(issued) == 0 {
		return nil
	}
	b, _, cards, err := s.read(ctx, cinemaID, number)
	gone := errors.Is(err, ErrNoTickets)
	if err != nil && !gone {
		return fmt.Errorf("wallet: booking %d changed: %w", number, err)
	}
	var errs []error
	switch {
	case tellApple && gone:
		errs = append(errs, s.Notifier.Voided(ctx, apple.PassType, apple.Serial))
	case tellApple:
		errs = append(errs, s.Notifier.Changed(ctx, cinemaID, number))
	}
	if len(issued) > 0 {
		errs = append(errs, s.patchGoogle(ctx, issued, cinemaID, number, b, cards))
	}
	return errors.Join(errs...)
}

// patchGoogle patches each issued object to its ticket in cards, or makes it inactive.
func (s *Service) patchGoogle(ctx context.Context, issued []passes.GoogleObject, cinemaID string, number int64, b cinema.Booking, cards []tickets.Card) error {
	now := map[int]googlepass.Ticket{}
	for i, t := range googleTickets(cinemaID, number, b, cards, s.filmHeader("")) {
		now[cards[i].Line] = t
	}
	var errs []error
	for _, o := range issued {
		t, kept := now[o.Line]
		patch := &googlepass.Object{ID: o.ID, State: googlepass.StateInactive}
		if kept {
			var err error
			if patch, err = s.Google.ObjectOf(t, "en"); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		err := s.GoogleAPI.Patch(ctx, patch)
		if err != nil && !errors.Is(err, googlewallet.ErrNotSaved) {
			errs = append(errs, err)
			continue
		}
		if !kept {
			errs = append(errs, s.Passes.DeactivateGoogleObject(ctx, o.ID))
		}
	}
	return errors.Join(errs...)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
