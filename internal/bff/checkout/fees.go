package checkout

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// learnFee records the booking fee per ticket of order o at cinemaID in h.FeeQuotes. The
// ticketing interface quotes fees only on an order, so without this the ticket step could show
// the tickets' prices alone and the total would jump on the seat step. An order without
// tickets, or whose fee does not divide evenly among its tickets, teaches nothing.
func (h *Handler) learnFee(ctx context.Context, cinemaID string, o *cinema.Order) {
	n := int64(len(o.Tickets()))
	if n == 0 || o.BookingFee.Cents < 0 || o.BookingFee.Cents%n != 0 {
		return
	}
	h.FeeQuotes.Learn(ctx, cinemaID, cinema.NewMoney(o.BookingFee.Cents/n, o.BookingFee.Currency))
}
