package visit

import (
	"context"
	"testing"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/names"
)

// TestNamedInTheContextsLanguage: Named answers in the language ctx carries, writes an offer's
// amount in its locale, and leaves names as sent without a catalog or a language.
func TestNamedInTheContextsLanguage(t *testing.T) {
	langs, err := i18n.Load(language.English)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := names.Parse([]byte(`{"ticketTypes": {"0001": {"en": "Adult", "de": "Erwachsene"}},
		"offers": {"UP": {"en": "Upgrade for {amount}", "de": "Upgrade für {amount}"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	de := i18n.NewContext(context.Background(), langs.For(language.German))
	en := i18n.NewContext(context.Background(), langs.For(language.English))
	order := cinema.Order{CinemaID: "0001", Total: cinema.Money{Currency: "EUR"},
		Sessions:       []cinema.OrderSession{{Tickets: []cinema.OrderTicket{{TypeCode: "0001", Description: "Adult"}}}},
		SuggestedDeals: []cinema.Deal{{ID: "UP", Description: "Upgrade for 4,00 €"}}}
	tests := []struct {
		name         string
		v            *Visits
		ctx          context.Context
		ticket, deal string
	}{
		{"German", New(Deps{Names: cat}), de, "Erwachsene", "Upgrade für 4,00\u00a0€"},
		{"English: the amount in English", New(Deps{Names: cat}), en, "Adult", "Upgrade for €4.00"},
		{"no catalog", New(Deps{}), de, "Adult", "Upgrade for 4,00 €"},
		{"no language", New(Deps{Names: cat}), context.Background(), "Adult", "Upgrade for 4,00 €"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.v.Named(tt.ctx).Order(order)
			if got := o.Sessions[0].Tickets[0].Description; got != tt.ticket {
				t.Errorf("ticket %q, want %q", got, tt.ticket)
			}
			if got := o.SuggestedDeals[0].Description; got != tt.deal {
				t.Errorf("offer %q, want %q", got, tt.deal)
			}
		})
	}
	if order.Sessions[0].Tickets[0].Description != "Adult" {
		t.Error("Named changed the order it was given")
	}
}
