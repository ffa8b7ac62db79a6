package words

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

func english(t *testing.T) *i18n.Localizer {
	t.Helper()
	c, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	return c.For(language.English)
}

func eur(cents int64) cinema.Money { return cinema.Money{Cents: cents, Currency: "EUR"} }

func TestSigned(t *testing.T) {
	l := english(t)
	for _, tc := range []struct {
		cents int64
		want  string
	}{{50, "+€0.50"}, {-200, "−€2.00"}, {0, "€0.00"}} {
		if got := Signed(l, eur(tc.cents)); got != tc.want {
			t.Errorf("Signed(%d) = %q, want %q", tc.cents, got, tc.want)
		}
	}
}

func TestSeatPrices(t *testing.T) {
	l := english(t)
	seat := func(cat string) *cinema.SeatRef { return &cinema.SeatRef{AreaCategoryCode: cat} }
	got := SeatPrices(l, []cinema.OrderTicket{
		{Price: eur(1250), Seat: seat("STD")},
		{Price: eur(800), Seat: seat("STD")},
		{Price: eur(1500), Seat: seat("PRM")},
		{Price: eur(999)},                 // no seat: says nothing
		{Price: eur(999), Seat: seat("")}, // no category: says nothing
	})
	want := map[string]string{"STD": "€8.00–€12.50", "PRM": "€15.00"}
	if len(got) != len(want) || got["STD"] != want["STD"] || got["PRM"] != want["PRM"] {
		t.Errorf("SeatPrices = %v, want %v", got, want)
	}
}

func TestAreaProblem(t *testing.T) {
	l := english(t)
	plan := cinema.SeatPlan{AreaCategories: []cinema.AreaCategory{{Code: "STD", Description: "Standard"}, {Code: "PRM", Description: "Premium"}}}
	seatIn := func(cat, row, label string) cinema.Seat {
		return cinema.Seat{AreaCategoryCode: cat, RowLabel: row, Label: label}
	}
	for _, tc := range []struct {
		name     string
		cats     []string
		seats    []cinema.Seat
		ok       bool
		mentions string
	}{
		{"every ticket in its area", []string{"STD", "PRM"}, []cinema.Seat{seatIn("STD", "F", "1"), seatIn("PRM", "P", "2")}, true, ""},
		{"a seat in an area no ticket is for", []string{"STD"}, []cinema.Seat{seatIn("PRM", "P", "2")}, false, "Row P, seat 2"},
		{"too few seats in an area", []string{"STD", "STD"}, []cinema.Seat{seatIn("STD", "F", "1")}, false, "Standard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AreaProblem(l, plan, tc.cats, tc.seats)
			if (got == "") != tc.ok || !strings.Contains(got, tc.mentions) {
				t.Errorf("AreaProblem = %q, want a problem: %v, naming %q", got, !tc.ok, tc.mentions)
			}
		})
	}
}
