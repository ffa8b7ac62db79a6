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

// Visits reads and changes the visits' server-side state; Kernel is the kernel it works over.
type Visits struct {
	Kernel *web.Kernel
	// Settings are the operator's settings the flows share (settings.go).
	Settings Settings
	// Purchases are the purchase flow's payment records; Holds the open orders per client.
	// Both nil without a database.
	Purchases *purchases.Store
	Holds     *holds.Store
	// Mail sends the customers' messages and signs ticket codes; nil without a database.
	Mail *notify.Mailer
	// Listings are the cinemas and each cinema's sessions and films, shared by every visitor
	// (internal/listings); nil without a ticketing client.
	Listings *listings.Cache
	// TicketTypes are each session's ticket types outside an order, SeatPlans the seat plans
	// for showing maps (never for deciding a write); both nil without a ticketing client.
	TicketTypes *listings.TicketTypes
	SeatPlans   *seatplans.Cache
	// Bookings reads bookings from the ticketing system; PlacedBookings places their tickets
	// on the seat plans from SeatPlans (ReadBooking).
	Bookings       bookings.Reader
	PlacedBookings bookings.Reader
	// Names is the operator's catalog of the cinema's names (ticket types, areas, offers,
	// ratings) in each language; nil names nothing: names are shown as the upstream sends them.
	Names *names.Catalog
	// Ledger holds the edit payments and refunds (nil without a database); Settler moves them
	// on (built once by the root over the payment provider, the box office and the ledger);
	// Payments is the provider, Readers its card readers of counters and kiosks (nil: none,
	// cards are then not taken on a reader at the box office).
	Ledger   *ledger.Store
	Settler  *settlement.Settler
	Payments upstream.Payments
	Readers  upstream.CardReaders
	// Audit is the staff audit trail; nil without a database.
	Audit *audit.Store
	// Staff are the staff accounts (a supervisor's approval checks a PIN); nil without a
	// database.
	Staff *staffaccounts.Store
	// BoxOffice is the register of money taken at the box office; nil without a database.
	BoxOffice *boxoffice.Register

	// moneySteps joins a money step to the one of the same key already running; steps counts
	// those running in the background, for Wait (moneystep.go).
	moneySteps singleflight.Group
	steps      stepTracker
	// ChangePolicy is until when bookings may be changed (internal/changewindow).
	ChangePolicy changewindow.Policy
}
