package names_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/sandbox"
)

const sample = `{
  "ticketTypes": {"0001": {"en": "Adult", "de": "Erwachsene"}, "0002": {"en": "Child"}},
  "areaCategories": {"STD": {"en": "Standard", "de": "Standard"}},
  "areas": {"STD": {"de": "Parkett"}, "PRM": {"de": "Premium-Lounge"}},
  "offers": {"UP": {"en": "Upgrade for {amount}", "de": "Upgrade für {amount}"}, "FREE": {"de": "Gratis"}},
  "ratings": {"12": {"de": "FSK 12"}},
  "cinemas": {"0002": {"areas": {"PRM": {"de": "Balkon"}}}}
}`

func parse(t *testing.T, s string) *names.Catalog {
	t.Helper()
	c, err := names.Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestNamesLookupAndFallback(t *testing.T) {
	c := parse(t, sample)
	de := names.Namer{Catalog: c, Lang: "de"}
	en := names.Namer{Catalog: c, Lang: "en"}
	tests := []struct {
		name string
		n    names.Namer
		kind names.Kind
		cin  string
		code string
		text string
		want string
	}{
		{"ticket type in German", de, names.TicketType, "0001", "0001", "Adult", "Erwachsene"},
		{"ticket type without German: as sent", de, names.TicketType, "0001", "0002", "Child", "Child"},
		{"unknown code: as sent", de, names.TicketType, "0001", "0999", "Student", "Student"},
		{"by code, not by text", de, names.TicketType, "0001", "0001", "Something else", "Erwachsene"},
		{"area of the circuit", de, names.Area, "0001", "PRM", "Premium Lounge", "Premium-Lounge"},
		{"area of one cinema first", de, names.Area, "0002", "PRM", "Balcony", "Balkon"},
		{"cinema falls back to the circuit", de, names.Area, "0002", "STD", "Stalls", "Parkett"},
		{"rating", de, names.Rating, "0001", "12", "12", "FSK 12"},
		{"English entry", en, names.TicketType, "0001", "0002", "Kid", "Child"},
		{"no catalog", names.Namer{Lang: "de"}, names.TicketType, "0001", "0001", "Adult", "Adult"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.n.Name(tt.kind, tt.cin, tt.code, tt.text); got != tt.want {
				t.Errorf("Name(%s, %s, %s) = %q, want %q", tt.kind, tt.cin, tt.code, got, tt.want)
			}
		})
	}
}

func TestNamesOfferAmountInVisitorsLocale(t *testing.T) {
	c := parse(t, sample)
	money := func(m cinema.Money) string {
		return "<" + m.Currency + " " + cinema.Money{Cents: m.Cents}.Format("en-GB") + ">"
	}
	tests := []struct {
		name, lang, id, text, want string
	}{
		{"amount from the upstream's text, German comma", "en", "UP", "Upgrade to the lounge for 4,00 €", "Upgrade for <EUR "},
		{"amount in German words", "de", "UP", "Upgrade for £3.00", "Upgrade für <EUR "},
		{"no amount in the upstream's text: as sent", "de", "UP", "Upgrade now", "Upgrade now"},
		{"no placeholder", "de", "FREE", "Free popcorn", "Gratis"},
		{"no entry: as sent", "de", "OTHER", "Other 4,00 €", "Other 4,00 €"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names.Namer{Catalog: c, Lang: tt.lang, Money: money}.Offer("0001", tt.id, tt.text, "EUR")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("Offer = %q, want it to start %q", got, tt.want)
			}
		})
	}
	if cents, ok := names.AmountIn("Upgrade for 4,00 €"); !ok || cents != 400 {
		t.Errorf("AmountIn(4,00 €) = %d, %v; want 400", cents, ok)
	}
	if cents, ok := names.AmountIn("Upgrade for £12.50"); !ok || cents != 1250 {
		t.Errorf("AmountIn(£12.50) = %d, %v; want 1250", cents, ok)
	}
}

func TestNamesBadFiles(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"not JSON", `ticketTypes:`, "not a names catalog"},
		{"unknown key", `{"tickets": {}}`, "unknown field"},
		{"unknown language", `{"ticketTypes": {"0001": {"fr": "Adulte"}}}`, `language "fr"`},
		{"empty name", `{"areas": {"STD": {"de": "  "}}}`, "empty name"},
		{"empty code", `{"ratings": {"": {"de": "FSK"}}}`, "empty code"},
		{"no texts", `{"ticketTypes": {"0001": {}}}`, "no name in any language"},
		{"placeholder outside offers", `{"ticketTypes": {"0001": {"de": "Karte {amount}"}}}`, "placeholder {amount}"},
		{"unknown placeholder", `{"offers": {"UP": {"de": "für {price}"}}}`, "placeholder {price}"},
		{"bad cinema entry", `{"cinemas": {"0002": {"areas": {"X": {"xx": "y"}}}}}`, `cinemas["0002"].areas`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := names.Parse([]byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNamesLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "names.json")
	if err := os.WriteFile(good, []byte(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := names.Load(good)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, _ := c.Lookup(names.TicketType, "0001", "0001", "de"); got != "Erwachsene" {
		t.Errorf("loaded 0001 in German = %q", got)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"ratings": {"12": {"de": ""}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := names.Load(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `ratings["12"].de`) {
		t.Errorf("Load(bad) = %v, want the file and the entry named", err)
	}
	if _, err := names.Load(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("Load(absent file) succeeded")
	}
}

func TestNamesMissing(t *testing.T) {
	c := parse(t, sample)
	found := []names.Found{
		{Kind: names.TicketType, CinemaID: "0001", Code: "0001", Text: "Adult"},
		{Kind: names.TicketType, CinemaID: "0001", Code: "0002", Text: "Child"},
		{Kind: names.TicketType, CinemaID: "0001", Code: "0002", Text: "Child"},
		{Kind: names.Area, CinemaID: "0002", Code: "PRM", Text: "Balcony"},
		{Kind: names.Offer, CinemaID: "0001", Code: "NEW", Text: "New deal"},
	}
	got := c.Missing(found, []string{"en", "de"})
	codes := func(fs []names.Found) string {
		var s []string
		for _, f := range fs {
			s = append(s, string(f.Kind)+":"+f.Code)
		}
		return strings.Join(s, " ")
	}
	if want := "ticketTypes:0002 offers:NEW"; codes(got["de"]) != want {
		t.Errorf("missing in German = %q, want %q", codes(got["de"]), want)
	}
	if want := "areas:PRM offers:NEW"; codes(got["en"]) != want {
		t.Errorf("missing in English = %q, want %q", codes(got["en"]), want)
	}
}

// The sandbox's catalog loads and names every ticket type and area of its world in German.
func TestNamesSandboxCatalog(t *testing.T) {
	c, err := names.Parse(sandbox.NamesCatalog)
	if err != nil {
		t.Fatalf("sandbox catalog: %v", err)
	}
	de := names.Namer{Catalog: c, Lang: "de"}
	for _, code := range []string{"0001", "0002", "0003", "0004", "0101", "0102", "0103", "0104"} {
		if got := de.Name(names.TicketType, "0001", code, "?"); got == "?" {
			t.Errorf("ticket type %s has no German name", code)
		}
	}
	plan := de.SeatPlan(cinema.SeatPlan{CinemaID: "0001",
		AreaCategories: []cinema.AreaCategory{{Code: "0000000002", Description: "Premium"}},
		Areas:          []cinema.Area{{Number: 2, AreaCategoryCode: "0000000002", Description: "Premium Lounge"}}})
	if got := plan.Areas[0].Description; got != "Premium-Lounge" {
		t.Errorf("Premium Lounge in German = %q", got)
	}
}
