package visit

import (
	"context"
	"errors"
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Ending a visit and letting go of what it holds upstream: the kiosk's idle reset, "Start
// over" and "Done", forgetting a booking, signing out, the next customer at the counter.

// ResetVisit ends the visit: the kiosk's idle reset (app.js posts here when the warning's
// countdown runs out), "Start over" and "Done". The visit's open order is cancelled upstream,
// which releases its seats, the server session is destroyed, and the start screen comes back.
// The device cookie stays.
func (v *Visits) ResetVisit(c echo.Context) error {
	if err := v.EndVisit(c); err != nil {
		return err
	}
	return web.Redirect(c, v.Kernel.URL(web.RouteHome))
}

// EndVisit releases what the visit holds upstream and destroys it. An order whose payment is
// under way is left alone: the payment's watcher finishes it whether anybody waits or not.
// Cancelling is best effort: an order the upstream cannot cancel now releases its seats when its
// hold expires, and the next guest must not inherit this visit either way.
func (v *Visits) EndVisit(c echo.Context) error {
	v.ReleaseOpenOrders(c)
	if err := v.Kernel.Sessions.Destroy(c.Request().Context()); err != nil {
		return fmt.Errorf("end visit: %w", err)
	}
	return nil
}

// ReleaseOpenOrders cancels upstream the orders this visit holds and nobody will finish: the
// purchase order and the edit order, unless a payment of theirs is under way (its watcher or
// the reconciler finishes it whether anybody waits or not). Used wherever a visit lets go of
// what it holds: the kiosk's reset, forgetting a booking, signing out, the next customer.
func (v *Visits) ReleaseOpenOrders(c echo.Context) {
	v.ReleaseBuy(c)
	v.ReleaseEdit(c)
}

// ReleaseBuy cancels the visit's purchase order unless its payment is under way.
func (v *Visits) ReleaseBuy(c echo.Context) {
	if v.Kernel.Ticketing == nil {
		return
	}
	buy, ok := v.CurrentBuy(c)
	if !ok {
		return
	}
	if rec, busy := v.BuyPaymentUnderWay(c, buy); busy {
		web.LoggerFrom(c.Request().Context(), v.Kernel.Logger).Info("visit let go of a purchase with a payment under way: order kept", "ref", rec.ID)
		return
	}
	v.CancelAbandoned(c.Request().Context(), "purchase", buy.UserSessionID)
}

// ReleaseEdit cancels the visit's edit order (the original booking stays as it was) unless a
// payment or refund of the change is under way; that entry is returned (nil when none), so a
// caller that must not let go of it (the next customer at the counter) can say so.
func (v *Visits) ReleaseEdit(c echo.Context) *ledger.Entry {
	if v.Kernel.Ticketing == nil {
		return nil
	}
	e, ok := v.CurrentEdit(c)
	if !ok {
		return nil
	}
	ctx := c.Request().Context()
	log := web.LoggerFrom(ctx, v.Kernel.Logger)
	entry, err := v.BlockingEntry(ctx, e)
	switch {
	case err != nil:
		log.Warn("visit let go of an edit whose payment state is unknown: edit order kept", "booking", e.BookingNumber, "err", err)
	case entry != nil:
		log.Info("visit let go of an edit with a payment under way: edit order kept", "booking", e.BookingNumber, "entry", entry.ID)
	default:
		v.CancelAbandoned(ctx, "edit", e.UserSessionID)
	}
	return entry
}

// CancelAbandoned cancels an order nobody will finish; an order already gone is fine.
func (v *Visits) CancelAbandoned(ctx context.Context, what, userSessionID string) {
	err := v.Kernel.Ticketing.CancelOrder(ctx, userSessionID)
	switch {
	case err == nil:
		web.LoggerFrom(ctx, v.Kernel.Logger).Info("abandoned order cancelled", "what", what)
	case errors.Is(err, upstream.ErrNotFound), errors.Is(err, upstream.ErrOrderExpired):
	default:
		web.LoggerFrom(ctx, v.Kernel.Logger).Warn("abandoned order not cancelled: its seats are released when its hold expires", "what", what, "err", err)
	}
}

// staffKeys are the visit's values that belong to the staff member and the browser, not to the
// customer being served: the sign-in, the language, the CSRF secret, the session's freshness.
var staffKeys = map[string]bool{
	web.SessStaffUser: true, web.SessStaffName: true, web.SessStaffEpoch: true, web.SessStaffSeen: true,
	web.SessStaffPINWarning: true, web.SessLang: true, web.SessCSRF: true, web.SessTouched: true,
}

// ForgetCustomer removes from the visit everything of the customer served: whatever a flow
// keeps for them (the booking, an edit, a purchase and its pages, a collection, notices) is
// every key but the staff member's own, so a value a flow adds later is forgotten too. Orders
// it held upstream are let go first (ReleaseOpenOrders).
func (v *Visits) ForgetCustomer(c echo.Context) {
	ctx := c.Request().Context()
	for _, k := range v.Kernel.Sessions.Keys(ctx) {
		if !staffKeys[k] {
			v.Kernel.Sessions.Remove(ctx, k)
		}
	}
}

// PaymentElsewhere is the answer to a payment's page (the provider's way back, its status)
// opened outside the visit that started the payment: another browser, a link passed on, the
// next customer at a counter. The provider's ids are in the payment page's address and are no
// secret, so holding one proves nothing: the page names nothing of the booking, changes
// nothing, and tells the owner where to look.
func (v *Visits) PaymentElsewhere(c echo.Context) error {
	l := web.Loc(c)
	return &web.Error{Code: web.ENotFound, Heading: l.T("common.payment_elsewhere_heading"), Message: l.T("common.payment_elsewhere_text"),
		BackURL: v.Kernel.URL(web.RouteFindBooking), BackLabel: l.T("common.find_booking")}
}
