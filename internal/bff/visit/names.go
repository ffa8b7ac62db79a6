package visit

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/names"
)

// Named is how flows show the cinema's own names (ticket types, areas, offers, ratings): the
// operator's catalog (Visits.Names) in the language ctx carries (the request's, or the one an
// e-mail is written in), amounts in offers written in its locale; a name the catalog lacks stays
// as the ticketing system sent it, and so does every name when ctx carries no language. Flows
// name what they read from the ticketing system with it (v.Named(ctx).Booking(b),
// .TicketTypes, .SeatPlan, .Order, .EditOrder, .Rating) before building views.
func (v *Visits) Named(ctx context.Context) names.Namer {
	l := i18n.FromContext(ctx)
	if l == nil {
		return names.Namer{}
	}
	return names.Namer{Catalog: v.names, Lang: l.Lang(), Money: l.Money}
}
