package names

import (
	"slices"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// The methods below give copies of what the ticketing system answered with its names replaced
// by the namer's; the originals (which caches may share) are left as they are.

// TicketTypes names ticket types by their codes.
func (n Namer) TicketTypes(cinemaID string, types []cinema.TicketType) []cinema.TicketType {
	out := slices.Clone(types)
	for i := range out {
		out[i].Description = n.Name(TicketType, cinemaID, out[i].Code, out[i].Description)
	}
	return out
}

// SeatPlan names the plan's area categories and areas (by their category codes).
func (n Namer) SeatPlan(p cinema.SeatPlan) cinema.SeatPlan {
	p.AreaCategories = slices.Clone(p.AreaCategories)
	for i, c := range p.AreaCategories {
		p.AreaCategories[i].Description = n.Name(AreaCategory, p.CinemaID, c.Code, c.Description)
	}
	p.Areas = slices.Clone(p.Areas)
	for i, a := range p.Areas {
		p.Areas[i].Description = n.Name(Area, p.CinemaID, a.AreaCategoryCode, a.Description)
	}
	return p
}

// Booking names a booking's tickets by their type codes.
func (n Namer) Booking(b cinema.Booking) cinema.Booking {
	b.Tickets = slices.Clone(b.Tickets)
	for i, t := range b.Tickets {
		b.Tickets[i].Description = n.Name(TicketType, b.CinemaID, t.TypeCode, t.Description)
	}
	return b
}

// Order names an order's tickets and suggested deals.
func (n Namer) Order(o cinema.Order) cinema.Order {
	o.Sessions = slices.Clone(o.Sessions)
	for i := range o.Sessions {
		ts := slices.Clone(o.Sessions[i].Tickets)
		for j, t := range ts {
			ts[j].Description = n.Name(TicketType, o.CinemaID, t.TypeCode, t.Description)
		}
		o.Sessions[i].Tickets = ts
	}
	o.SuggestedDeals = n.deals(o.CinemaID, o.SuggestedDeals, o.Total.Currency)
	return o
}

// EditOrder names an edit's lines and suggested deals.
func (n Namer) EditOrder(e cinema.EditOrder) cinema.EditOrder {
	e.Lines = slices.Clone(e.Lines)
	for i, l := range e.Lines {
		e.Lines[i].Description = n.Name(TicketType, e.CinemaID, l.TypeCode, l.Description)
	}
	e.SuggestedDeals = n.deals(e.CinemaID, e.SuggestedDeals, e.Balance.Currency)
	return e
}

func (n Namer) deals(cinemaID string, ds []cinema.Deal, currency string) []cinema.Deal {
	ds = slices.Clone(ds)
	for i, d := range ds {
		ds[i].Description = n.Offer(cinemaID, d.ID, d.Description, currency)
	}
	return ds
}

// Rating is a film's rating code in the rating scheme's words ("FSK 12: ab 12 Jahren"); false
// when the catalog has none (the page then writes the code in its own words).
func (n Namer) Rating(cinemaID, code string) (string, bool) {
	return n.Catalog.Lookup(Rating, cinemaID, code, n.Lang)
}
