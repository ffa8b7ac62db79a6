package cinema

// Booking is a completed order as GetSingleBooking reports it.
type Booking struct {
	Number         int64  // the booking number the customer quotes
	ID             string // the booking identifier used by edit and swap calls
	CinemaID       string
	TransactionID  int64
	Session        SessionInfo
	Tickets        []BookedTicket
	Concessions    []Concession
	Payments       []BookingPayment
	Paid           bool
	InSeatDelivery bool
	BeingEdited    bool
	Total          Money // total value of the booking, fees included
	Fees           Money // booking fees
	CustomerName   string
	CustomerEmail  string
}

// BookedTicket is one ticket of a booking.
type BookedTicket struct {
	Seq          int // ticket sequence number, the key of a seat swap
	SessionID    string
	TypeCode     string
	Description  string
	Price        Money
	PackageGroup int      // 0: not in a package; equal non-zero numbers form one package
	Seat         *SeatRef // nil for unallocated seating
}

// InPackage reports whether the ticket belongs to a package.
func (t BookedTicket) InPackage() bool { return t.PackageGroup != 0 }

// Concession is a food or drink item of a booking.
type Concession struct {
	ItemID      string
	Description string
	Price       Money
	Quantity    int
}

// BookingPayment is a payment recorded on a booking.
type BookingPayment struct {
	Amount            Money
	ProviderReference string
	TenderCategory    string
	CardNumberMasked  string
	CardType          string
	External          bool // taken by an external payment provider
}

// PackageMates returns the tickets that must move together with the ticket
// with sequence number seq (itself included). A ticket outside a package is
// alone.
func (b *Booking) PackageMates(seq int) []BookedTicket {
	var group int
	found := false
	for _, t := range b.Tickets {
		if t.Seq == seq {
			group, found = t.PackageGroup, true
			break
		}
	}
	if !found {
		return nil
	}
	var out []BookedTicket
	for _, t := range b.Tickets {
		if t.Seq == seq || (group != 0 && t.PackageGroup == group) {
			out = append(out, t)
		}
	}
	return out
}

// Ticket returns the ticket with sequence number seq.
func (b *Booking) Ticket(seq int) (BookedTicket, bool) {
	for _, t := range b.Tickets {
		if t.Seq == seq {
			return t, true
		}
	}
	return BookedTicket{}, false
}

// EditRestrictions lists the edit restrictions the booking visibly breaks, as
// far as the booking record shows them (concessions, non-external payments,
// package tickets). The upstream has the last word; this lets a view explain
// a refusal before asking.
func (b *Booking) EditRestrictions() []string {
	var out []string
	if len(b.Concessions) > 0 {
		out = append(out, "concessions")
	}
	for _, p := range b.Payments {
		if !p.External {
			out = append(out, "non_external_payment")
			break
		}
	}
	for _, t := range b.Tickets {
		if t.InPackage() {
			out = append(out, "package_ticket")
			break
		}
	}
	return out
}

// SwapRestrictions lists the seat-swap restrictions the booking itself breaks
// (unpaid, in-seat delivery).
func (b *Booking) SwapRestrictions() []string {
	var out []string
	if !b.Paid {
		out = append(out, "unpaid_booking")
	}
	if b.InSeatDelivery {
		out = append(out, "in_seat_delivery")
	}
	return out
}
