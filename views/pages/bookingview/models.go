// Package bookingview holds the pages of the "manage a booking" flow: find, view, edit, pay or
// refund the difference.
package bookingview

import (
	"context"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/components"
)

// FindView is the look-up form.
type FindView struct {
	ActionURL string
	CSRFToken string
	Cinemas   []Option // shown only when there is more than one
	CinemaID  string
	Number    string
	Email     string
	Error     string             // one neutral message
	Notice    *components.Notice // a message for staff that is no error (a short PIN)
	Staff     bool               // a signed-in staff member looks up by number alone
	Kiosk     bool               // a ticket's QR code, or keypads; the kiosk's own cinema
	ScanError string             // why a scanned code found nothing (a kiosk)
}

// Option is a choice in a select.
type Option struct {
	Value, Label string
}

// TicketRow is one ticket line as shown on the booking page.
type TicketRow struct {
	Description string
	Seat        string
	Detail      string // a concession's "2 × 6,50 €"
	Price       string // the line's total
	Package     bool
}

// Action is something the person can do here, or why not.
type Action struct {
	Label    string
	URL      string
	Method   string // "post" for a form button, "" for a link
	Enabled  bool
	Reason   string // shown when disabled
	TestID   string
	Shortcut string // counter-mode key, e.g. "e"
	Primary  bool   // counter mode: the page's primary action, also on Enter

	// DescribedBy is the id of the words that say why it is disabled when they are said once
	// for several actions (the change window line); Reason is then empty.
	DescribedBy string
}

// BookingView is the booking page.
type BookingView struct {
	Number      string
	FilmTitle   string
	Showtime    string
	Screen      string
	Tickets     []TicketRow
	Concessions []TicketRow
	Fees        string
	Total       string
	Paid        bool
	Payments    []string // "€12.50 paid by VISA ************4242"
	Actions     []Action
	// ChangeWindow is until when changes are possible ("Changes possible until 19:30, …") or
	// why they are closed; "" to say nothing.
	ChangeWindow string
	// BoxOfficeSale is what a booking sold at the box office or a kiosk cannot have here and
	// what it still can ("" for any other booking): said once, before the actions, which point
	// to it (DescribedBy "box-office-sale").
	BoxOfficeSale string
	Notice        *components.Notice
	Changes       []string // what the last completed change did, in words
	MailLine      string   // where the e-mail about the last change stands; "" when none
	TicketCards   components.TicketsView
	CSRFToken     string
	EndURL        string // forget this booking on this device
	EndLabel      string // the words of EndURL's button when not "forget this booking on this device" (a kiosk's Done)
	// Counter: the box office's two-pane page, with the customer, a print link and no cards.
	Counter       bool
	CustomerName  string
	CustomerEmail string
	PrintURL      string
	FindURL       string
	// CalendarURL downloads the booking's calendar event (.ics); "" shows no link (kiosk,
	// counter).
	CalendarURL string
	// AppleWalletURL and GoogleWalletURL add the booking's tickets to the phone's wallet; ""
	// shows no link (kiosk, counter, or no wallet passes set up).
	AppleWalletURL, GoogleWalletURL string

	// TicketsOpen shows the ticket cards open, right after the show, instead of folded: the
	// show is near (changes are closed), so the codes are what the page is for now.
	TicketsOpen bool
}

// LineView is one line of the edit order.
type LineView struct {
	State       string // kept, moved, added, removed, unknown
	StateLabel  string // the word shown
	Description string
	// Seat and From (a moved ticket's seat before the change) are the seats in words: in the
	// visitor's language on the page and in the change's message and records, in English
	// where no language is at hand. SeatRow, SeatLabel, FromRow and FromLabel are the same
	// seats by their labels, in no language ("" when only the words are known).
	Seat, From         string
	SeatRow, SeatLabel string
	FromRow, FromLabel string
	Amount             cinema.Money // the line's price
	Price              string       // the same, written for the page
	RemoveURL          string       // empty when it cannot be removed
	TicketID           string
}

// StepperView is one ticket type on the edit page: how many the booking has, − removes one,
// + adds one.
type StepperView struct {
	Type         string // ticket type code (the add form's type)
	Name         string
	Price        string
	Count        int
	RemoveTicket string // the ticket − removes; empty when none of this type can be removed
	RemoveWhat   string // that ticket in words, for the accessible name: "Adult, Row C, seat 5"
}

// EditView is the edit page.
type EditView struct {
	BookingNumber string
	// StepNotice is the answer to a stepper when the page's live part was updated in place:
	// shown under the steppers, where the person is looking, instead of above the page.
	StepNotice  string
	FilmTitle   string
	Showtime    string
	Lines       []LineView
	Fees        string
	BalanceKind string // pay, refund, none
	Balance     string
	// The breakdown: what the booking cost, what the tickets and the fees change, what it
	// costs now. Totals is false when the booking's total before the change is not known.
	Totals        bool
	OriginalTotal string
	TicketsChange string // signed
	NewTotal      string
	PayWith       string   // how the balance is paid or where it goes back, in words
	RefundTo      []string // a refund's parts: "9,00 € back to VISA ****4242"
	Steppers      []StepperView
	FeeNote       string // explanation of a balance caused by changed fee rules
	Deals         []string
	ExpiresISO    string // for the countdown script
	ExpiresLocal  string // shown without JavaScript
	NowISO        string
	Notice        *components.Notice
	Counter       bool // box office: a key per ticket type adds one
	AddURL        string
	RemoveURL     string // the steppers' −
	ExtendURL     string
	SeatsURL      string
	CancelURL     string
	CompleteURL   string
	CompleteLabel string
	ExpiredURL    string
	CSRFToken     string
	HasChanges    bool
	Busy          *PaymentStatusView // a payment or refund in progress for this edit
	// MoveFrom and MoveTo are the old and the new show when the change moves the booking to
	// another showtime ("" otherwise).
	MoveFrom string
	MoveTo   string
}

// ShowtimesView lists the shows a booking may move to, day by day.
type ShowtimesView struct {
	BookingNumber string
	FilmTitle     string
	CurrentShow   string // the booking's show in words
	Party         string // "2 × Adult"
	Days          []ShowtimeDay
	AllFilms      bool // every film of the cinema, not only the booking's
	ActionURL     string
	SameFilmURL   string
	OtherFilmsURL string
	BackURL       string
	CSRFToken     string
	Counter       bool
	Notice        *components.Notice
}

// ShowtimeDay is one day of shows: "Tomorrow", "Monday 30 November".
type ShowtimeDay struct {
	Label string
	Rows  []ShowtimeRow
}

// ShowtimeRow is one show: its time, what the change costs the party there, its free seats.
type ShowtimeRow struct {
	SessionID  string
	Time       string
	DateTime   string // RFC 3339, for <time>
	Film       string
	Screen     string
	Tags       string // "OV"
	Free       string // "120 seats free"
	Difference string // "Same price", "€3.00 more", "€6.00 less"
	DiffKind   string // same, more, less, unknown ("" for the booking's own show)
	Missing    string // the party's types the show does not sell, in words
	Current    bool   // the booking's own show: shown, not offered
	Enabled    bool
	Reason     string // why it cannot be chosen
	Shortcut   string // counter: the digit that chooses it
}

// TypeChoiceView asks for another ticket type for each type the new show does not sell.
type TypeChoiceView struct {
	BookingNumber string
	NewShow       string
	SessionID     string
	Questions     []TypeQuestion
	NoOptions     bool // the show sells no type an edit may add
	ActionURL     string
	BackURL       string
	CSRFToken     string
	Counter       bool
}

// TypeQuestion is one of the party's ticket types and the types it can become.
type TypeQuestion struct {
	Field   string
	Name    string
	Options []TypeOption
	Error   string
}

// TypeOption is a ticket type the new show sells: "Adult · €12.50".
type TypeOption struct {
	Code  string
	Label string
}

// PaymentStatusView says where a payment or refund stands, honestly.
type PaymentStatusView struct {
	Heading   string
	Body      string
	Reference string
	Kind      components.NoticeKind
	Refresh   bool   // keep checking (meta refresh / htmx poll)
	PollURL   string // this page's URL
	NextURL   string
	NextLabel string
	Parts     []RefundPartView // a refund: where each part of it stands
	CSRFToken string           // for the parts handed back at the counter, and Cancel
	// Reader: a card-reader payment asking for the card (the page polls every second);
	// CancelURL stops it (the reader stops asking, nothing is taken).
	Reader      bool
	CancelURL   string
	CancelLabel string
	Counter     bool // at a counter: Cancel names its key
	// StopURL ends a payment waiting on the provider's page that the person left by the
	// browser's Back: the change is theirs again to pay or to cancel.
	StopURL string
}

// RefundPartView is one part of a refund: "9,00 € back to PAYPAL" and whether it went out.
type RefundPartView struct {
	Text   string
	Status string // "sent back", "still under way", "not sent back"
	State  string // done, pending, failed, box-office (waiting to be handed back at the counter)
	// GiveBackURL, at a counter, is where the clerk confirms handing this part back (cash,
	// or a refund on the card terminal); GiveBackLabel the button's words.
	GiveBackURL   string
	GiveBackLabel string
}

// CancelView confirms cancelling the edit.
type CancelView struct {
	Counter       bool // box office: staff words and keys
	BookingNumber string
	ActionURL     string
	BackURL       string
	CSRFToken     string
}

// SeatsView is the seat change page of the edit.
type SeatsView struct {
	Counter       bool // box office: Esc goes back to the change
	BookingNumber string
	ActionURL     string
	BackURL       string
	CSRFToken     string
	Count         int
	Notice        *components.Notice
	Map           components.SeatMapView
	Show          string // the show the map is of, when the change moves the booking to it
}

// PrintView is a booking's tickets alone, laid out for paper (A4 or an 80 mm roll).
type PrintView struct {
	Counter bool // box office: staff words, Esc goes back
	Number  string
	Tickets components.TicketsView
	BackURL string
	// A kiosk: Done ends the visit; AutoPrint ("" for none) prints the tickets once, after a
	// change (Changes says what changed).
	Kiosk     bool
	DoneURL   string
	CSRFToken string
	AutoPrint string
	Changes   []string
}

// printSpeech is what a kiosk in speech mode says on arriving at a booking's tickets: what
// changed (after a change), the film, the time, the screen and the seats, and that they print.
func printSpeech(ctx context.Context, v PrintView) string {
	parts := append([]string{}, v.Changes...)
	parts = append(parts, components.TicketsSpeech(ctx, v.Tickets))
	if len(v.Changes) > 0 {
		parts = append(parts, i18n.T(ctx, "kiosk.printing"), i18n.T(ctx, "kiosk.take_tickets"))
	}
	return strings.Join(parts, " ")
}
