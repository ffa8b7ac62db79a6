package upstream

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// BookingMode is how an order is completed.
type BookingMode int

const (
	BookingModeSale        BookingMode = 0 // paid
	BookingModeReservation BookingMode = 1 // unpaid reservation
)

// TicketRequest asks for Qty tickets of one type.
type TicketRequest struct {
	TypeCode string
	Qty      int    // 0 means 1
	Price    *int64 // price override in cents (rarely allowed); nil: the ticket type's price
}

// SelectedSeat is a seat to select, with its area category.
type SelectedSeat struct {
	AreaCategoryCode string
	Position         cinema.SeatPosition
}

// AddTicketsRequest is AddTickets (contract 4.3).
type AddTicketsRequest struct {
	UserSessionID string // a new 32-hex id starts a new order (see NewUserSessionID)
	CinemaID      string
	SessionID     string
	Tickets       []TicketRequest
	BookingMode   BookingMode
	// Seats to select with the tickets. Regular orders only: the contract
	// forbids SelectedSeats in edit state.
	Seats []SelectedSeat
	// BookingFeeOverrideCents fixes the booking fee (the only way to lock
	// fees in an edit); nil: automatic fee calculation.
	BookingFeeOverrideCents *int64
}

// RemoveTicketsRequest removes tickets by their order ticket ids. Removing one
// ticket of a package removes the whole package.
type RemoveTicketsRequest struct {
	UserSessionID string
	SessionID     string
	TicketIDs     []string // cinema.OrderTicket.ID
}

// SetSelectedSeatsRequest replaces the seats of the order's tickets for a session.
type SetSelectedSeatsRequest struct {
	UserSessionID string
	CinemaID      string
	SessionID     string
	Seats         []SelectedSeat
}

func seatsToWire(ss []SelectedSeat) []wireSelectedSeat {
	if len(ss) == 0 {
		return nil
	}
	out := make([]wireSelectedSeat, len(ss))
	for i, s := range ss {
		out[i] = wireSelectedSeat{AreaCategoryCode: s.AreaCategoryCode, AreaNumber: s.Position.AreaNumber, RowIndex: s.Position.RowIndex, ColumnIndex: s.Position.ColumnIndex}
	}
	return out
}

func (c *Client) orderCall(ctx context.Context, op string, params routeParams, body any, read bool) (*wireOrderEnvelope, error) {
	return do[wireOrderEnvelope](ctx, c, op, params, body, read, nil)
}

// AddTickets adds tickets to an order (a new one when UserSessionID is new).
// In edit state the order's values are the cost of the added tickets only.
func (c *Client) AddTickets(ctx context.Context, r AddTicketsRequest) (cinema.Order, error) {
	w := wireAddTicketsRequest{
		UserSessionId: r.UserSessionID, CinemaId: r.CinemaID, SessionId: r.SessionID,
		BookingMode: c.cfg.bookingModes.wire(r.BookingMode), ReturnOrder: true, SelectedSeats: seatsToWire(r.Seats),
		TicketTypes: make([]wireTicketTypeReq, 0, len(r.Tickets)),
	}
	for _, t := range r.Tickets {
		w.TicketTypes = append(w.TicketTypes, wireTicketTypeReq{TicketTypeCode: t.TypeCode, Qty: t.Qty, PriceInCents: t.Price})
	}
	if r.BookingFeeOverrideCents != nil {
		w.BookingFeeOverride = &wireBookingFeeOverride{FeeInCents: *r.BookingFeeOverrideCents}
	}
	env, err := c.orderCall(ctx, OpAddTickets, routeParams{"cinemaId": r.CinemaID, "sessionId": r.SessionID, "userSessionId": r.UserSessionID}, w, false)
	if err != nil {
		return cinema.Order{}, err
	}
	return c.conv().order(env.Order), nil
}

// RemoveTickets removes tickets from the order.
func (c *Client) RemoveTickets(ctx context.Context, r RemoveTicketsRequest) (cinema.Order, error) {
	w := wireRemoveTicketsRequest{
		UserSessionId:  r.UserSessionID,
		TicketRemovals: []wireTicketRemoval{{SessionId: r.SessionID, Tickets: r.TicketIDs, PackageTicketIds: []string{}}},
		ReturnOrder:    true,
	}
	if w.TicketRemovals[0].Tickets == nil {
		w.TicketRemovals[0].Tickets = []string{}
	}
	env, err := c.orderCall(ctx, OpRemoveTickets, routeParams{"sessionId": r.SessionID, "userSessionId": r.UserSessionID}, w, false)
	if err != nil {
		return cinema.Order{}, err
	}
	return c.conv().order(env.Order), nil
}

// SetSelectedSeats sets the seats of the order's tickets for a session.
func (c *Client) SetSelectedSeats(ctx context.Context, r SetSelectedSeatsRequest) (cinema.Order, error) {
	w := wireSetSelectedSeatsRequest{
		UserSessionId: r.UserSessionID, CinemaId: r.CinemaID, SessionId: r.SessionID,
		SelectedSeats: seatsToWire(r.Seats), ReturnOrder: true,
	}
	if w.SelectedSeats == nil {
		w.SelectedSeats = []wireSelectedSeat{}
	}
	env, err := c.orderCall(ctx, OpSetSelectedSeats, routeParams{"cinemaId": r.CinemaID, "sessionId": r.SessionID, "userSessionId": r.UserSessionID}, w, false)
	if err != nil {
		return cinema.Order{}, err
	}
	return c.conv().order(env.Order), nil
}

// GetOrder reads an order (regular or in edit state). Retried when the
// upstream is unavailable.
func (c *Client) GetOrder(ctx context.Context, userSessionID string) (cinema.Order, error) {
	env, err := c.orderCall(ctx, OpGetOrder, routeParams{"userSessionId": userSessionID}, wireUserSessionRequest{UserSessionId: userSessionID}, true)
	if err != nil {
		return cinema.Order{}, err
	}
	return c.conv().order(env.Order), nil
}

// ExpiryReset is the answer of ResetOrderExpiry.
type ExpiryReset struct {
	LastUpdated time.Time     // OrderLastUpdated: the order now lives from this instant
	Order       *cinema.Order // the order, when the upstream returned it
}

// ResetOrderExpiry gives the order its full hold time again ("more time").
func (c *Client) ResetOrderExpiry(ctx context.Context, userSessionID string) (ExpiryReset, error) {
	env, err := c.orderCall(ctx, OpResetOrderExpiry, routeParams{"userSessionId": userSessionID}, wireUserSessionRequest{UserSessionId: userSessionID}, false)
	if err != nil {
		return ExpiryReset{}, err
	}
	r := ExpiryReset{LastUpdated: env.OrderLastUpdated.Time}
	if env.Order != nil {
		o := c.conv().order(env.Order)
		r.Order = &o
		if r.LastUpdated.IsZero() {
			r.LastUpdated = o.LastUpdated
		}
	}
	return r, nil
}

// CancelOrder cancels an order; in edit state it restores the original booking.
func (c *Client) CancelOrder(ctx context.Context, userSessionID string) error {
	_, err := c.orderCall(ctx, OpCancelOrder, routeParams{"userSessionId": userSessionID}, wireUserSessionRequest{UserSessionId: userSessionID}, false)
	return err
}

// CompleteOrderRequest completes a regular order with a payment taken by the
// ticketing service itself, or as an unpaid reservation.
type CompleteOrderRequest struct {
	UserSessionID       string
	CustomerName        string
	CustomerEmail       string
	BookingMode         BookingMode
	PerformPayment      bool
	GeneratePrintStream bool
	ReturnPrintStream   bool
	Payment             *OrderPayment // nil for a reservation
}

// OrderPayment is the PaymentInfo of CompleteOrder.
type OrderPayment struct {
	AmountCents    int64
	TenderCategory string
	CardNumber     string
	CardType       string
}

// CompleteOrder completes a regular order. Never retried. The real service
// answers flat (booking number and id, trans number, print streams), not
// with order details: the result is marked completed with what it said.
func (c *Client) CompleteOrder(ctx context.Context, r CompleteOrderRequest) (cinema.OrderDetails, error) {
	w := wireCompleteOrderRequest{
		UserSessionId: r.UserSessionID, CustomerName: r.CustomerName, CustomerEmail: r.CustomerEmail,
		BookingMode: c.cfg.bookingModes.wire(r.BookingMode), PerformPayment: r.PerformPayment,
		GeneratePrintStream: r.GeneratePrintStream, ReturnPrintStream: r.ReturnPrintStream,
	}
	if p := r.Payment; p != nil {
		tender := p.TenderCategory
		if tender == "" {
			tender = c.cfg.tenders.Card
		}
		w.PaymentInfo = &wirePaymentInfo{PaymentValueCents: p.AmountCents, PaymentTenderCategory: tender, CardNumber: p.CardNumber, CardType: p.CardType}
	}
	d, err := do[wireCompleteOrderReply](ctx, c, OpCompleteOrder, routeParams{"userSessionId": r.UserSessionID}, w, false, nil)
	if err != nil {
		return cinema.OrderDetails{}, err
	}
	return c.conv().completion(d, r.UserSessionID), nil
}

// AppliedPaymentResult is the answer of ApplyGiftCard and ApplyLoyaltyPointsPayment.
type AppliedPaymentResult struct {
	Applied          cinema.Money  // amount taken from the card or account
	BalanceRemaining cinema.Money  // left on the card or account
	ToPay            cinema.Money  // what remains to pay on the order
	Order            *cinema.Order // the order, when returned
}

func (c *Client) appliedResult(env *wireOrderEnvelope) AppliedPaymentResult {
	cinemaID := ""
	if env.Order != nil {
		cinemaID = env.Order.CinemaId
	}
	cur := c.currencyFor(cinemaID)
	r := AppliedPaymentResult{
		Applied:          money(deref(env.AmountAppliedInCents), cur),
		BalanceRemaining: money(deref(env.BalanceRemainingInCents), cur),
		ToPay:            money(deref(env.AmountToPayInCents), cur),
	}
	if env.Order != nil {
		o := c.conv().order(env.Order)
		r.Order = &o
		if env.AmountToPayInCents == nil {
			r.ToPay = o.ToPay()
		}
	}
	return r
}

// ApplyGiftCard pays part of an order with a gift card, before the external
// payment. amountCents nil: the smaller of the card balance and what remains.
func (c *Client) ApplyGiftCard(ctx context.Context, userSessionID, cardNumber, pin string, amountCents *int64) (AppliedPaymentResult, error) {
	env, err := c.orderCall(ctx, OpApplyGiftCard, routeParams{"userSessionId": userSessionID},
		wireGiftCardRequest{UserSessionId: userSessionID, CardNumber: cardNumber, Pin: pin, AmountInCents: amountCents}, false)
	if err != nil {
		return AppliedPaymentResult{}, err
	}
	return c.appliedResult(env), nil
}

// ApplyLoyaltyPointsPayment pays part of an order with loyalty points (1
// point = 1 cent), before the external payment. The ticketing system checks
// the member's PIN: a card number alone spends nothing.
func (c *Client) ApplyLoyaltyPointsPayment(ctx context.Context, userSessionID, loyaltyCardNumber, pin string, amountCents *int64) (AppliedPaymentResult, error) {
	env, err := c.orderCall(ctx, OpApplyLoyaltyPointsPayment, routeParams{"userSessionId": userSessionID},
		wireLoyaltyRequest{UserSessionId: userSessionID, LoyaltyCardNumber: loyaltyCardNumber, Pin: pin, AmountInCents: amountCents}, false)
	if err != nil {
		return AppliedPaymentResult{}, err
	}
	return c.appliedResult(env), nil
}

// ExternalPaymentRequest starts a redirect payment (contract 4.5).
type ExternalPaymentRequest struct {
	UserSessionID       string
	ReturnURL           string // our landing page; the provider appends ?token=
	PaymentMethod       string // selects the redirect provider
	InApp               bool   // IsInAppPayment (kiosk)
	CustomerName        string
	CustomerEmail       string
	PrintStreamType     string
	GeneratePrintStream bool
}

// ExternalPaymentStarting starts the redirect payment with AutoCompleteOrder
// true and returns the address to send the browser to.
func (c *Client) ExternalPaymentStarting(ctx context.Context, r ExternalPaymentRequest) (string, error) {
	w := wireStartExternalPaymentRequest{
		UserSessionId:       r.UserSessionID,
		AutoCompleteOrder:   true,
		ExternalPaymentInfo: wireExternalPaymentInfo{ReturnUrl: r.ReturnURL, PaymentMethod: r.PaymentMethod, IsInAppPayment: r.InApp},
		OrderCompletionInfo: wireOrderCompletionInfo{
			CustomerInfo:  wireCustomerInfo{Name: r.CustomerName, Email: r.CustomerEmail},
			PrintSettings: wirePrintSettings{PrintStreamType: cmp.Or(r.PrintStreamType, c.cfg.printStreamType), GeneratePrintStream: r.GeneratePrintStream},
		},
	}
	resp, err := do[wireStartExternalPaymentResponse](ctx, c, OpExternalPaymentStarting, routeParams{"userSessionId": r.UserSessionID}, w, false, nil)
	if err != nil {
		return "", err
	}
	if resp.PaymentRedirectUrl == "" {
		return "", &Error{Op: OpExternalPaymentStarting, HTTPStatus: http.StatusOK, Kind: ErrUnavailable, Description: "no PaymentRedirectUrl in the answer"}
	}
	return resp.PaymentRedirectUrl, nil
}

// GetOrderDetails reads the completion state of an order (poll after a
// redirect payment). Concurrent calls for one order share one upstream call,
// which runs detached from any one caller's cancellation under its own
// deadline; each caller still returns when its own context ends, and none
// joins a call that cannot answer it in time or that a spell of slowness left
// behind (internal/flight). Retried when the upstream is unavailable. The
// returned slices are shared between the coalesced callers: treat them as
// read-only.
func (c *Client) GetOrderDetails(ctx context.Context, userSessionID string) (cinema.OrderDetails, error) {
	ch := c.details.DoChan(ctx, userSessionID, func() (cinema.OrderDetails, error) {
		// The op timeout applied inside call() is the shared call's deadline; no caller's
		// read deadline applies to it (the first caller's budget would cut it short for all).
		d, err := do[wireOrderDetails](Detach(ctx), c, OpGetOrderDetails, routeParams{"userSessionId": userSessionID}, nil, true, nil)
		if err != nil {
			return cinema.OrderDetails{}, err
		}
		return c.conv().orderDetails(d), nil
	})
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return cinema.OrderDetails{}, &Error{Op: OpGetOrderDetails, Kind: ErrUnavailable, Err: ctx.Err()}
	}
}

// NewUserSessionID returns a new order identifier: 32 lowercase hex
// characters, as the upstream requires.
func NewUserSessionID() string { return randomHex(16) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
