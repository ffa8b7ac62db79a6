// Package booking is the booking flow: finding a booking by its number and e-mail (or a
// ticket's code), showing it with its tickets, and changing it: adding and removing tickets,
// choosing seats, seeing the difference, and completing the change with nothing to pay, a
// payment or a refund through the provider (or at the counter), or cancelling it.
package booking

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// Handler serves the booking flow: the kernel renders and routes, the visits hold the
// booking found and the edit in progress.
type Handler struct {
	Kernel *web.Kernel
	Visits *visit.Visits
	// CountersOnly guards the counter's payments and refunds: staff signed in on an enrolled
	// counter (built by the staff flow, handed in by the root).
	CountersOnly echo.MiddlewareFunc
	// WalletLinks are a booking's Add to Apple Wallet and Add to Google Wallet links ("" for
	// none); nil offers none. They work until WalletLinkValidFor after the show: the page
	// offers them no longer than that.
	WalletLinks        func(cinemaID string, number int64) (apple, google string)
	WalletLinkValidFor time.Duration
}
