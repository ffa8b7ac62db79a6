package visit

import (
	"time"

	"github.com/cinemabff/cinemabff/internal/purchases"
)

// Settings are the operator's settings the flows share through the visits (bff.Config says
// what each means); zero values take the defaults.
type Settings struct {
	OrderWatchFor      time.Duration // how long an unconfirmed order is checked before it is given up
	FailedOrderPolicy  string        // the operator's words on money taken for an order given up
	AttentionAfter     time.Duration // when an unconfirmed order is listed under Needs attention
	MaxSeatsPerVisit   int
	MaxOrdersPerClient int
	HoldLifetime       time.Duration
	// The box office's tender categories, card readers' location, and the refund above which a
	// clerk needs a supervisor's approval.
	TenderTerminal      string
	TenderCash          string
	ReaderLocation      string
	ReaderCountry       string
	RefundApprovalAbove int64
}

// WatchOrdersFor is how long an unconfirmed order is checked before it is given up.
func (s Settings) WatchOrdersFor() time.Duration {
	if s.OrderWatchFor > 0 {
		return s.OrderWatchFor
	}
	return purchases.DefaultWatchFor
}
