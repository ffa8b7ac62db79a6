package cinema

import (
	"sync"
	"time"
)

// Cinema is one site of the circuit.
type Cinema struct {
	ID       string
	Name     string
	Currency string // ISO 4217 code used for every amount of this cinema
	Locale   string // BCP 47 tag for formatting, e.g. "de-DE"
	TimeZone string // IANA name, e.g. "Europe/Berlin"
}

// Location returns the cinema's time zone, or UTC when it is unknown.
func (c Cinema) Location() *time.Location {
	if c.TimeZone == "" {
		return time.UTC
	}
	if loc, ok := locations.Load(c.TimeZone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(c.TimeZone) // reads the zone's file: once per name
	if err != nil {
		return time.UTC
	}
	locations.Store(c.TimeZone, loc)
	return loc
}

// locations are the time zones loaded so far, by IANA name (a handful: the circuit's).
var locations sync.Map

// Film is a film scheduled at a cinema.
type Film struct {
	ID       string
	Title    string
	Rating   string
	RunTime  time.Duration
	Synopsis string
}

// Session is one showing of a film.
type Session struct {
	ID                string // listing identifier, unique across cinemas
	CinemaID          string
	SessionID         string // identifier within the cinema, used by every order call
	FilmID            string
	FilmTitle         string
	Showtime          time.Time // the instant it starts (read in the cinema's zone)
	BusinessDay       time.Time // midnight of the day it belongs to, in the cinema's zone
	ScreenName        string
	ScreenNumber      int
	AllocatedSeating  bool
	SeatsAvailable    int
	AreaCategoryCodes []string
	OnSale            bool     // AllowTicketSales (true when not said)
	Attributes        []string // e.g. "OV", "OmU"
}

// Day is the business day of the session as "2006-01-02": as the ticketing system says, or
// else the evening it belongs to (Evening) in the zone its Showtime is read in.
func (s Session) Day() string {
	if s.BusinessDay.IsZero() {
		day, _ := Evening(s.Showtime, s.Showtime.Location())
		return day.Format("2006-01-02")
	}
	return s.BusinessDay.Format("2006-01-02")
}

// SessionInfo is what a booking says about its session.
type SessionInfo struct {
	ID         string
	FilmTitle  string
	Showtime   time.Time
	ScreenName string
}

// TicketType is a ticket that can be bought for a session, with its price.
type TicketType struct {
	Code             string
	AreaCategoryCode string
	Description      string
	LongDescription  string
	Price            Money
	Tax              Money
	IsPackage        bool
	PackageSize      int
	IsLoyalty        bool
	IsVoucher        bool
	IsThirdParty     bool // third-party member ticket
	IsChild          bool
}

// Simple reports whether the ticket type is allowed in a booking edit: no
// package, loyalty recognition, voucher or third-party member ticket.
func (t TicketType) Simple() bool {
	return !t.IsPackage && !t.IsLoyalty && !t.IsVoucher && !t.IsThirdParty
}
