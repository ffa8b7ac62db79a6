package cinema

import "strings"

// Booking is a completed order as GetSingleBooking reports it.
type Booking struct {
	Number        int64  // the booking number the customer quotes
	ID            string // the booking identifier used by edit and swap calls
	CinemaID      string
	TransactionID int64
	Session       SessionInfo
	Tickets       []BookedTicket
	Concessions   []Concession
	Payments      []BookingPayment
	Paid          bool
	// PaidKnown is false when the answer did not say whether the booking is
	// paid: actions that depend on it are offered and the upstream decides.
	PaidKnown      bool
	InSeatDelivery bool // true only when the answer says so (the real API does not: the upstream decides)
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
	Seat         *SeatRef // nil for unallocated seating; see SeatRef.Placed
	RefundGroup  int      // RefundGroupNumber, when sent
	PaymentID    string   // the booking payment this ticket was paid with, when sent
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
	ID                string // PaymentId, when sent
	// External is true when the answer says the payment was taken by an
	// external provider; ExternalKnown is false when it does not say (the
	// real API does not), and the upstream then decides.
	External      bool
	ExternalKnown bool
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
		if p.ExternalKnown && !p.External {
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
	if b.PaidKnown && !b.Paid {
		out = append(out, "unpaid_booking")
	}
	if b.InSeatDelivery {
		out = append(out, "in_seat_delivery")
	}
	return out
}

// SessionID returns the session of the booking's tickets (the booking's own
// when it names one).
func (b *Booking) SessionID() string {
	if b.Session.ID != "" {
		return b.Session.ID
	}
	for _, t := range b.Tickets {
		if t.SessionID != "" {
			return t.SessionID
		}
	}
	return ""
}

// PlaceOnPlan finds the seat-plan position of every ticket whose seat is
// known only by its labels (the real API's SeatRowId and SeatNumber), by
// matching the row's PhysicalName and the seat's Id. When two areas share
// labels, the ticket's area category decides, then the first area. It
// returns the tickets that could not be placed. (Whether the booking has
// in-seat delivery is the booking's own setting, not its area's: the real
// API does not say, so the upstream decides.)
func (b *Booking) PlaceOnPlan(plan SeatPlan) []BookedTicket {
	var missing []BookedTicket
	for i := range b.Tickets {
		t := &b.Tickets[i]
		if t.Seat == nil || t.Seat.Placed {
			continue
		}
		pick, ok := findOnPlan(plan, norm(t.Seat.RowLabel), norm(t.Seat.Label), t.Seat.AreaCategoryCode)
		if !ok {
			missing = append(missing, *t)
			continue
		}
		t.Seat.Position, t.Seat.AreaCategoryCode, t.Seat.Placed = pick.Position, pick.AreaCategoryCode, true
		t.Seat.RowLabel, t.Seat.Label = pick.RowLabel, pick.Label
	}
	return missing
}

// findOnPlan is the seat of the plan labelled row and seat (normalised): the first, in the
// plan's order, of the area category wanted when one is and has it, else the first of all. A
// booking has a few tickets and a plan hundreds of seats, so the plan is searched per ticket
// (rows by their label first) rather than indexed.
func findOnPlan(plan SeatPlan, row, seat, category string) (Seat, bool) {
	var first Seat
	found := false
	for _, a := range plan.Areas {
		for _, r := range a.Rows {
			if norm(r.Label) != row {
				continue
			}
			for _, s := range r.Seats {
				if norm(s.Label) != seat {
					continue
				}
				if category != "" && s.AreaCategoryCode == category {
					return s, true
				}
				if !found {
					first, found = s, true
				}
			}
		}
	}
	return first, found
}

// norm compares labels without case or surrounding space ("f " is "F").
func norm(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// Placed reports whether the ticket's seat-plan position is known.
func (t BookedTicket) Placed() bool { return t.Seat != nil && t.Seat.Placed }

// LikelyPaid is Paid when the answer said; when it did not, a booking with
// payments on record is taken as paid (the upstream still decides).
func (b *Booking) LikelyPaid() bool {
	if b.PaidKnown {
		return b.Paid
	}
	return len(b.Payments) > 0
}
