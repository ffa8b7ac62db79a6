// Package names is the operator's catalog of the cinema's own names: ticket types, area
// categories, areas, offers (deals) and the rating scheme, named by the ticketing system's
// stable codes in each language the site speaks. A name without an entry is shown as the
// ticketing system sent it.
//
// The file is JSON (docs/going-live.md, "The cinema's names"):
//
//	{
//	  "ticketTypes":    {"0001": {"en": "Adult", "de": "Erwachsene"}},
//	  "areaCategories": {"0000000001": {"en": "Standard", "de": "Standard"}},
//	  "areas":          {"0000000001": {"en": "Stalls", "de": "Parkett"}},
//	  "offers":         {"DEAL-UPGRADE": {"en": "Upgrade for {amount}", "de": "Upgrade für {amount}"}},
//	  "ratings":        {"12": {"en": "Ages 12 and over", "de": "FSK 12"}},
//	  "cinemas":        {"0002": {"areas": {"0000000002": {"en": "Balcony", "de": "Balkon"}}}}
//	}
//
// Areas (blocks of seats) have no code of their own upstream: they are named by their area
// category's code. "cinemas" holds entries of one cinema (by its id) that differ from the
// circuit's; a lookup tries the cinema's entry first. An offer's text may carry {amount}: the
// amount written in the ticketing system's text of the offer (e.g. "4,00 €"), written again in
// the visitor's locale.
package names

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// Kind is a kind of name the catalog holds.
type Kind string

// The kinds of names, as the file's keys spell them.
const (
	TicketType   Kind = "ticketTypes"
	AreaCategory Kind = "areaCategories"
	Area         Kind = "areas"
	Offer        Kind = "offers"
	Rating       Kind = "ratings"
)

// Kinds lists every kind in the file's order.
var Kinds = []Kind{TicketType, AreaCategory, Area, Offer, Rating}

// AmountPlaceholder is where an offer's amount goes in a catalog text.
const AmountPlaceholder = "{amount}"

// Texts is one name in each language, by language code ("en", "de").
type Texts map[string]string

// Set holds names of every kind, by code.
type Set struct {
	TicketTypes    map[string]Texts `json:"ticketTypes,omitempty"`
	AreaCategories map[string]Texts `json:"areaCategories,omitempty"`
	Areas          map[string]Texts `json:"areas,omitempty"`
	Offers         map[string]Texts `json:"offers,omitempty"`
	Ratings        map[string]Texts `json:"ratings,omitempty"`
}

func (s *Set) of(k Kind) map[string]Texts {
	if s == nil {
		return nil
	}
	switch k {
	case TicketType:
		return s.TicketTypes
	case AreaCategory:
		return s.AreaCategories
	case Area:
		return s.Areas
	case Offer:
		return s.Offers
	case Rating:
		return s.Ratings
	}
	return nil
}

// file is the catalog file.
type file struct {
	Set
	Cinemas map[string]*Set `json:"cinemas,omitempty"`
}

// Catalog is a loaded, checked catalog. The zero value and nil name nothing.
type Catalog struct {
	f file
}

// Load reads and checks the catalog at path.
func Load(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("names file: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("names file %s: %w", path, err)
	}
	return c, nil
}

// Languages are the codes of the languages the site speaks (internal/i18n), the keys a name's
// texts may have.
func Languages() []string {
	out := make([]string, len(i18n.Languages))
	for i, t := range i18n.Languages {
		out[i] = t.String()
	}
	return out
}

// Parse reads a catalog and checks it: known keys only, non-empty codes and texts, languages
// the site speaks (Languages), and no placeholder but {amount}, which only offers may carry.
func Parse(data []byte) (*Catalog, error) {
	langs := Languages()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a names catalog (JSON with the keys %s and cinemas): %w", kindList(), err)
	}
	if err := check(&f.Set, "", langs); err != nil {
		return nil, err
	}
	for id, s := range f.Cinemas {
		if strings.TrimSpace(id) == "" {
			return nil, errors.New(`cinemas: an empty cinema id`)
		}
		if err := check(s, fmt.Sprintf("cinemas[%q].", id), langs); err != nil {
			return nil, err
		}
	}
	return &Catalog{f: f}, nil
}

var placeholder = regexp.MustCompile(`\{[^{}]*\}`)

func check(s *Set, prefix string, langs []string) error {
	for _, k := range Kinds {
		for _, code := range sortedKeys(s.of(k)) {
			where := fmt.Sprintf("%s%s[%q]", prefix, k, code)
			if strings.TrimSpace(code) == "" {
				return fmt.Errorf("%s%s: an empty code", prefix, k)
			}
			texts := s.of(k)[code]
			if len(texts) == 0 {
				return fmt.Errorf("%s: no name in any language", where)
			}
			for _, lang := range sortedKeys(texts) {
				if !contains(langs, lang) {
					return fmt.Errorf("%s: language %q is not one the site speaks (%s)", where, lang, strings.Join(langs, ", "))
				}
				text := texts[lang]
				if strings.TrimSpace(text) == "" {
					return fmt.Errorf("%s.%s: an empty name", where, lang)
				}
				for _, p := range placeholder.FindAllString(text, -1) {
					if p != AmountPlaceholder || k != Offer {
						return fmt.Errorf("%s.%s: placeholder %s is not known (offers may carry %s)", where, lang, p, AmountPlaceholder)
					}
				}
			}
		}
	}
	return nil
}

// Lookup is the catalog's name of kind k and code in lang at cinemaID (the cinema's own entry
// first); false when it has none.
func (c *Catalog) Lookup(k Kind, cinemaID, code, lang string) (string, bool) {
	if c == nil {
		return "", false
	}
	if s := c.f.Cinemas[cinemaID]; s != nil {
		if t, ok := s.of(k)[code][lang]; ok {
			return t, true
		}
	}
	t, ok := c.f.of(k)[code][lang]
	return t, ok
}

// Found is a name the ticketing system sent: its kind, cinema, code and text.
type Found struct {
	Kind     Kind
	CinemaID string
	Code     string
	Text     string
}

// Missing lists, per language of langs, the names of found that the catalog lacks, once each,
// sorted by kind and code.
func (c *Catalog) Missing(found []Found, langs []string) map[string][]Found {
	out := map[string][]Found{}
	seen := map[string]bool{}
	for _, lang := range langs {
		for _, f := range found {
			if f.Code == "" {
				continue
			}
			key := lang + "\x00" + string(f.Kind) + "\x00" + f.CinemaID + "\x00" + f.Code
			if seen[key] {
				continue
			}
			seen[key] = true
			if _, ok := c.Lookup(f.Kind, f.CinemaID, f.Code, lang); !ok {
				out[lang] = append(out[lang], f)
			}
		}
		sort.SliceStable(out[lang], func(i, j int) bool {
			a, b := out[lang][i], out[lang][j]
			if a.Kind != b.Kind {
				return kindIndex(a.Kind) < kindIndex(b.Kind)
			}
			if a.CinemaID != b.CinemaID {
				return a.CinemaID < b.CinemaID
			}
			return a.Code < b.Code
		})
	}
	return out
}

// Namer answers names in one language; Money writes an offer's amount in the visitor's
// locale (nil: the amount as the ticketing system wrote it).
type Namer struct {
	Catalog *Catalog
	Lang    string
	Money   func(cinema.Money) string
}

// Name is the catalog's name of kind k and code at cinemaID in the namer's language, else text
// (the ticketing system's).
func (n Namer) Name(k Kind, cinemaID, code, text string) string {
	if t, ok := n.Catalog.Lookup(k, cinemaID, code, n.Lang); ok {
		return t
	}
	return text
}

// Offer is the catalog's name of the offer id, its {amount} the amount found in text (the
// ticketing system's words) in currency, written by n.Money; text when the catalog has no
// name, or has a placeholder and text no amount.
func (n Namer) Offer(cinemaID, id, text, currency string) string {
	t, ok := n.Catalog.Lookup(Offer, cinemaID, id, n.Lang)
	if !ok {
		return text
	}
	if !strings.Contains(t, AmountPlaceholder) {
		return t
	}
	cents, ok := AmountIn(text)
	if !ok {
		return text
	}
	amount := cinema.Money{Cents: cents, Currency: currency}
	words := fmt.Sprintf("%d.%02d %s", cents/100, cents%100, currency)
	if n.Money != nil {
		words = n.Money(amount)
	}
	return strings.ReplaceAll(t, AmountPlaceholder, words)
}

var amountRE = regexp.MustCompile(`(\d+)[.,](\d{2})\b`)

// AmountIn reads the last amount written in text with two decimals ("4,00 €", "£3.00") in
// cents.
func AmountIn(text string) (int64, bool) {
	all := amountRE.FindAllStringSubmatch(text, -1)
	if len(all) == 0 {
		return 0, false
	}
	m := all[len(all)-1]
	units, err1 := strconv.ParseInt(m[1], 10, 64)
	frac, err2 := strconv.ParseInt(m[2], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return units*100 + frac, true
}

func kindIndex(k Kind) int {
	for i, x := range Kinds {
		if x == k {
			return i
		}
	}
	return len(Kinds)
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
