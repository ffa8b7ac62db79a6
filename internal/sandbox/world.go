package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	_ "time/tzdata" // cinemas carry IANA time zones; the sandbox must not depend on the host's zoneinfo
)

// World is everything the sandbox knows when it starts: cinemas with their
// screens, sessions, prices and ready-made bookings, films, gift cards and
// loyalty members. DefaultWorld builds one in Go; LoadWorld reads the same
// structure from JSON (see docs/sandbox.md and testdata/world.example.json).
type World struct {
	Cinemas        []Cinema        `json:"cinemas"`
	Films          []Film          `json:"films"`
	GiftCards      []GiftCard      `json:"giftCards"`
	LoyaltyMembers []LoyaltyMember `json:"loyaltyMembers"`
}

// Cinema is one site with its own currency, screens and price lists.
type Cinema struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	CurrencyCode   string         `json:"currencyCode"`
	Locale         string         `json:"locale"`
	TimeZone       string         `json:"timeZone"`
	AreaCategories []AreaCategory `json:"areaCategories"`
	Screens        []Screen       `json:"screens"`
	TicketTypes    []TicketType   `json:"ticketTypes"`
	FeeRules       []FeeRule      `json:"feeRules"`
	Concessions    []Concession   `json:"concessions"`
	SuggestedDeals []Deal         `json:"suggestedDeals"`
	Sessions       []Session      `json:"sessions"`
	Bookings       []Booking      `json:"bookings"`
}

// AreaCategory is a price class of seats (standard, premium...).
type AreaCategory struct {
	Code           string `json:"code"`
	Description    string `json:"description"`
	InSeatDelivery bool   `json:"inSeatDelivery"`
}

// Screen is an auditorium. Its areas are stacked top to bottom in the order
// given (the first area is nearest the screen).
type Screen struct {
	Number int    `json:"number"`
	Name   string `json:"name"`
	Areas  []Area `json:"areas"`
}

// Area is a block of rows of one area category.
type Area struct {
	Number           int    `json:"number"`
	AreaCategoryCode string `json:"areaCategoryCode"`
	Description      string `json:"description"`
	Rows             []Row  `json:"rows"`
}

// Row is one row of an area, drawn as a string with one character per column
// (see SeatLegend). Name "" with Seats "" is a cross aisle. Row index 0 is the
// first row listed (nearest the screen).
type Row struct {
	Name  string `json:"name"`
	Seats string `json:"seats"`
}

// SeatLegend documents the characters of Row.Seats. Seats are labelled 1, 2,
// 3... from left to right, counting every character that is not a gap.
const SeatLegend = `s seat, . gap (aisle), W wheelchair space, c companion seat, h house seat, x broken seat, p placeholder, [ sofa left, = sofa middle, ] sofa right`

// TicketType is a price of one area category. PackageSize 2 or more makes it
// a package: one purchase holds that many seats.
type TicketType struct {
	Code                 string `json:"code"`
	AreaCategoryCode     string `json:"areaCategoryCode"`
	Description          string `json:"description"`
	LongDescription      string `json:"longDescription,omitempty"`
	PriceInCents         int64  `json:"priceInCents"`
	TaxInCents           int64  `json:"taxInCents"`
	PackageSize          int    `json:"packageSize,omitempty"`
	IsChild              bool   `json:"isChild,omitempty"`
	IsLoyaltyRecognition bool   `json:"isLoyaltyRecognition,omitempty"`
	IsVoucher            bool   `json:"isVoucher,omitempty"`
	IsThirdPartyMember   bool   `json:"isThirdPartyMember,omitempty"`
}

// FeeRule is the booking fee per ticket from ValidFrom on; the rule with the
// latest ValidFrom not after a moment applies at that moment. Tax is included
// in the fee at TaxRatePercent.
type FeeRule struct {
	ValidFrom        time.Time `json:"validFrom,omitzero"`
	ValidFromAgo     *Duration `json:"validFromAgo,omitempty"`
	PerTicketInCents int64     `json:"perTicketInCents"`
	TaxRatePercent   int64     `json:"taxRatePercent"`
}

// Concession is a food or drink item (only used on ready-made bookings).
type Concession struct {
	ItemID       string `json:"itemId"`
	Description  string `json:"description"`
	PriceInCents int64  `json:"priceInCents"`
	TaxInCents   int64  `json:"taxInCents"`
}

// Deal is a suggested deal shown on orders and edit orders.
type Deal struct {
	ID                             string `json:"id"`
	Description                    string `json:"description"`
	IsSeasonPass                   bool   `json:"isSeasonPass,omitempty"`
	IsTicketUpgrade                bool   `json:"isTicketUpgrade,omitempty"`
	LimitPerOrder                  *int   `json:"limitPerOrder,omitempty"`
	RequiresLoyalty                bool   `json:"requiresLoyalty,omitempty"`
	RequiresVoucher                bool   `json:"requiresVoucher,omitempty"`
	ExcludesExistingDeals          bool   `json:"excludesExistingDeals,omitempty"`
	ExcludesExistingDealsAvailable int    `json:"excludesExistingDealsAvailable,omitempty"`
}

// Session is a showing of a film on a screen. Give exactly one of Showtime
// (absolute), StartsIn (relative to the world's "now") or Day+At (a local
// wall-clock time in the cinema's time zone, Day 0 being today). Attributes
// are listed as SessionAttributesNames (e.g. "OV"). PriceAdjustInCents is
// the session's price card: it is added to the cinema's price of every ticket
// type for each seat the ticket holds (a package of two gets it twice), may be
// negative, and never takes a price below zero; an adjusted price carries the
// tax at the cinema's tax rate (that of its latest fee rule).
type Session struct {
	ID           int       `json:"id"`
	FilmID       string    `json:"filmId"`
	ScreenNumber int       `json:"screenNumber"`
	Showtime     time.Time `json:"showtime,omitzero"`
	StartsIn     *Duration `json:"startsIn,omitempty"`
	Day          *int      `json:"day,omitempty"`
	At           string    `json:"at,omitempty"`
	Attributes   []string  `json:"attributes,omitempty"`

	PriceAdjustInCents int64 `json:"priceAdjustInCents,omitempty"`
}

// Film is a title that sessions show.
type Film struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Rating   string `json:"rating"`
	RunTime  int    `json:"runTime"`
	Synopsis string `json:"synopsis"`
}

// GiftCard can pay part or all of an order in its currency.
type GiftCard struct {
	Number         string `json:"number"`
	Pin            string `json:"pin"`
	BalanceInCents int64  `json:"balanceInCents"`
	Currency       string `json:"currency"`
}

// LoyaltyMember holds points; one point pays one cent. Only the member spends them: a
// payment needs the card number and the member's PIN.
type LoyaltyMember struct {
	CardNumber    string `json:"cardNumber"`
	Pin           string `json:"pin"`
	Name          string `json:"name"`
	Email         string `json:"email"`
	PointsBalance int64  `json:"pointsBalance"`
}

// Booking is a ready-made booking. Its fees come from the fee rule valid at
// CreatedAt (or now minus CreatedAgo); a paid booking gets one payment for
// its whole value (Payment), or several that add up to it (Payments, oldest
// first, each with its AmountInCents).
type Booking struct {
	Number         int64               `json:"number"`
	ID             string              `json:"id"`
	Case           string              `json:"case,omitempty"` // what the booking is for (documentation only)
	SessionID      int                 `json:"sessionId"`
	CustomerName   string              `json:"customerName"`
	CustomerEmail  string              `json:"customerEmail"`
	CreatedAt      time.Time           `json:"createdAt,omitzero"`
	CreatedAgo     *Duration           `json:"createdAgo,omitempty"`
	Paid           bool                `json:"paid"`
	InSeatDelivery bool                `json:"inSeatDelivery,omitempty"`
	Tickets        []BookingTicket     `json:"tickets"`
	Concessions    []BookingConcession `json:"concessions,omitempty"`
	Payment        *BookingPayment     `json:"payment,omitempty"`
	Payments       []BookingPayment    `json:"payments,omitempty"`
}

// BookingTicket is one ticket type bought for one or more seats (a package
// has PackageSize seats, anything else one). Seats are row name plus seat
// label, e.g. "F12".
type BookingTicket struct {
	TicketTypeCode string   `json:"ticketTypeCode"`
	Seats          []string `json:"seats"`
}

// BookingConcession is a concession item on a booking.
type BookingConcession struct {
	ItemID   string `json:"itemId"`
	Quantity int    `json:"quantity"`
}

// BookingPayment describes how a paid booking was paid. External payments
// are seeded into the payment provider as succeeded payment intents with a
// charge (card brand and last 4 digits from CardType and CardNumberMasked)
// under ProviderReference, so refunds against them work; the default world
// uses pi_seed<booking number>.
type BookingPayment struct {
	External          bool   `json:"external"`
	ProviderReference string `json:"providerReference,omitempty"`
	TenderCategory    string `json:"tenderCategory,omitempty"`
	CardNumberMasked  string `json:"cardNumberMasked"`
	CardType          string `json:"cardType"`
	// AmountInCents is the payment's share of a booking paid in several
	// payments (Booking.Payments); a single Payment takes the whole value.
	AmountInCents int64 `json:"amountInCents,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("90m",
// "-26h") in JSON.
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string like \"90m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// LoadWorld reads a JSON fixture and resolves its relative times against now.
// Unknown fields are refused so that a misspelt field does not silently
// change the world.
func LoadWorld(r io.Reader, now time.Time) (*World, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var w World
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("decode world fixture: %w", err)
	}
	if err := w.resolveTimes(now); err != nil {
		return nil, err
	}
	for _, m := range w.LoyaltyMembers {
		if m.Pin == "" {
			return nil, fmt.Errorf("loyalty member %s has no pin: without one the points cannot be spent", m.CardNumber)
		}
	}
	return &w, nil
}

// resolveTimes turns every relative time into an absolute one so the rest of
// the sandbox only sees absolute times.
func (w *World) resolveTimes(now time.Time) error {
	for ci := range w.Cinemas {
		c := &w.Cinemas[ci]
		loc, err := time.LoadLocation(c.TimeZone)
		if err != nil {
			return fmt.Errorf("cinema %s: time zone %q: %w", c.ID, c.TimeZone, err)
		}
		for i := range c.FeeRules {
			fr := &c.FeeRules[i]
			if fr.ValidFromAgo != nil {
				fr.ValidFrom = now.Add(-time.Duration(*fr.ValidFromAgo))
				fr.ValidFromAgo = nil
			}
		}
		for i := range c.Sessions {
			ss := &c.Sessions[i]
			t, err := sessionTime(*ss, now, loc)
			if err != nil {
				return fmt.Errorf("cinema %s session %d: %w", c.ID, ss.ID, err)
			}
			ss.Showtime, ss.StartsIn, ss.Day, ss.At = t, nil, nil, ""
		}
		for i := range c.Bookings {
			b := &c.Bookings[i]
			if b.CreatedAgo != nil {
				b.CreatedAt = now.Add(-time.Duration(*b.CreatedAgo))
				b.CreatedAgo = nil
			}
			if b.CreatedAt.IsZero() {
				b.CreatedAt = now.Add(-24 * time.Hour)
			}
		}
	}
	return nil
}

func sessionTime(ss Session, now time.Time, loc *time.Location) (time.Time, error) {
	set := 0
	if !ss.Showtime.IsZero() {
		set++
	}
	if ss.StartsIn != nil {
		set++
	}
	if ss.Day != nil || ss.At != "" {
		set++
	}
	if set != 1 {
		return time.Time{}, errors.New("give exactly one of showtime, startsIn, or day with at")
	}
	switch {
	case !ss.Showtime.IsZero():
		return ss.Showtime, nil
	case ss.StartsIn != nil:
		return now.Add(time.Duration(*ss.StartsIn)).Truncate(time.Minute), nil
	}
	if ss.Day == nil || ss.At == "" {
		return time.Time{}, errors.New("day and at go together")
	}
	clock, err := time.Parse("15:04", strings.TrimSpace(ss.At))
	if err != nil {
		return time.Time{}, fmt.Errorf("at %q must be HH:MM: %w", ss.At, err)
	}
	local := now.In(loc)
	return time.Date(local.Year(), local.Month(), local.Day()+*ss.Day, clock.Hour(), clock.Minute(), 0, 0, loc), nil
}

// FeesPerTicket is each cinema's booking fee per ticket at now, in cents, with its currency
// code: what its first order would quote. The embedded site learns it at its start, as it
// learns a real ticketing system's fee from its orders, so that even its first visitor's
// ticket step shows the total with the fees.
func (w *World) FeesPerTicket(now time.Time) map[string]FeeQuote {
	out := map[string]FeeQuote{}
	for _, c := range w.Cinemas {
		var latest *FeeRule
		for i := range c.FeeRules {
			fr := &c.FeeRules[i]
			from := fr.ValidFrom
			if fr.ValidFromAgo != nil {
				from = now.Add(-time.Duration(*fr.ValidFromAgo))
			}
			if !from.After(now) && (latest == nil || from.After(latest.ValidFrom)) {
				copyRule := *fr
				copyRule.ValidFrom = from
				latest = &copyRule
			}
		}
		if latest != nil {
			out[c.ID] = FeeQuote{Cents: latest.PerTicketInCents, Currency: c.CurrencyCode}
		}
	}
	return out
}

// FeeQuote is a booking fee per ticket.
type FeeQuote struct {
	Cents    int64
	Currency string
}
