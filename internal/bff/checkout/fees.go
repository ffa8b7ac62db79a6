package checkout

import (
	"sync"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// feeQuotes is the booking fee per ticket that the ticketing system last charged at each
// cinema, learned from the orders this service opened. The ticketing interface quotes fees
// only on an order, so without this the ticket step could show the tickets' prices alone and
// the total would jump on the seat step. The zero value is ready to use.
type feeQuotes struct {
	mu        sync.Mutex
	perTicket map[string]cinema.Money // by cinema id
}

// learn records the fee per ticket of order o at cinemaID (an order without tickets, or whose
// fee does not divide evenly among its tickets, teaches nothing).
func (f *feeQuotes) learn(cinemaID string, o *cinema.Order) {
	n := int64(len(o.Tickets()))
	if n == 0 || o.BookingFee.Cents < 0 || o.BookingFee.Cents%n != 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.perTicket == nil {
		f.perTicket = map[string]cinema.Money{}
	}
	f.perTicket[cinemaID] = cinema.NewMoney(o.BookingFee.Cents/n, o.BookingFee.Currency)
}

// at is the fee per ticket last charged at cinemaID, and whether one is known.
func (f *feeQuotes) at(cinemaID string) (cinema.Money, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.perTicket[cinemaID]
	return m, ok
}
