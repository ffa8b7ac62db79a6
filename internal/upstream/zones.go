package upstream

import (
	"context"
	"time"
)

// windowsZones maps the Windows time zone names some deployments send as
// TimeZoneId to IANA names (the zones of the markets that run the service;
// extend as needed).
var windowsZones = map[string]string{
	"UTC":                             "UTC",
	"GMT Standard Time":               "Europe/London",
	"W. Europe Standard Time":         "Europe/Berlin",
	"Romance Standard Time":           "Europe/Paris",
	"Central Europe Standard Time":    "Europe/Budapest",
	"Central European Standard Time":  "Europe/Warsaw",
	"E. Europe Standard Time":         "Europe/Chisinau",
	"FLE Standard Time":               "Europe/Helsinki",
	"GTB Standard Time":               "Europe/Bucharest",
	"Russian Standard Time":           "Europe/Moscow",
	"Turkey Standard Time":            "Europe/Istanbul",
	"South Africa Standard Time":      "Africa/Johannesburg",
	"Arabian Standard Time":           "Asia/Dubai",
	"Singapore Standard Time":         "Asia/Singapore",
	"Ulaanbaatar Standard Time":       "Asia/Ulaanbaatar",
	"China Standard Time":             "Asia/Shanghai",
	"Tokyo Standard Time":             "Asia/Tokyo",
	"AUS Eastern Standard Time":       "Australia/Sydney",
	"New Zealand Standard Time":       "Pacific/Auckland",
	"Eastern Standard Time":           "America/New_York",
	"Central Standard Time":           "America/Chicago",
	"Mountain Standard Time":          "America/Denver",
	"Pacific Standard Time":           "America/Los_Angeles",
	"SA Pacific Standard Time":        "America/Bogota",
	"Central Standard Time (Mexico)":  "America/Mexico_City",
	"E. South America Standard Time":  "America/Sao_Paulo",
	"Argentina Standard Time":         "America/Argentina/Buenos_Aires",
	"Pacific SA Standard Time":        "America/Santiago",
	"SE Asia Standard Time":           "Asia/Bangkok",
	"India Standard Time":             "Asia/Kolkata",
	"West Asia Standard Time":         "Asia/Tashkent",
	"Israel Standard Time":            "Asia/Jerusalem",
	"Egypt Standard Time":             "Africa/Cairo",
	"Morocco Standard Time":           "Africa/Casablanca",
	"W. Central Africa Standard Time": "Africa/Lagos",
}

// zoneLocation reads an IANA or Windows zone name.
func zoneLocation(name string) (*time.Location, bool) {
	if name == "" {
		return nil, false
	}
	if iana, ok := windowsZones[name]; ok {
		name = iana
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// cinemaFacts are what the client learns from ListCinemas.
type cinemaFacts struct {
	currency string
	location *time.Location
}

func (c *Client) learnCinema(id, currency string, loc *time.Location) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.cinemas[id] = cinemaFacts{currency: currency, location: loc}
	c.mu.Unlock()
}

func (c *Client) currencyFor(cinemaID string) string {
	c.mu.RLock()
	f, ok := c.cinemas[cinemaID]
	c.mu.RUnlock()
	if ok && f.currency != "" {
		return f.currency
	}
	return c.cfg.currency
}

// locationFor is the cinema's zone as last learnt, or the configured one.
func (c *Client) locationFor(cinemaID string) *time.Location {
	c.mu.RLock()
	f, ok := c.cinemas[cinemaID]
	c.mu.RUnlock()
	if ok && f.location != nil {
		return f.location
	}
	return c.cfg.location
}

// zoneFor is locationFor, asking the upstream for its cinemas first when
// this one is not known yet. Show times must never be read in a wrong zone
// silently: when the cinemas cannot be read, the configured zone is used and
// the failure is logged.
func (c *Client) zoneFor(ctx context.Context, cinemaID string) *time.Location {
	c.mu.RLock()
	_, ok := c.cinemas[cinemaID]
	c.mu.RUnlock()
	if !ok {
		if _, err := c.ListCinemas(ctx); err != nil {
			c.cfg.logger.Warn("cinemas could not be read; show times use the configured zone", "cinema", cinemaID, "err", err)
		}
	}
	return c.locationFor(cinemaID)
}
