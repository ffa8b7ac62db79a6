// Package googlepass makes the "Add to Google Wallet" link of a booking: a save URL whose JWT,
// signed (RS256) with the operator's service-account key, carries an event ticket object per
// ticket. Google shows the tickets in the phone's wallet from that JWT alone; the objects are
// kept true afterwards by patching them through the Google Wallet API under the same ids.
package googlepass

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrBadKey is returned for a service-account key that cannot sign: missing, not JSON, without
// its e-mail, or with a private key that is not RSA.
var ErrBadKey = errors.New("googlepass: unusable service-account key")

// ErrBadTicket is returned for a ticket that cannot be put in an object (an id Google refuses,
// an empty barcode).
var ErrBadTicket = errors.New("googlepass: ticket cannot be saved")

// saveBase is where a save link points; the JWT follows it.
const saveBase = "https://pay.google.com/gp/v/save/"

// ServiceAccount is the part of a Google service-account key file that signs save links.
type ServiceAccount struct {
	Email string
	Key   *rsa.PrivateKey
	// PEM is the private key as the file holds it, for the OAuth token exchange of API calls;
	// TokenURI is where that exchange goes ("" in the file: Google's).
	PEM      []byte
	TokenURI string
}

// serviceAccountFile is the JSON key file as Google's console downloads it.
type serviceAccountFile struct {
	Type        string `json:"type"`
	ClientEmail string `json:"client_email"`
	PrivateKey  string `json:"private_key"`
	TokenURI    string `json:"token_uri,omitempty"`
}

// ParseServiceAccount reads a service-account key file's JSON.
func ParseServiceAccount(data []byte) (ServiceAccount, error) {
	var f serviceAccountFile
	if err := json.Unmarshal(data, &f); err != nil {
		return ServiceAccount{}, fmt.Errorf("%w: not a key file: %w", ErrBadKey, err)
	}
	if f.ClientEmail == "" {
		return ServiceAccount{}, fmt.Errorf("%w: no client_email", ErrBadKey)
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(f.PrivateKey))
	if err != nil {
		return ServiceAccount{}, fmt.Errorf("%w: private_key: %w", ErrBadKey, err)
	}
	return ServiceAccount{Email: f.ClientEmail, Key: key, PEM: []byte(f.PrivateKey), TokenURI: f.TokenURI}, nil
}

// GenerateTestServiceAccount returns the test service account kept in dir (made on the first call), for
// the embedded defaults: its links show the whole feature on a fresh machine, and Google would
// refuse them, as it should, because no real account has that key.
func GenerateTestServiceAccount(dir string) (ServiceAccount, error) {
	path := filepath.Join(dir, "google-wallet-test-service-account.json")
	if data, err := os.ReadFile(path); err == nil {
		return ParseServiceAccount(data)
	} else if !errors.Is(err, os.ErrNotExist) {
		return ServiceAccount{}, fmt.Errorf("googlepass: read test key: %w", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return ServiceAccount{}, fmt.Errorf("googlepass: make test key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return ServiceAccount{}, fmt.Errorf("googlepass: encode test key: %w", err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	data, err := json.MarshalIndent(serviceAccountFile{
		Type:        "service_account",
		ClientEmail: "test-passes@cinemabff-test.invalid",
		PrivateKey:  string(keyPEM),
	}, "", "  ")
	if err != nil {
		return ServiceAccount{}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ServiceAccount{}, fmt.Errorf("googlepass: test key folder: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return ServiceAccount{}, fmt.Errorf("googlepass: write test key: %w", err)
	}
	return ServiceAccount{Email: "test-passes@cinemabff-test.invalid", Key: key, PEM: keyPEM}, nil
}

// Ticket is one ticket of a booking as its wallet object shows it.
type Ticket struct {
	Serial  string // unique per ticket and stable across changes: the object's id after the issuer's
	Film    string
	Row     string // "" for unallocated seating
	Seat    string
	Area    string // the seating area ("Standard", "Loge"), if any
	Barcode string // the ticket's signed code, as its QR code holds it
	Booking string // the booking number people read
	Start   time.Time
	End     time.Time
	Active  bool // false: the ticket was removed or moved; Google shows it as no longer valid
	// FilmHeader is the film's heading in each language, the object's language first (its
	// default value; Google shows the phone's language where it is among them); none: "Film".
	FilmHeader []Translation
}

// Translation is a text in one language.
type Translation struct{ Lang, Value string }

// Issuer is the operator's Google Wallet issuer with the event ticket class its objects use.
type Issuer struct {
	ID      string // the issuer id Google gives the operator
	ClassID string // the suffix of the class made for the cinema's tickets
	Origins []string
}

// States of an object.
const (
	StateActive   = "ACTIVE"
	StateInactive = "INACTIVE"
)

func words(lang, s string) *LocalizedString {
	if s == "" {
		return nil
	}
	return &LocalizedString{DefaultValue: &TranslatedString{Language: lang, Value: s}}
}

// idPart is what Google accepts after the issuer id: letters, digits, '.', '_' and '-'.
var idPart = regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`)

// ObjectID is the id of the object of the ticket with that serial.
func (is Issuer) ObjectID(serial string) (string, error) {
	if !idPart.MatchString(serial) || !idPart.MatchString(is.ClassID) || is.ID == "" {
		return "", fmt.Errorf("%w: id %q.%q", ErrBadTicket, is.ID, serial)
	}
	return is.ID + "." + serial, nil
}

// ObjectOf is the event ticket object of t under the issuer.
func (is Issuer) ObjectOf(t Ticket, lang string) (*Object, error) {
	id, err := is.ObjectID(t.Serial)
	if err != nil {
		return nil, err
	}
	if t.Barcode == "" {
		return nil, fmt.Errorf("%w: %s has no barcode", ErrBadTicket, t.Serial)
	}
	o := &Object{
		ID:           id,
		ClassID:      is.ID + "." + is.ClassID,
		State:        StateActive,
		TicketNumber: t.Serial,
		Barcode:      &Barcode{Type: "QR_CODE", Value: t.Barcode},
	}
	if !t.Active {
		o.State = StateInactive
	}
	if t.Booking != "" {
		o.ReservationInfo = &ReservationInfo{ConfirmationCode: t.Booking}
	}
	if t.Seat != "" || t.Row != "" || t.Area != "" {
		o.SeatInfo = &SeatInfo{Seat: words(lang, t.Seat), Row: words(lang, t.Row), Section: words(lang, t.Area)}
	}
	if !t.Start.IsZero() {
		end := t.End
		if end.IsZero() {
			end = t.Start.Add(3 * time.Hour)
		}
		o.ValidTimeInterval = &TimeInterval{
			Start: &DateTime{Date: t.Start.Format(time.RFC3339)},
			End:   &DateTime{Date: end.Format(time.RFC3339)},
		}
	}
	if t.Film != "" {
		o.TextModulesData = []*TextModuleData{filmModule(t)}
	}
	return o, nil
}

// SaveURL returns the "Add to Google Wallet" link of tickets: a JWT signed by the service account
// holding one event ticket object per ticket.
func (is Issuer) SaveURL(sa ServiceAccount, tickets []Ticket, lang string, now time.Time) (string, error) {
	if sa.Key == nil || sa.Email == "" {
		return "", ErrBadKey
	}
	objects := make([]*Object, 0, len(tickets))
	for _, t := range tickets {
		o, err := is.ObjectOf(t, lang)
		if err != nil {
			return "", err
		}
		objects = append(objects, o)
	}
	claims := jwt.MapClaims{
		"iss":     sa.Email,
		"aud":     "google",
		"typ":     "savetowallet",
		"iat":     now.Unix(),
		"origins": is.Origins,
		"payload": map[string]any{"eventTicketObjects": objects},
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(sa.Key)
	if err != nil {
		return "", fmt.Errorf("googlepass: sign save link: %w", err)
	}
	return saveBase + signed, nil
}

// filmModule is the film's text module, its heading translated (localizedHeader).
func filmModule(t Ticket) *TextModuleData {
	m := &TextModuleData{Header: "Film", Body: t.Film, ID: "film"}
	if len(t.FilmHeader) == 0 {
		return m
	}
	m.Header = t.FilmHeader[0].Value
	h := &LocalizedString{DefaultValue: &TranslatedString{Language: t.FilmHeader[0].Lang, Value: t.FilmHeader[0].Value}}
	for _, tr := range t.FilmHeader[1:] {
		h.TranslatedValues = append(h.TranslatedValues, &TranslatedString{Language: tr.Lang, Value: tr.Value})
	}
	m.LocalizedHeader = h
	return m
}
