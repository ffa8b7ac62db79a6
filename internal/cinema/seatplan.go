package cinema

import "fmt"

// SeatPosition addresses one seat of a session: the area, then the row and
// column index inside the area. It is what the ticketing API calls a
// position and what seat selection and seat swaps send.
type SeatPosition struct {
	AreaNumber  int
	RowIndex    int
	ColumnIndex int
}

// String returns "area/row/column", stable enough for form values and keys.
func (p SeatPosition) String() string {
	return fmt.Sprintf("%d/%d/%d", p.AreaNumber, p.RowIndex, p.ColumnIndex)
}

// SeatRef is a seat as an order or booking refers to it.
type SeatRef struct {
	Position         SeatPosition
	AreaCategoryCode string
	RowLabel         string // "F"
	Label            string // "12"
	// Placed is true when Position is known: sent by the upstream, or found
	// on the seat plan by the labels (Booking.PlaceOnPlan).
	Placed bool
}

// Name returns the row label and seat label, e.g. "F12".
func (s SeatRef) Name() string { return s.RowLabel + s.Label }

// SeatKind is what a place is, whatever its current availability.
type SeatKind int

const (
	SeatKindUnknown    SeatKind = iota // not mapped; show as a normal seat, never select automatically
	SeatKindNormal                     // an ordinary seat
	SeatKindWheelchair                 // a wheelchair space
	SeatKindCompanion                  // a companion seat beside a wheelchair space
	SeatKindHouse                      // kept by the house, never sold
	SeatKindBroken                     // out of use
)

var seatKindNames = [...]string{"unknown", "normal", "wheelchair", "companion", "house", "broken"}

func (k SeatKind) String() string {
	if k >= 0 && int(k) < len(seatKindNames) {
		return seatKindNames[k]
	}
	return "unknown"
}

// SeatAvailability is whether a place can be chosen now.
type SeatAvailability int

const (
	SeatUnknown     SeatAvailability = iota // not mapped: never offered as free
	SeatFree                                // can be selected
	SeatTaken                               // sold
	SeatHeld                                // held by a live order or an unpaid reservation
	SeatUnavailable                         // house, broken or placeholder: never sold
)

var seatAvailabilityNames = [...]string{"unknown", "free", "taken", "held", "unavailable"}

func (a SeatAvailability) String() string {
	if a >= 0 && int(a) < len(seatAvailabilityNames) {
		return seatAvailabilityNames[a]
	}
	return "unknown"
}

// SeatPlan is the layout of a session's auditorium with the state of every seat.
type SeatPlan struct {
	CinemaID       string
	SessionID      string
	AreaCategories []AreaCategory
	Areas          []Area
}

// AreaCategory is a price category of seats (e.g. standard, premium).
type AreaCategory struct {
	Code           string
	Description    string
	InSeatDelivery bool
}

// Area is one block of seats (stalls, balcony).
type Area struct {
	Number           int
	AreaCategoryCode string
	Description      string
	AllocatedSeating bool
	HasSofas         bool
	RowCount         int
	ColumnCount      int
	NumberOfSeats    int
	Rows             []Row // index 0 is the row nearest the screen
}

// Row is one row of an area. A cross aisle is a row with no label and no seats.
type Row struct {
	Label string
	Seats []Seat // ordered by column; gaps are missing columns
}

// Seat is one place of the plan.
type Seat struct {
	Position         SeatPosition
	AreaCategoryCode string
	RowLabel         string
	Label            string
	Kind             SeatKind
	Availability     SeatAvailability
	// SofaGroup lists every place of the sofa this seat belongs to (itself
	// included), or is nil for a single seat.
	SofaGroup []SeatPosition
}

// Ref returns the seat as an order refers to it.
func (s Seat) Ref() SeatRef {
	return SeatRef{Position: s.Position, AreaCategoryCode: s.AreaCategoryCode, RowLabel: s.RowLabel, Label: s.Label, Placed: true}
}

// Selectable reports whether the seat can be chosen for a new ticket.
func (s Seat) Selectable() bool { return s.Availability == SeatFree }

// Seat finds the seat at p.
func (sp *SeatPlan) Seat(p SeatPosition) (Seat, bool) {
	for _, a := range sp.Areas {
		if a.Number != p.AreaNumber {
			continue
		}
		for _, r := range a.Rows {
			for _, s := range r.Seats {
				if s.Position == p {
					return s, true
				}
			}
		}
	}
	return Seat{}, false
}

// Count returns how many seats of the plan have availability a.
func (sp *SeatPlan) Count(a SeatAvailability) int {
	n := 0
	for _, ar := range sp.Areas {
		for _, r := range ar.Rows {
			for _, s := range r.Seats {
				if s.Availability == a {
					n++
				}
			}
		}
	}
	return n
}

// AreaCategory returns the category with code.
func (sp *SeatPlan) AreaCategory(code string) (AreaCategory, bool) {
	for _, c := range sp.AreaCategories {
		if c.Code == code {
			return c, true
		}
	}
	return AreaCategory{}, false
}

// AreaCategoryName is the area category as the cinema names it (its code when it has no name):
// the words a page uses for "seats in the same area".
func (sp *SeatPlan) AreaCategoryName(code string) string {
	if c, ok := sp.AreaCategory(code); ok && c.Description != "" {
		return c.Description
	}
	return code
}
