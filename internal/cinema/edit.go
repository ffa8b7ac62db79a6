package cinema

import "time"

// LineState is the state of an item of an order in edit state.
type LineState int

const (
	LineUnknown LineState = iota // a bookingStatus nobody mapped; never treated as committed
	LineKept                     // booked on the original booking and still there
	LineAdded                    // added in this edit, not yet committed
	LineRemoved                  // booked on the original, removed in this edit
)

var lineStateNames = [...]string{"unknown", "kept", "added", "removed"}

func (s LineState) String() string {
	if s >= 0 && int(s) < len(lineStateNames) {
		return lineStateNames[s]
	}
	return "unknown"
}

// EditOrder is the order of a booking being edited. Its value fields hold the
// difference between the original booking and the current edit.
type EditOrder struct {
	UserSessionID string // the new identifier of this edit; every later call uses it
	CinemaID      string
	Expires       time.Time
	Sessions      []EditSession
	Lines         []EditLine
	Fees          []FeeLine
	// Balance is the value of the changes (fees included as the upstream
	// counts them): positive means the customer pays, negative means a refund.
	Balance        Money
	Tax            Money
	FeeBalance     Money // booking fee value of the changes
	FeeTax         Money
	SuggestedDeals []Deal
}

// ToPay is what the customer pays to complete the edit (zero unless the
// balance is positive).
func (e *EditOrder) ToPay() Money {
	if e.Balance.Cents > 0 {
		return e.Balance
	}
	return Money{Currency: e.Balance.Currency}
}

// ToRefund is what the customer gets back when completing the edit (zero
// unless the balance is negative), as a positive amount.
func (e *EditOrder) ToRefund() Money {
	if e.Balance.Cents < 0 {
		return e.Balance.Neg()
	}
	return Money{Currency: e.Balance.Currency}
}

// LinesIn returns the lines in state s.
func (e *EditOrder) LinesIn(s LineState) []EditLine {
	var out []EditLine
	for _, l := range e.Lines {
		if l.State == s {
			out = append(out, l)
		}
	}
	return out
}

// HasUnknown reports whether any line or fee has an unmapped bookingStatus.
// Such an order should not be completed without a human look.
func (e *EditOrder) HasUnknown() bool {
	for _, l := range e.Lines {
		if l.State == LineUnknown {
			return true
		}
	}
	for _, f := range e.Fees {
		if f.State == LineUnknown {
			return true
		}
	}
	return false
}

// HasChanges reports whether anything was added or removed.
func (e *EditOrder) HasChanges() bool {
	for _, l := range e.Lines {
		if l.State == LineAdded || l.State == LineRemoved {
			return true
		}
	}
	return false
}

// EditSession is a session of an edit order.
type EditSession struct {
	ID               string
	FilmTitle        string
	AllocatedSeating bool
}

// EditLine is one ticket of an edit order.
type EditLine struct {
	State           LineState
	RawStatus       int // the bookingStatus as sent, for logs
	SessionID       string
	TicketID        int64
	TypeCode        string
	Description     string
	FinalPrice      Money
	OriginalPrice   Money
	Tax             Money
	VoucherBarcode  string
	DealDescription string
	IsPackage       bool
	Seats           []SeatRef
}

// FeeLine is one booking fee of an edit order.
type FeeLine struct {
	State     LineState
	RawStatus int
	Price     Money
	Tax       Money
}
