package bff

import (
	"time"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/changewindow"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
)

// Config is the service's configuration as the site needs it: the kernel's part (web.Config,
// embedded, so its fields are written once) and the flows' settings, which New hands to the
// flow that uses them.
type Config struct {
	web.Config
	KioskIdle time.Duration
	// ChangeWindow is until when bookings may be changed (internal/changewindow); nil means
	// changewindow.Default(): 30 minutes before the show.
	ChangeWindow *changewindow.Policy
	// OrderWatchFor is how long a redirect payment's order that never completes is checked
	// before it is given up (cancelled upstream); 0 means 24 hours.
	OrderWatchFor time.Duration
	// FailedOrderPolicy is the operator's words on what happens to money taken for an order
	// that was given up, shown as they are; "" means the catalog's default words.
	FailedOrderPolicy string
	// AttentionAfter is how long an order whose redirect payment is still unconfirmed waits
	// before it is listed for staff under Needs attention; 0 means 10 minutes.
	AttentionAfter time.Duration
	// PasswordHashing are the argon2id parameters of staff passwords and PINs (zero: defaults).
	PasswordHashing staffaccounts.Params
	// Seat hoarding limits (internal/bff/visit; signed-in staff are exempt): the seats one visit
	// may hold (0 means 10), the open purchase orders of one client address across replicas (0
	// means 3), and how long an order whose end is never seen counts (0 means 20 minutes).
	MaxSeatsPerVisit   int
	MaxOrdersPerClient int
	HoldLifetime       time.Duration
	// The admission line in front of the purchase (internal/admission): new purchases let in
	// per minute and open at once (0: no limit; both 0: no line), and when showtimes' sales
	// open. Deps.Admission keeps the line; nil: this process's memory.
	AdmitPerMinute int
	AdmitActive    int
	SalesOpen      admission.Openings
	// MarkCollectedUpstream: the operator configured the upstream's operation that marks tickets
	// collected (-collection-path), so the kiosk calls it after printing. False (the default):
	// collections are recorded by the site alone (tickets.Collections) and nothing is sent.
	MarkCollectedUpstream bool
	// Box office: the tender categories of payments taken at the counter ("" means "CREDIT"
	// for the card terminal and "CASH"), and the refund amount in cents above which a clerk's
	// refund, on any device, needs a supervisor's approval (0 means 5000: 50,00).
	TenderTerminal string
	TenderCash     string
	// ReaderLocation is the provider's location new card readers are registered at; "": one
	// named after the site, made in ReaderCountry ("" means DE).
	ReaderLocation      string
	ReaderCountry       string
	RefundApprovalAbove int64
	// ListingTTL is how long a cinema's listing is shared before it is read again (0 means
	// 30 s; internal/listings).
	ListingTTL time.Duration
}

// visitSettings are the settings of c that the visits share with every flow.
func (c Config) visitSettings() visit.Settings {
	return visit.Settings{OrderWatchFor: c.OrderWatchFor, FailedOrderPolicy: c.FailedOrderPolicy,
		AttentionAfter: c.AttentionAfter, MaxSeatsPerVisit: c.MaxSeatsPerVisit, MaxOrdersPerClient: c.MaxOrdersPerClient,
		HoldLifetime: c.HoldLifetime, TenderTerminal: c.TenderTerminal, TenderCash: c.TenderCash,
		ReaderLocation: c.ReaderLocation, ReaderCountry: c.ReaderCountry, RefundApprovalAbove: c.RefundApprovalAbove}
}
