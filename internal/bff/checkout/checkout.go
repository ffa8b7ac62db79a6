// Package checkout is the purchase flow: what's on, choosing tickets and seats, the buyer's
// details, gift cards and loyalty points, paying by redirect to the payment provider and the
// landing page that waits for the order to complete (or takes the failed-order path), and the
// sale at the counter. The purchase's records, the poller and the watcher of unconfirmed
// orders are the domain package internal/purchases.
package checkout

import (
	"context"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/labstack/echo/v4"
)

// Handler serves the purchase flow: the kernel renders and routes, the visits hold the
// purchase in progress.
type Handler struct {
	Kernel *web.Kernel
	Visits *visit.Visits
	// PaymentMethod is sent as ExternalPaymentInfo.PaymentMethod for redirect payments.
	PaymentMethod string
	// CountersOnly guards the sale at the counter: staff signed in on an enrolled counter
	// (built by the staff flow, handed in by the root).
	CountersOnly echo.MiddlewareFunc
	// WalletLinks are a booking's Add to Apple Wallet and Add to Google Wallet links (nil: the
	// confirmation offers none; built by the wallet flow, handed in by the root).
	WalletLinks func(cinemaID string, number int64) (apple, google string)
	state       *checkoutState // nil without a database or a ticketing client
}

// New builds the flow; the payment records, the poller and the watcher exist only with a
// database and a ticketing client.
func New(k *web.Kernel, v *visit.Visits, paymentMethod string) *Handler {
	h := &Handler{Kernel: k, Visits: v, PaymentMethod: paymentMethod}
	if v.Purchases != nil && k.Ticketing != nil {
		h.state = h.newCheckoutState()
	}
	return h
}

// Watcher is the watcher of unconfirmed orders (Needs attention checks an order with it); nil
// without a database.
func (h *Handler) Watcher() *purchases.Watcher {
	if h.state == nil {
		return nil
	}
	return h.state.watcher
}

// ResumeWatchers picks up, after a restart, the unconfirmed orders a replica was watching.
func (h *Handler) ResumeWatchers(ctx context.Context) (int, error) {
	if h.state == nil {
		return 0, nil
	}
	return h.state.watcher.Resume(ctx)
}

// StartWatchers checks unconfirmed orders in the background until ctx ends.
func (h *Handler) StartWatchers(ctx context.Context, every time.Duration) {
	if h.state != nil {
		h.state.watcher.Start(ctx, every)
	}
}
