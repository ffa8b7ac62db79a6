// Package checkoutview holds the pages of the purchase flow: what's on, tickets, seats, your
// details, the summary with gift card and loyalty payments, the "confirming your payment"
// page that polls, the confirmation with printable tickets and the failed-order page.
package checkoutview

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/views/components"
)

// PollPause is how long the "confirming your payment" page waits after an answer before it
// asks again.
const PollPause = 100 * time.Millisecond

// PollTrigger is the htmx trigger of that poll. The page asks again as soon as an answer has
// arrived (load, after PollPause), and the server holds a question whose answer the page
// already shows until its next read of the order (every purchases.PollInterval, whatever the
// number of open pages). So a page always has a question waiting when the order is read, and
// learns of a completion at that read, not one poll later. The "every" is the fallback for an
// answer that never came (a network error swaps nothing, so no new load fires).
var PollTrigger = "load delay:" + strconv.Itoa(int(PollPause/time.Millisecond)) + "ms, every " +
	strconv.Itoa(int((purchases.PollInterval+time.Second)/time.Second)) + "s"

// PollShownParam is the query parameter of that poll naming the answer the page shows (the
// server holds a poll whose answer the page already shows; without it, it answers at once).
const PollShownParam = "shown"

// Steps are the message ids of the purchase's steps, in order.
var Steps = []string{msg("checkout.tickets"), msg("checkout.step_seats"), msg("checkout.details_title"), msg("checkout.step_pay")}

// optionalStep is the step a kiosk shows only when a guest asks for it (an e-mail address for
// the tickets): the kiosk's step indicator leaves it out unless it is the current step (CSS).
var optionalStep = Steps[2]

// msg marks a message id that a view model holds and a component localizes later.
func msg(id string) string { return id }

// Option is a choice in a select or a list of links.
type Option struct {
	Value    string
	Label    string
	Selected bool
	URL      string
}

// WhatsOnView lists the films and sessions of a cinema on one day.
type WhatsOnView struct {
	ActionURL  string
	Cinemas    []Option
	Days       []Option // links to the other days
	CinemaName string
	DayLabel   string
	Films      []FilmSessions
	Notice     *components.Notice
	// AsOf says the show times are an old listing kept while the cinema's system does not
	// answer; nil when the listing is current.
	AsOf    *components.Notice
	Counter bool // the box office: showtimes on number keys
}

// FilmSessions is a film with its sessions of the day.
type FilmSessions struct {
	Title    string
	Rating   string // in words (checkout.ratingWords), "" for none
	RunTime  string
	Synopsis string
	Sessions []SessionLink
}

// SessionLink is one showing.
type SessionLink struct {
	Time      string // "20:30"
	DateTime  string // ISO, for <time>
	Screen    string
	Available string // "412 seats free", localized
	URL       string
	SoldOut   bool
	Key       string // the counter's number key for it ("" for none)
}

// SessionHeader says which showing a step is about.
type SessionHeader struct {
	FilmTitle string
	Showtime  string
	Screen    string
	Cinema    string
}

// TicketsView is the ticket step: types with prices and quantities.
type TicketsView struct {
	Counter   bool // staff at the box office: staff words
	Session   SessionHeader
	ActionURL string
	BackURL   string
	CSRFToken string
	Types     []TicketTypeRow
	Notice    *components.Notice
	MaxTotal  int
	// The running total under the choice: its words now, and the templates the script fills
	// as counts change ({n} tickets, {total} price).
	TotalText, TotalNone, TotalOne, TotalOther string
	FeeCents                                   int64 // the booking fee per ticket the total includes (0: none known)
}

// TicketTypeRow is one ticket type with the quantity typed.
type TicketTypeRow struct {
	Code        string
	Description string
	Detail      string // "package of 2" (localized), "child" (the cinema's words)
	Price       string
	PriceCents  int64
	Currency    string
	Qty         string
	Invalid     bool
}

// SeatsView is the seat step (the shared seat map component).
type SeatsView struct {
	Session   SessionHeader
	ActionURL string
	BackURL   string
	CSRFToken string
	Count     int
	Map       components.SeatMapView
	Total     string // the order's total as it stands, for the action bar ("" shows none)
	Notice    *components.Notice
	Countdown CountdownView
	Counter   bool // the box office: keys on the actions
}

// DetailsView is the name and e-mail step.
type DetailsView struct {
	Counter    bool // staff at the box office: the customer's details, in staff words
	Session    SessionHeader
	ActionURL  string
	BackURL    string
	CSRFToken  string
	Name       string
	Email      string
	NameError  string
	EmailError string
	Countdown  CountdownView
	Kiosk      bool // e-mail only, on the on-screen keyboard; optional
}

// CountdownView is the live hold countdown.
type CountdownView struct {
	ExpiresISO   string
	ExpiresLocal string
	NowISO       string
	ExtendURL    string
	ExpiredURL   string
	CSRFToken    string
}

// Line is a ticket or payment line with an amount.
type Line struct {
	Description string
	Seat        string
	Amount      string
}

// SummaryView is the last step before paying.
type SummaryView struct {
	Counter   bool // staff at the box office: payment is taken on the next step
	OnReader  bool // a kiosk: paid on its card reader
	CannotPay bool // a kiosk without its card reader: no Pay at all
	Kiosk     bool // touch: links are buttons
	// Who says whom the tickets are for and where they go when that is not a name and an
	// e-mail address (a walk-in, a kiosk guest); DetailsLabel is its link to add them.
	Who, DetailsLabel string
	Session           SessionHeader
	Tickets           []Line
	Subtotal          string
	Fees              string
	Total             string
	Applied           []Line // gift card and loyalty payments
	ToPay             string
	NothingToPay      bool
	CustomerName      string
	CustomerEmail     string
	Notice            *components.Notice
	Countdown         CountdownView
	CSRFToken         string
	PayURL            string
	PayLabel          string
	GiftCardURL       string
	LoyaltyURL        string
	SeatsURL          string
	DetailsURL        string
	CancelURL         string
	GiftCard          string // what was typed
	GiftCardError     string
	Loyalty           string
	LoyaltyError      string
	// Underway is set when a payment for this order has started: the provider page again, or
	// the status page.
	UnderwayURL  string // the provider's page again
	UnderwayStat string
	StatusURL    string // our page that shows where the payment stands
}

// ConfirmingView is the return landing page while the payment is being confirmed.
type ConfirmingView struct {
	Heading   string
	Body      string
	Elapsed   int // seconds since the return
	Max       int // seconds before the failed-order path
	PollURL   string
	Reference string
}

// ConfirmationView is the booking confirmation.
type ConfirmationView struct {
	BookingNumber string
	Session       SessionHeader
	CustomerName  string
	CustomerEmail string
	Tickets       []Line
	Fees          string
	Total         string
	Payments      []Line
	Given, Change string // cash handed over at the counter, and the change given back ("" for none)
	TicketCards   components.TicketsView
	MailLine      string // where the e-mail with the tickets stands; "" when none was written
	Kiosk         bool
	Counter       bool // staff at the box office: staff words
	Reference     string
	HomeURL       string
	WhatsOnURL    string
	DoneURL       string // a kiosk's Done: the visit ends
	CSRFToken     string
	// CalendarURL downloads the booking's calendar event (.ics); "" shows no link (kiosk,
	// counter).
	CalendarURL string
	// AppleWalletURL and GoogleWalletURL add the tickets to the phone's wallet; "" shows none.
	AppleWalletURL, GoogleWalletURL string
}

// FailedView is the failed-order path: no confirmation in time. While the order is still being
// checked it says so; once given up, the outcome and the operator's policy on the money.
type FailedView struct {
	Reference     string
	Amount        string
	CheckURL      string
	HomeURL       string
	PaymentState  string // what we know of the payment, in words (still being checked)
	CheckingUntil string // when the checks end, in the cinema's time (still being checked)
	GivenUp       bool   // the wait ended: Outcome and Policy say what that means
	Outcome       string
	Policy        string // the operator's words on the money (-failed-order-policy), shown as they are
}

// EndedView is a payment that ended without money taken, seen outside the visit that paid.
type EndedView struct {
	Heading string
	Body    string
	NextURL string
	Label   string
}

// ReaderView is a purchase's payment on the device's card reader.
type ReaderView struct {
	State     string // the ledger entry's state, for tests and styles
	Kind      components.NoticeKind
	Heading   string
	Body      string
	Amount    string
	Waiting   bool   // the reader asks for the card
	PollURL   string // "" once nothing changes by itself
	CancelURL string // stops the reader while it asks
	CSRFToken string
	Counter   bool // keys shown for the clerk
}

// spokenSeats lists the lines' seats for the kiosk's speech: "Row G, seat 13; Row G, seat 14".
func spokenSeats(lines []Line) string {
	var seats []string
	for _, t := range lines {
		if t.Seat != "" {
			seats = append(seats, t.Seat)
		}
	}
	return strings.Join(seats, "; ")
}

// speechOrder is what a kiosk in speech mode says on arriving at the last step, before the
// guest pays: the film, the time, the screen, the seats and what is to pay, then how to go on.
func speechOrder(ctx context.Context, v SummaryView) string {
	return i18n.T(ctx, "speech.order", "Film", v.Session.FilmTitle, "Time", v.Session.Showtime, "Screen", v.Session.Screen,
		"Seats", spokenSeats(v.Tickets), "ToPay", v.ToPay) + " " + i18n.T(ctx, "speech.hint_order")
}

// speechSummary is what a kiosk in speech mode says on arriving at the confirmation: the film,
// the time, the screen, the seats, the amount paid and the booking number (digit by digit, as
// it is typed at the kiosk to collect or change), then that the tickets print.
func speechSummary(ctx context.Context, v ConfirmationView) string {
	return i18n.T(ctx, "speech.summary", "Film", v.Session.FilmTitle, "Time", v.Session.Showtime, "Screen", v.Session.Screen,
		"Seats", spokenSeats(v.Tickets), "Paid", v.Total, "Number", strings.Join(strings.Split(v.BookingNumber, ""), " ")) +
		" " + i18n.T(ctx, "kiosk.printing") + " " + i18n.T(ctx, "kiosk.take_tickets")
}
