// Package visit is what one visit holds in its server session: the booking it found, the edit
// and the purchase in progress with their upstream orders, the seats those hold, and the end of
// the visit that lets go of them. Every flow reads and changes a visit through Visits.
package visit

import (
	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bookings"
	"github.com/cinemabff/cinemabff/internal/boxoffice"
	"github.com/cinemabff/cinemabff/internal/changewindow"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/listings"
	"github.com/cinemabff/cinemabff/internal/names"
	"github.com/cinemabff/cinemabff/internal/notify"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/seatplans"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"golang.org/x/sync/singleflight"
)

// Visits reads and changes the visits' server-side state, over the kernel and the stores it
// is built with (New).
type Visits struct {
	kernel       *web.Kernel
	settings     *Settings
	purchases    *purchases.Store
	holds        *holds.Store
	mail         *notify.Mailer
	listings     *listings.Cache
	ticketTypes  *listings.TicketTypes
	seatPlans    *seatplans.Cache
	bookings     bookings.Reader
	placed       bookings.Reader
	names        *names.Catalog
	ledger       *ledger.Store
	settler      *settlement.Settler
	payments     upstream.Payments
	readers      upstream.CardReaders
	audit        *audit.Store
	staff        *staffaccounts.Store
	boxOffice    *boxoffice.Register
	changePolicy changewindow.Policy

	// moneySteps joins a money step to the one of the same key already running; steps counts
	// those running in the background, for Wait (moneystep.go).
	moneySteps singleflight.Group
	steps      stepTracker
}

// Deps are what the visits work over. The stores are nil where the site has no database, the
// shared reads nil without a ticketing client.
type Deps struct {
	Kernel *web.Kernel
	// Settings are the operator's settings the flows share (settings.go): one value for the
	// whole site.
	Settings *Settings
	// Purchases are the purchase flow's payment records; Holds the open orders per client.
	Purchases *purchases.Store
	Holds     *holds.Store
	// Mail sends the customers' messages and signs ticket codes.
	Mail *notify.Mailer
	// Listings are the cinemas and each cinema's sessions and films, shared by every visitor
	// (internal/listings).
	Listings *listings.Cache
	// TicketTypes are each session's ticket types outside an order, SeatPlans the seat plans
	// for showing maps (never for deciding a write).
	TicketTypes *listings.TicketTypes
	SeatPlans   *seatplans.Cache
	// Bookings reads bookings from the ticketing system; PlacedBookings places their tickets
	// on the seat plans from SeatPlans (ReadBooking).
	Bookings       bookings.Reader
	PlacedBookings bookings.Reader
	// Names is the operator's catalog of the cinema's names (ticket types, areas, offers,
	// ratings) in each language; nil names nothing: names are shown as the upstream sends them.
	Names *names.Catalog
	// Ledger holds the edit payments and refunds; Settler moves them on (built once by the
	// root); Payments is the provider, Readers its card readers of counters and kiosks (nil:
	// none, cards are then not taken on a reader at the box office).
	Ledger   *ledger.Store
	Settler  *settlement.Settler
	Payments upstream.Payments
	Readers  upstream.CardReaders
	// Audit is the staff audit trail; Staff the staff accounts (a supervisor's approval checks
	// a PIN); BoxOffice the register of money taken at the box office.
	Audit     *audit.Store
	Staff     *staffaccounts.Store
	BoxOffice *boxoffice.Register
	// ChangePolicy is until when bookings may be changed (internal/changewindow).
	ChangePolicy changewindow.Policy
}

// New builds the visits over d.
func New(d Deps) *Visits {
	if d.Settings == nil {
		d.Settings = &Settings{}
	}
	return &Visits{kernel: d.Kernel, settings: d.Settings, purchases: d.Purchases, holds: d.Holds, mail: d.Mail,
		listings: d.Listings, ticketTypes: d.TicketTypes, seatPlans: d.SeatPlans, bookings: d.Bookings, placed: d.PlacedBookings,
		names: d.Names, ledger: d.Ledger, settler: d.Settler, payments: d.Payments, readers: d.Readers, audit: d.Audit,
		staff: d.Staff, boxOffice: d.BoxOffice, changePolicy: d.ChangePolicy}
}
