package upstream

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// Tenders are the PaymentTenderCategory names of a deployment.
type Tenders struct {
	Card     string // card payments taken by the cinema's own payment provider
	GiftCard string
	Loyalty  string
}

// DefaultTenders are the names public clients send.
var DefaultTenders = Tenders{Card: "CREDIT", GiftCard: "GIFTCARD", Loyalty: "LOYALTY"}

// DefaultPrintStreamType is asked for when an order completes.
const DefaultPrintStreamType = "HTML"

// BookingModes are a deployment's BookingMode numbers.
type BookingModes struct {
	Sale        int
	Reservation int
}

// DefaultBookingModes are 0 sale (paid), 1 reservation (unpaid), as seen.
var DefaultBookingModes = BookingModes{Sale: 0, Reservation: 1}

func (m BookingModes) wire(b BookingMode) int {
	if b == BookingModeReservation {
		return m.Reservation
	}
	return m.Sale
}

// ParseBookingModes reads "sale=0,reservation=1"; "" is the default.
func ParseBookingModes(s string) (BookingModes, error) {
	m := DefaultBookingModes
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			return m, fmt.Errorf("booking modes: %q: want sale=NUMBER,reservation=NUMBER", part)
		}
		switch strings.TrimSpace(k) {
		case "sale":
			m.Sale = n
		case "reservation":
			m.Reservation = n
		default:
			return m, fmt.Errorf("booking modes: %q: want sale or reservation", k)
		}
	}
	if m.Sale == m.Reservation {
		return m, fmt.Errorf("booking modes: sale and reservation must differ")
	}
	return m, nil
}

// Header is one extra header sent on every call, its name exactly as given.
type Header struct{ Name, Value string }

// ParseHeaders reads "Name: value" lines. The names keep their casing on the
// wire. The token header cannot be set this way.
func ParseHeaders(lines []string) ([]Header, error) {
	var out []Header
	for i, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || !validHeaderName(name) {
			// Nothing of the line is repeated: it may hold a secret.
			return nil, fmt.Errorf("upstream header %d of %d: want 'Name: value' with a name of letters, digits and '-'", i+1, len(lines))
		}
		if strings.EqualFold(name, tokenHeader) {
			return nil, fmt.Errorf("upstream header %s: set the token with -upstream-token", name)
		}
		if strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("upstream header %s: the value has a line break", name)
		}
		out = append(out, Header{Name: name, Value: value})
	}
	return out, nil
}

func validHeaderName(s string) bool {
	for _, r := range s {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return false
		}
	}
	return true
}

// tokenHeader is the API token's header name, lower case on the wire.
const tokenHeader = "connectapitoken"

// setRaw sets a header under exactly the given name: http.Header.Set would
// canonicalise it (Connectapitoken), which some deployments refuse.
func setRaw(h http.Header, name, value string) {
	delete(h, textproto.CanonicalMIMEHeaderKey(name))
	h[name] = []string{value}
}

// WithHeaders adds headers to every ticketing call.
func WithHeaders(hs []Header) Option {
	return func(c *config) { c.headers = append([]Header(nil), hs...) }
}

// WithPaths overrides operation routes; operations not in p keep the default.
func WithPaths(p Paths) Option {
	return func(c *config) { c.paths = p.merged() }
}

// WithTenders sets the tender category names.
func WithTenders(t Tenders) Option {
	return func(c *config) {
		if t.Card == "" {
			t.Card = DefaultTenders.Card
		}
		if t.GiftCard == "" {
			t.GiftCard = DefaultTenders.GiftCard
		}
		if t.Loyalty == "" {
			t.Loyalty = DefaultTenders.Loyalty
		}
		c.tenders = t
	}
}

// WithPrintStreamType sets the PrintStreamType asked for at completion.
func WithPrintStreamType(s string) Option {
	return func(c *config) {
		if s != "" {
			c.printStreamType = s
		}
	}
}

// WithBookingModes sets the deployment's BookingMode numbers.
func WithBookingModes(m BookingModes) Option {
	return func(c *config) { c.bookingModes = m }
}
