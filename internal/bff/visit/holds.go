package visit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/holds"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/purchases"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
)

// Seat hoarding limits. Without them one visitor could hold most of an auditorium in seconds.
//
//   - One open order per visit: a visit that chooses tickets again replaces its purchase order,
//     and the old one is cancelled upstream before the new one is asked for (never left holding
//     seats). If it cannot be cancelled, the new purchase is refused.
//   - A visit holds at most Config.MaxSeatsPerVisit seats (10): the purchase order's seats and
//     the seats an edit of a booking adds. Checked before the upstream is asked, where tickets
//     are chosen (the ticket step, adding tickets to an edit) and where seats are set.
//   - A client address has at most Config.MaxOrdersPerClient open purchase orders (3), counted
//     in the database (internal/holds) so all replicas agree. A hold ends when its order
//     completes, is cancelled, expires or is given up (endHold); one whose end is never seen
//     stops counting when the upstream hold would have run out (at most Config.HoldLifetime
//     after it was last seen alive).
//
// Signed-in staff are exempt from both limits: a box office sells to groups, and all its
// orders come from one address.

// Defaults of the limits (Config fields left 0).
const (
	defaultMaxSeatsPerVisit   = 10
	defaultMaxOrdersPerClient = 3
)

func (v *Visits) MaxSeatsPerVisit() int {
	if v.settings.MaxSeatsPerVisit > 0 {
		return v.settings.MaxSeatsPerVisit
	}
	return defaultMaxSeatsPerVisit
}

func (v *Visits) MaxOrdersPerClient() int {
	if v.settings.MaxOrdersPerClient > 0 {
		return v.settings.MaxOrdersPerClient
	}
	return defaultMaxOrdersPerClient
}

func (v *Visits) HoldLifetime() time.Duration {
	if v.settings.HoldLifetime > 0 {
		return v.settings.HoldLifetime
	}
	return holds.DefaultLifetime
}

// HoldKeeper does the open-order bookkeeping (internal/holds); without a database it does
// nothing. Built on each use, like the store it wraps, so it always follows s.Cfg.
func (v *Visits) HoldKeeper() *holds.Keeper {
	k := &holds.Keeper{Orders: v.kernel.Ticketing, Now: v.kernel.Now, Lifetime: v.HoldLifetime(), MaxOrdersPerClient: v.MaxOrdersPerClient(),
		Logger:  func(ctx context.Context) *slog.Logger { return web.LoggerFrom(ctx, v.kernel.Logger) },
		Payment: v.HoldPayment}
	if v.holds != nil {
		k.Store = v.holds
	}
	return k
}

// HoldPayment tells the keeper what the payment records say about an order.
func (v *Visits) HoldPayment(ctx context.Context, usid string) holds.Payment {
	if v.purchases == nil {
		return holds.PaymentUnknown
	}
	rec, err := v.purchases.Latest(ctx, usid)
	switch {
	case err != nil:
		return holds.PaymentUnknown
	case rec.State == purchases.StateCompleted:
		return holds.PaymentCompleted
	case rec.State == purchases.StateGivenUp:
		return holds.PaymentGivenUp
	case rec.State.Active():
		return holds.PaymentUnderWay
	}
	return holds.PaymentUnknown
}

// HoldExempt reports whether the limits do not apply: signed-in staff.
func (v *Visits) HoldExempt(c echo.Context) bool { return v.kernel.StaffMember(c) != "" }

// EndHold marks the purchase order's hold ended: it completed, was cancelled, expired or was
// given up. Safe to call for any order, more than once, and without a database; it never fails
// the request (a hold not ended stops counting at its expiry anyway).
func (v *Visits) EndHold(ctx context.Context, userSessionID string) {
	v.EndHoldFor(ctx, userSessionID, holds.ReasonEnded)
}

func (v *Visits) EndHoldFor(ctx context.Context, userSessionID, reason string) {
	v.HoldKeeper().End(ctx, userSessionID, reason)
}

// HoldExtended follows ResetOrderExpiry (holds.Keeper.Extended).
func (v *Visits) HoldExtended(ctx context.Context, userSessionID string, r upstream.ExpiryReset) {
	v.HoldKeeper().Extended(ctx, userSessionID, r)
}

// DropHold forgets the hold of an order the upstream did not create.
func (v *Visits) DropHold(ctx context.Context, userSessionID string) {
	v.HoldKeeper().Drop(ctx, userSessionID)
}

// HoldStarted records what the upstream said about the order it just created.
func (v *Visits) HoldStarted(ctx context.Context, userSessionID string, o cinema.Order) {
	v.HoldKeeper().Started(ctx, userSessionID, o)
}

// OrderGone reports an upstream answer meaning the order holds no seats any more.
func OrderGone(err error) bool { return holds.OrderGone(err) }

// ReleaseReplacedOrder cancels the visit's earlier purchase order before a new one is made: a
// visit has one open order. An order that cannot be cancelled (the ticketing system is not
// answering) stops the new purchase, so it is never left holding seats unseen.
func (v *Visits) ReleaseReplacedOrder(c echo.Context, prev Buy) error {
	ctx := c.Request().Context()
	err := v.kernel.Ticketing.CancelOrder(ctx, prev.UserSessionID)
	switch {
	case err == nil:
		v.EndHoldFor(ctx, prev.UserSessionID, holds.ReasonReplaced)
	case OrderGone(err):
		v.EndHoldFor(ctx, prev.UserSessionID, holds.ReasonExpired)
	case errors.Is(err, upstream.ErrOrderClosed):
		// Booked (or paying, which the caller refused before): it holds no seats for us to release.
		v.EndHoldFor(ctx, prev.UserSessionID, holds.ReasonEnded)
	default:
		web.LoggerFrom(ctx, v.kernel.Logger).Warn("cancel replaced order", "err", err)
		l := web.Loc(c)
		e := v.FromUpstream(err, v.kernel.URL("buy.summary"), l.T("checkout.back_to_order"))
		var ae *web.Error
		if errors.As(e, &ae) && ae.Code == web.EUnavailable {
			ae.Heading = l.T("checkout.replaced_not_released")
			ae.Message = l.T("checkout.replaced_not_released_text")
		}
		return e
	}
	return nil
}

// Holding is what a visit holds now: the seats of its purchase order and the seats its
// booking change adds.
type Holding struct {
	purchase  int    // seats of the purchase order (0: none)
	editAdded int    // seats added to the booking being changed (0: none)
	buyUSID   string // the purchase order ("" when none)
	hasEdit   bool
}

// AddedSeats counts the tickets an edit adds (each takes one seat: only simple ticket types
// can be added).
func AddedSeats(e Edit, o cinema.Order) int {
	original := map[string]bool{}
	for _, ol := range e.Original {
		original[ol.ID] = true
	}
	n := 0
	for _, t := range o.Tickets() {
		if t.State == cinema.LineAdded || (!t.StateKnown && !original[t.ID]) {
			n++
		}
	}
	return n
}

// Holding reads what the visit holds. editOrder is the edit's order when the caller has just
// read it (nil: read here when there is an edit). Orders the upstream no longer has count 0.
func (v *Visits) Holding(c echo.Context, editOrder *cinema.Order) Holding {
	ctx := c.Request().Context()
	var h Holding
	if buy, ok := v.CurrentBuy(c); ok {
		h.purchase, h.buyUSID = buy.Places, buy.UserSessionID
	}
	if e, ok := v.CurrentEdit(c); ok {
		h.hasEdit = true
		if editOrder == nil {
			if o, err := v.kernel.Ticketing.GetOrder(ctx, e.UserSessionID); err == nil {
				editOrder = &o
			}
		}
		if editOrder != nil {
			h.editAdded = AddedSeats(e, *editOrder)
		}
	}
	return h
}

// PurchaseAlive reports whether the visit's purchase order still holds seats upstream (asked
// only when it would make the difference).
func (v *Visits) PurchaseAlive(c echo.Context, usid string) bool {
	ctx := c.Request().Context()
	if _, err := v.kernel.Ticketing.GetOrder(ctx, usid); OrderGone(err) {
		v.EndHoldFor(ctx, usid, holds.ReasonExpired)
		return false
	}
	return true
}

// SeatsPerOrder is the most seats one purchase may have: MaxTicketsPerOrder, and for a
// customer no more than a visit may hold.
func (v *Visits) SeatsPerOrder(c echo.Context) int {
	if v.HoldExempt(c) {
		return MaxTicketsPerOrder
	}
	return min(MaxTicketsPerOrder, v.MaxSeatsPerVisit())
}

// TooManySeatsNotice is the ticket step's answer to more seats than one purchase may have:
// the form comes back with what was typed, so choosing fewer is one step.
func (v *Visits) TooManySeatsNotice(c echo.Context, seats int) *components.Notice {
	l := web.Loc(c)
	n := v.SeatsPerOrder(c)
	if v.HoldExempt(c) || n == MaxTicketsPerOrder && v.MaxSeatsPerVisit() > MaxTicketsPerOrder {
		return &components.Notice{Kind: components.NoticeError, Heading: l.N("checkout.limit_per_booking", n),
			Body: l.T("checkout.limit_split_group", "Chosen", seats)}
	}
	return &components.Notice{Kind: components.NoticeError, Heading: l.N("checkout.limit_at_a_time", n),
		Body: l.T("checkout.limit_chose", "Limit", l.N("common.seats", n), "Chosen", seats) + " " +
			l.T("checkout.limit_choose_fewer") + " " + l.T("checkout.limit_larger_group")}
}

// SeatStep is where a seat limit is checked: it decides the words and the ways on.
type SeatStep int

const (
	SeatStepTickets  SeatStep = iota // choosing tickets for a new purchase (replaces the visit's order)
	SeatStepBuySeats                 // setting the purchase order's seats
	SeatStepEditAdd                  // adding tickets to a booking change
)

// RefuseVisitSeats checks that the visit, after the step, holds at most MaxSeatsPerVisit seats.
// seats is what the step asks for: the new purchase's seats (tickets), the purchase order's
// seats (buy seats) or the tickets to add (edit). When it is too many, it renders the page that
// says so and what to do, and done is true (err is the rendering's). editOrder: see holding.
func (v *Visits) RefuseVisitSeats(c echo.Context, step SeatStep, seats int, editOrder *cinema.Order, back string) (done bool, err error) {
	if v.HoldExempt(c) {
		return false, nil
	}
	limit := v.MaxSeatsPerVisit()
	h := v.Holding(c, editOrder)
	total := 0
	switch step {
	case SeatStepTickets, SeatStepBuySeats:
		total = seats + h.editAdded // the purchase order is replaced by, or is, these seats
	case SeatStepEditAdd:
		total = h.purchase + h.editAdded + seats
	}
	if total <= limit {
		return false, nil
	}
	if step == SeatStepEditAdd && h.purchase > 0 && !v.PurchaseAlive(c, h.buyUSID) {
		h.purchase = 0 // the purchase ran out: it holds nothing
		if total = h.editAdded + seats; total <= limit {
			return false, nil
		}
	}
	return true, v.RenderSeatLimit(c, step, seats, h, back)
}

// RenderSeatLimit is the page of a visit that would hold too many seats.
func (v *Visits) RenderSeatLimit(c echo.Context, step SeatStep, seats int, h Holding, back string) error {
	l := web.Loc(c)
	limit := v.MaxSeatsPerVisit()
	view := components.HoldLimitView{Limit: "seats", Heading: l.N("checkout.limit_at_a_time", limit)}
	atMost := l.T("checkout.limit_hold_at_most", "Limit", l.N("common.seats", limit))
	switch step {
	case SeatStepTickets:
		view.Message = atMost + " " + l.T("checkout.limit_asked_for", "Asked", l.N("common.seats", seats))
	case SeatStepBuySeats:
		view.Message = atMost + " " + l.T("checkout.limit_order_has", "Asked", l.N("common.seats", seats))
	case SeatStepEditAdd:
		view.Message = atMost + " " + l.T("checkout.limit_asked_to_add", "Asked", l.N("common.tickets", seats))
	}
	if step != SeatStepEditAdd {
		h.purchase = 0 // the purchase order is what was asked about, not something held besides
	}
	switch {
	case h.purchase > 0 && h.editAdded > 0:
		view.Holding = l.T("checkout.limit_holding_both", "Purchase", l.N("common.seats", h.purchase), "Added", l.N("common.seats", h.editAdded))
	case h.purchase > 0:
		view.Holding = l.T("checkout.limit_holding_purchase", "Purchase", l.N("common.seats", h.purchase))
	case h.editAdded > 0:
		view.Holding = l.T("checkout.limit_holding_edit", "Added", l.N("common.seats", h.editAdded))
	}
	view.Advice = l.T("checkout.limit_advice") + " " + l.T("checkout.limit_larger_group")
	if step == SeatStepBuySeats {
		view.Advice = l.T("checkout.limit_advice_cancel") + " " + l.T("checkout.limit_larger_group")
	}
	if back != "" {
		label := l.T("checkout.limit_choose_fewer_link")
		if step == SeatStepBuySeats {
			label = l.T("checkout.back_to_order")
		}
		view.Links = append(view.Links, components.HoldLimitLink{Label: label, URL: back, TestID: "hold-limit-back"})
	}
	view.Links = append(view.Links, v.HeldOrderLinks(l, h)...)
	web.LoggerFrom(c.Request().Context(), v.kernel.Logger).Info("seat limit reached", "asked", seats, "purchase", h.purchase, "edit_added", h.editAdded, "max", limit)
	return v.kernel.Render(c, http.StatusConflict, view.Heading, components.HoldLimit(view))
}

// HeldOrderLinks lead to what the visit holds: its order and how to cancel it, its change.
func (v *Visits) HeldOrderLinks(l *i18n.Localizer, h Holding) []components.HoldLimitLink {
	var links []components.HoldLimitLink
	if h.buyUSID != "" {
		links = append(links,
			components.HoldLimitLink{Label: l.T("checkout.see_order"), URL: v.kernel.URL("buy.summary"), TestID: "hold-limit-order"},
			components.HoldLimitLink{Label: l.T("checkout.cancel_order"), URL: v.kernel.URL("buy.cancel"), TestID: "hold-limit-cancel"})
	}
	if h.hasEdit {
		links = append(links,
			components.HoldLimitLink{Label: l.T("checkout.see_edit"), URL: v.kernel.URL("edit.show"), TestID: "hold-limit-edit"},
			components.HoldLimitLink{Label: l.T("checkout.cancel_edit"), URL: v.kernel.URL("edit.cancel"), TestID: "hold-limit-edit-cancel"})
	}
	return links
}

// OpenPurchaseHold records the purchase order usid (seats) for the client before the upstream
// is asked for it, and refuses it when the client already has MaxOrdersPerClient open orders
// (the visit's own order being replaced, replaces, not counted): then it renders the page that
// says so and done is true. Staff are exempt and not recorded.
func (v *Visits) OpenPurchaseHold(c echo.Context, usid string, seats int, replaces, back string) (done bool, err error) {
	if v.holds == nil || v.HoldExempt(c) {
		return false, nil
	}
	k := v.HoldKeeper()
	key := HoldClientKey(c)
	err = k.Open(c.Request().Context(), key, usid, seats, replaces)
	var le *holds.LimitError
	switch {
	case errors.As(err, &le):
		return true, v.RenderOrderLimit(c, k, key, le, back)
	case err != nil:
		return true, err
	}
	return false, nil
}

// HoldClientKey is who an open order counts against: the client address, except for an
// enrolled kiosk, which is its own client. Several kiosks in one lobby share one address, and
// each may well have a guest's order open at the same time.
func HoldClientKey(c echo.Context) string {
	if d := web.DeviceOf(c); d.Mode == device.Kiosk && d.Enrolment != 0 {
		return holds.ClientKey("device-enrolment:" + strconv.FormatInt(d.Enrolment, 10))
	}
	return holds.ClientKey(web.ClientKey(c))
}

// RenderOrderLimit is the page of a client with too many open orders.
func (v *Visits) RenderOrderLimit(c echo.Context, k *holds.Keeper, key string, le *holds.LimitError, back string) error {
	ctx := c.Request().Context()
	l := web.Loc(c)
	view := components.HoldLimitView{Limit: "orders", Heading: l.T("checkout.order_limit"),
		Message: l.T("checkout.order_limit_text", "Orders", l.N("checkout.orders_count", le.Open), "Limit", le.Limit),
		Advice:  l.T("checkout.order_limit_advice")}
	if open, err := k.OpenFor(ctx, key); err == nil && len(open) > 0 {
		first := open[0].Expires
		for _, h := range open[1:] {
			if h.Expires.Before(first) {
				first = h.Expires
			}
		}
		wait := max(first.Sub(v.kernel.Now()), time.Minute)
		c.Response().Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())))
		view.Holding = l.T("checkout.order_limit_release", "Minutes", l.N("common.minutes", int((wait+time.Minute-1)/time.Minute)))
	}
	if back != "" {
		view.Links = append(view.Links, components.HoldLimitLink{Label: l.T("checkout.back_to_tickets"), URL: back, TestID: "hold-limit-back"})
	}
	h := v.Holding(c, nil)
	view.Links = append(view.Links, v.HeldOrderLinks(l, h)...)
	view.Links = append(view.Links, components.HoldLimitLink{Label: l.T("checkout.see_whatson"), URL: v.kernel.URL("whatson"), TestID: "hold-limit-whatson"})
	web.LoggerFrom(ctx, v.kernel.Logger).Info("open order limit reached", "open", le.Open, "max", le.Limit)
	return v.kernel.Render(c, http.StatusTooManyRequests, view.Heading, components.HoldLimit(view))
}
