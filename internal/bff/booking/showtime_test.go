package booking

import (
	"reflect"
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

func eur(c int64) cinema.Money { return cinema.Money{Cents: c, Currency: "EUR"} }

// party is two adults at €12.50 and a child at €8.50.
var party = cinema.Booking{Total: eur(3350), Tickets: []cinema.BookedTicket{
	{TypeCode: "0001", Description: "Adult", Price: eur(1250)},
	{TypeCode: "0001", Description: "Adult", Price: eur(1250)},
	{TypeCode: "0002", Description: "Child", Price: eur(850)},
}}

func TestPriceParty(t *testing.T) {
	adult := cinema.TicketType{Code: "0001", Description: "Adult", Price: eur(1400)}
	child := cinema.TicketType{Code: "0002", Description: "Child", Price: eur(850)}
	for _, tc := range []struct {
		name    string
		types   []cinema.TicketType
		diff    int64
		missing []string
	}{
		{"same types, dearer adults", []cinema.TicketType{adult, child}, 300, nil},
		{"same prices", []cinema.TicketType{{Code: "0001", Price: eur(1250)}, {Code: "0002", Price: eur(850)}}, 0, nil},
		{"cheaper", []cinema.TicketType{{Code: "0001", Price: eur(950)}, {Code: "0002", Price: eur(550)}}, -900, nil},
		{"child not sold", []cinema.TicketType{adult}, 300, []string{"Child"}},
		{"child only as a package", []cinema.TicketType{adult, {Code: "0002", IsPackage: true, Price: eur(850)}}, 300, []string{"Child"}},
		{"nothing sold", nil, 0, []string{"Adult", "Child"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := priceParty(party, tc.types)
			if !p.known || p.diff.Cents != tc.diff || !reflect.DeepEqual(p.missing, tc.missing) {
				t.Fatalf("priceParty = %+v, want diff %d, missing %v", p, tc.diff, tc.missing)
			}
		})
	}
}

func TestPartyTypes(t *testing.T) {
	types := []cinema.TicketType{{Code: "0001"}, {Code: "0003"}, {Code: "0004", IsPackage: true}}
	for _, tc := range []struct {
		name     string
		form     map[string][]string
		picked   map[string]string
		complete bool
	}{
		{"child has no pick", nil, map[string]string{"0001": "0001"}, false},
		{"child becomes a senior", map[string][]string{"type.0002": {"0003"}}, map[string]string{"0001": "0001", "0002": "0003"}, true},
		{"a pick the show does not sell", map[string][]string{"type.0002": {"0009"}}, map[string]string{"0001": "0001"}, false},
		{"a package is not a pick", map[string][]string{"type.0002": {"0004"}}, map[string]string{"0001": "0001"}, false},
		{"a pick for a sold type is ignored", map[string][]string{"type.0001": {"0003"}, "type.0002": {"0001"}}, map[string]string{"0001": "0001", "0002": "0001"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			picked, complete := partyTypes(party, types, tc.form)
			if complete != tc.complete || !reflect.DeepEqual(picked, tc.picked) {
				t.Fatalf("partyTypes = %v %v, want %v %v", picked, complete, tc.picked, tc.complete)
			}
		})
	}
}

func TestPartyWords(t *testing.T) {
	if got, want := partyWords(party), "2 × Adult, 1 × Child"; got != want {
		t.Fatalf("partyWords = %q, want %q", got, want)
	}
}
