package cinema

import "time"

// Order is a ticketing order (a basket) as the ticket operations return it.
// In edit state the value fields hold the difference to the original booking.
type Order struct {
	UserSessionID     string
	CinemaID          string
	Total             Money
	Tax               Money
	BookingFee        Money
	BookingFeeTax     Money
	TotalOrderCount   int
	Sessions          []OrderSession
	TransactionNumber int64 // 0 while not completed
	BookingNumber     int64
	LastUpdated       time.Time
	Expires           time.Time
	SuggestedDeals    []Deal
	// AppliedPayments are gift card and loyalty payments applied before the
	// external payment (an extension of the sandbox; empty elsewhere).
	AppliedPayments []AppliedPayment
	// AmountToPay is what remains to pay after applied payments, when the
	// upstream says so; nil when it does not.
	AmountToPay *Money
}

// Tickets returns every ticket of every session of the order.
func (o *Order) Tickets() []OrderTicket {
	var out []OrderTicket
	for _, s := range o.Sessions {
		out = append(out, s.Tickets...)
	}
	return out
}

// ToPay returns what remains to pay: AmountToPay when known, else Total.
func (o *Order) ToPay() Money {
	if o.AmountToPay != nil {
		return *o.AmountToPay
	}
	return o.Total
}

// OrderSession is the part of an order for one session.
type OrderSession struct {
	CinemaID         string
	SessionID        string
	FilmTitle        string
	AllocatedSeating bool
	SeatsAllocated   bool
	Tickets          []OrderTicket
}

// OrderTicket is one ticket of an order.
type OrderTicket struct {
	ID              string // the ticket's id in the order (what RemoveTickets takes)
	SessionID       string
	TypeCode        string
	Description     string
	Price           Money
	DealPrice       Money
	FinalPrice      Money
	Tax             Money
	DealDescription string
	SeatData        string   // row and seat label as the upstream prints them, e.g. "F12"
	Seat            *SeatRef // nil when no seat is allocated
	PackageGroup    int      // 0: not in a package (only when the upstream says)
	// State is the ticket's edit state when the upstream says it (StateKnown); the contract's
	// PascalCase order does not carry it, so flows derive it from the edit's start otherwise.
	State      LineState
	StateKnown bool
}

// Deal is a deal the upstream suggests for the order.
type Deal struct {
	ID                             string
	Description                    string
	IsSeasonPass                   bool
	IsTicketUpgrade                bool
	LimitPerOrder                  *int // nil: no limit stated
	RequiresLoyalty                bool
	RequiresVoucher                bool
	ExcludesExistingDeals          bool
	ExcludesExistingDealsAvailable int
}

// AppliedPayment is a gift card or loyalty payment applied to an order.
type AppliedPayment struct {
	Kind             string // "GiftCard" or "Loyalty"
	Amount           Money
	MaskedCardNumber string
}
