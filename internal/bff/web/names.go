package web

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/names"
)

// Named is how flows show the cinema's own names (ticket types, areas, offers, ratings): the
// operator's catalog (Kernel.Names) in the language ctx carries (the request's, or the one a
// notice keeps), amounts in offers written in its locale; a name the catalog lacks stays as the
// ticketing system sent it. Flows name what they read from the ticketing system with it
// (s.Named(ctx).Booking(b), .TicketTypes, .SeatPlan, .Order, .EditOrder) before building views.
func (s *Kernel) Named(ctx context.Context) names.Namer {
	return NamedIn(s.Names, i18n.FromContext(ctx))
}

// NamedIn is Named for a localizer at hand (a notice's language); nil l names nothing.
func NamedIn(c *names.Catalog, l *i18n.Localizer) names.Namer {
	if l == nil {
		return names.Namer{}
	}
	return names.Namer{Catalog: c, Lang: l.Lang(), Money: l.Money}
}
