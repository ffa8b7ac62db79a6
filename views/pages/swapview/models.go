// Package swapview holds the pages of the seat swap flow: choose tickets and new seats, confirm,
// and the result read back from the ticketing system.
package swapview

import (
	"github.com/cinemabff/cinemabff/views/components"
)

// Header is what every swap page says about the booking.
type Header struct {
	BookingNumber string
	FilmTitle     string
	Showtime      string
	Screen        string
}

// TicketUnit is one thing that can move: a single ticket, or all tickets of a package.
type TicketUnit struct {
	Value   string // form value: the ticket sequence numbers joined by "+"
	Label   string // "Adult · Row F, seat 11"
	Detail  string // "Standard" or, for a package, the note that its tickets move together
	Package bool
	Checked bool
	Seats   int    // how many new seats it needs (a package: its size)
	TestID  string // also the base of the element ids
}

// ChooseView is the page where the person picks the tickets that move and their new seats.
type ChooseView struct {
	Header
	Counter   bool // staff at the box office: Esc goes back
	Notice    *components.Notice
	Reason    string // non-empty: the booking's seats cannot be swapped, and why (no form)
	ActionURL string
	BackURL   string
	BackLabel string
	CSRFToken string
	Units     []TicketUnit
	AreaNote  string // which area category the new seats must be in
	Map       components.SeatMapView
}

// Move is one ticket's old and new seat.
type Move struct {
	Ticket  string // "Adult"
	From    string // "Row F, seat 11"
	To      string // "Row C, seat 1"
	Package bool
	TestID  string // also the base of the element ids
}

// ConfirmView asks for the go-ahead before anything is sent.
type ConfirmView struct {
	Header
	Moves     []Move
	ActionURL string
	ChangeURL string
	CSRFToken string
	// Shown names the moves on this page; the go-ahead carries it back, so that moves
	// chosen meanwhile in another window are shown before they are made.
	Shown  string
	Notice *components.Notice
}

// DoneView shows the result, read back from the ticketing system after the swap.
type DoneView struct {
	Header
	Moves     []Move
	Tickets   components.TicketsView
	MailLine  string
	BackURL   string
	BackLabel string
}
