package applepass

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MinAuthenticationTokenLength is Apple's lower bound for authenticationToken.
const MinAuthenticationTokenLength = 16

// DefaultTimeFormat shows the show start on the front of the pass, in the cinema's zone.
const DefaultTimeFormat = "Mon 2 Jan 2006, 15:04"

// ErrInvalidPass is returned, wrapped with the field at fault, for a pass Wallet would reject
// or show wrongly.
var ErrInvalidPass = errors.New("invalid pass")

// RGB is one of the pass's colours; Wallet reads them as CSS rgb() strings.
type RGB struct{ R, G, B uint8 }

// String formats the colour as PassKit wants it, e.g. "rgb(12, 34, 56)".
func (c RGB) String() string { return fmt.Sprintf("rgb(%d, %d, %d)", c.R, c.G, c.B) }

// Colors are the operator's colours on the pass.
type Colors struct {
	Foreground RGB // field values
	Background RGB
	Label      RGB // field labels
}

// Seat is one seat on the ticket.
type Seat struct {
	Row    string
	Number string
}

// String is how a seat reads on the pass: "Row F · Seat 12".
func (s Seat) String() string { return "Row " + s.Row + " · Seat " + s.Number }

// Location is a place where Wallet offers the pass on the lock screen.
type Location struct {
	Latitude     float64
	Longitude    float64
	RelevantText string // shown on the lock screen, optional
}

// Pass is an event ticket for one booking (or one ticket of it), in plain values.
type Pass struct {
	SerialNumber     string // stable for the booking, so an update replaces the pass on the phone
	Description      string // read by VoiceOver
	OrganizationName string
	LogoText         string // optional, beside the logo
	Colors           Colors

	FilmTitle     string
	ShowStart     time.Time
	TimeZone      *time.Location // the cinema's zone; the show time is shown in it
	TimeFormat    string         // Go layout for the show time; DefaultTimeFormat when empty
	Venue         string         // cinema name, optional
	Screen        string
	Seats         []Seat
	BookingNumber string

	BarcodeMessage string    // the ticket's signed code, as in its QR
	BarcodeAltText string    // optional text under the QR
	RelevantDate   time.Time // when the pass is relevant; ShowStart when zero
	Locations      []Location

	// Words are the pass's words per language, the language it was bought in first (Words);
	// none: English only, without localizations.
	Words []Words

	WebServiceURL       string // where Wallet asks for updates; empty for a pass that never updates
	AuthenticationToken string // at least MinAuthenticationTokenLength characters, with WebServiceURL
	Voided              bool   // a cancelled ticket
}

// passJSON and the types below carry PassKit's key names; nothing outside this file uses them.
type passJSON struct {
	FormatVersion       int            `json:"formatVersion"`
	PassTypeIdentifier  string         `json:"passTypeIdentifier"`
	SerialNumber        string         `json:"serialNumber"`
	TeamIdentifier      string         `json:"teamIdentifier"`
	OrganizationName    string         `json:"organizationName"`
	Description         string         `json:"description"`
	LogoText            string         `json:"logoText,omitempty"`
	ForegroundColor     string         `json:"foregroundColor"`
	BackgroundColor     string         `json:"backgroundColor"`
	LabelColor          string         `json:"labelColor"`
	RelevantDate        string         `json:"relevantDate"`
	Locations           []locationJSON `json:"locations,omitempty"`
	Barcodes            []barcodeJSON  `json:"barcodes"`
	Barcode             barcodeJSON    `json:"barcode"`
	WebServiceURL       string         `json:"webServiceURL,omitempty"`
	AuthenticationToken string         `json:"authenticationToken,omitempty"`
	Voided              bool           `json:"voided"`
	EventTicket         structureJSON  `json:"eventTicket"`
}

type locationJSON struct {
	Latitude     float64 `json:"latitude"`
	Longitude    float64 `json:"longitude"`
	RelevantText string  `json:"relevantText,omitempty"`
}

type barcodeJSON struct {
	Format          string `json:"format"`
	Message         string `json:"message"`
	MessageEncoding string `json:"messageEncoding"`
	AltText         string `json:"altText,omitempty"`
}

type structureJSON struct {
	PrimaryFields   []fieldJSON `json:"primaryFields"`
	SecondaryFields []fieldJSON `json:"secondaryFields"`
	AuxiliaryFields []fieldJSON `json:"auxiliaryFields"`
	BackFields      []fieldJSON `json:"backFields"`
}

type fieldJSON struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Value string `json:"value"`
}

// Validate returns ErrInvalidPass, naming the field, for a pass Wallet would refuse.
func (p Pass) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("pass %q: %s: %w", p.SerialNumber, fmt.Sprintf(format, args...), ErrInvalidPass)
	}
	required := []struct{ name, value string }{
		{"serial number", p.SerialNumber},
		{"description", p.Description},
		{"organization name", p.OrganizationName},
		{"film title", p.FilmTitle},
		{"booking number", p.BookingNumber},
		{"barcode message", p.BarcodeMessage},
	}
	for _, r := range required {
		if strings.TrimSpace(r.value) == "" {
			return bad("%s is empty", r.name)
		}
	}
	if p.ShowStart.IsZero() {
		return bad("show start is not set")
	}
	if p.TimeZone == nil {
		return bad("cinema time zone is not set")
	}
	// messageEncoding is iso-8859-1, so every character must exist in Latin-1.
	for _, r := range p.BarcodeMessage {
		if r > 0xFF {
			return bad("barcode message has %q, which is not in ISO-8859-1", r)
		}
	}
	if (p.WebServiceURL == "") != (p.AuthenticationToken == "") {
		return bad("webServiceURL and authenticationToken go together")
	}
	if p.WebServiceURL != "" {
		u, err := url.Parse(p.WebServiceURL)
		if err != nil || !u.IsAbs() || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return bad("webServiceURL %q is not an absolute http(s) URL", p.WebServiceURL)
		}
		if n := utf8.RuneCountInString(p.AuthenticationToken); n < MinAuthenticationTokenLength {
			return bad("authenticationToken has %d characters, needs at least %d", n, MinAuthenticationTokenLength)
		}
	}
	for i, l := range p.Locations {
		if l.Latitude < -90 || l.Latitude > 90 || l.Longitude < -180 || l.Longitude > 180 {
			return bad("location %d (%v, %v) is not on Earth", i+1, l.Latitude, l.Longitude)
		}
	}
	return nil
}

// JSON returns pass.json for the pass as signed by id.
func (p Pass) JSON(id Identity) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if id.PassTypeID == "" || id.TeamID == "" {
		return nil, ErrMissingIdentifier
	}
	relevant := p.RelevantDate
	if relevant.IsZero() {
		relevant = p.ShowStart
	}
	w := englishWords(p)
	if len(p.Words) > 0 {
		w = p.Words[0]
	}
	barcode := barcodeJSON{
		Format:          "PKBarcodeFormatQR",
		Message:         p.BarcodeMessage,
		MessageEncoding: "iso-8859-1",
		AltText:         p.BarcodeAltText,
	}
	// The labels, the show time and the seats are words: with Words, each is a key of the
	// pass's localizations (passStrings) as well as the text of the language bought in.
	ticket := structureJSON{
		PrimaryFields: []fieldJSON{{Key: "film", Label: w.Film, Value: p.FilmTitle}},
		SecondaryFields: []fieldJSON{
			{Key: "start", Label: w.Showtime, Value: w.Start},
			{Key: "screen", Label: w.Screen, Value: p.Screen},
		},
		AuxiliaryFields: []fieldJSON{
			{Key: "seats", Label: w.Seats, Value: strings.Join(w.SeatTexts, ", ")},
			{Key: "booking", Label: w.Booking, Value: p.BookingNumber},
		},
		BackFields: []fieldJSON{
			{Key: "back-film", Label: w.BackFilm, Value: p.FilmTitle},
			{Key: "back-start", Label: w.BackShowtime, Value: w.StartWithZone},
			{Key: "back-screen", Label: w.BackScreen, Value: p.Screen},
			{Key: "back-seats", Label: w.BackSeats, Value: strings.Join(w.SeatTexts, "\n")},
			{Key: "back-booking", Label: w.BackBooking, Value: p.BookingNumber},
		},
	}
	if p.Venue != "" {
		ticket.BackFields = append(ticket.BackFields, fieldJSON{Key: "back-venue", Label: w.Cinema, Value: p.Venue})
	}
	doc := passJSON{
		FormatVersion:       1,
		PassTypeIdentifier:  id.PassTypeID,
		SerialNumber:        p.SerialNumber,
		TeamIdentifier:      id.TeamID,
		OrganizationName:    p.OrganizationName,
		Description:         p.Description,
		LogoText:            p.LogoText,
		ForegroundColor:     p.Colors.Foreground.String(),
		BackgroundColor:     p.Colors.Background.String(),
		LabelColor:          p.Colors.Label.String(),
		RelevantDate:        relevant.In(p.TimeZone).Format(time.RFC3339),
		Barcodes:            []barcodeJSON{barcode},
		Barcode:             barcode, // iOS before 9 reads only this one
		WebServiceURL:       p.WebServiceURL,
		AuthenticationToken: p.AuthenticationToken,
		Voided:              p.Voided,
		EventTicket:         ticket,
	}
	for _, l := range p.Locations {
		doc.Locations = append(doc.Locations, locationJSON(l))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // film titles with & or < stay readable in the file
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode pass.json: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseLocations reads where each cinema is, as the operator writes it: CINEMA=LAT:LONG,
// comma-separated ("0001=52.5219:13.4132,0002=51.5136:-0.1365"). Empty is none.
func ParseLocations(s string) (map[string]Location, error) {
	out := map[string]Location{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, at, ok := strings.Cut(entry, "=")
		lat, long, ok2 := strings.Cut(at, ":")
		if !ok || !ok2 || strings.TrimSpace(id) == "" {
			return nil, fmt.Errorf("cinema location %q: want CINEMA=LATITUDE:LONGITUDE, e.g. 0001=52.5219:13.4132", entry)
		}
		var l Location
		var err1, err2 error
		l.Latitude, err1 = strconv.ParseFloat(strings.TrimSpace(lat), 64)
		l.Longitude, err2 = strconv.ParseFloat(strings.TrimSpace(long), 64)
		if err1 != nil || err2 != nil || math.Abs(l.Latitude) > 90 || math.Abs(l.Longitude) > 180 {
			return nil, fmt.Errorf("cinema location %q: latitude -90 to 90 and longitude -180 to 180, in degrees", entry)
		}
		id = strings.TrimSpace(id)
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("cinema location: cinema %s is named twice", id)
		}
		out[id] = l
	}
	return out, nil
}
