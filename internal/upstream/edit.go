package upstream

import (
	"cmp"
	"context"
	"net/http"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// EditBooking puts a booking into edit state (contract 4.1). bookingID is the
// booking's ID string (cinema.Booking.ID), not its number. The returned edit
// order carries the new UserSessionID used by every later call of the edit.
// A booking outside the restrictions fails with ErrEditRefused; see
// Error.EditRestriction.
func (c *Client) EditBooking(ctx context.Context, cinemaID, bookingID string) (cinema.EditOrder, error) {
	w, err := do[wireEditOrderResponse](ctx, c, OpEditBooking, routeParams{"cinemaId": cinemaID, "bookingId": bookingID}, nil, false, nil)
	if err != nil {
		return cinema.EditOrder{}, err
	}
	e := c.conv().editOrder(w)
	if e.CinemaID == "" {
		e.CinemaID = cinemaID
	}
	return e, nil
}

// ExternalPayment is a payment or refund taken by the external payment
// provider, reported to complete-edit (contract 2.4).
type ExternalPayment struct {
	AmountCents       int64
	ProviderReference string // the provider's payment id
	TenderCategory    string // "": the deployment's card tender (WithTenders)
	CardNumberMasked  string
	CardType          string
}

// CompleteEdit is the body of Complete Edit Booking in one of its three
// forms; build it with CompleteEditUnpaid, CompleteEditWithPayments or
// CompleteEditWithRefunds.
type CompleteEdit struct {
	Payments []ExternalPayment // payments.externalPayments (positive balance)
	Refunds  []ExternalPayment // refundPayments.externalPayments (negative balance)
}

// CompleteEditUnpaid is the form for an unpaid booking: an empty JSON object.
func CompleteEditUnpaid() CompleteEdit { return CompleteEdit{} }

// CompleteEditWithPayments is the form for a paid booking with a positive balance.
func CompleteEditWithPayments(p ...ExternalPayment) CompleteEdit { return CompleteEdit{Payments: p} }

// CompleteEditWithRefunds is the form for a paid booking with a negative balance.
func CompleteEditWithRefunds(r ...ExternalPayment) CompleteEdit { return CompleteEdit{Refunds: r} }

// externalToWire writes the external payment items; an item without a
// tender category gets the deployment's card tender.
func (c *Client) externalToWire(ps []ExternalPayment) *wireExternalPayments {
	if ps == nil {
		return nil
	}
	w := &wireExternalPayments{ExternalPayments: make([]wireExternalPayment, len(ps))}
	for i, p := range ps {
		w.ExternalPayments[i] = wireExternalPayment{
			AmountInCents: p.AmountCents, PaymentProviderReference: p.ProviderReference,
			PaymentTenderCategory: cmp.Or(p.TenderCategory, c.cfg.tenders.Card), CardNumberMasked: p.CardNumberMasked, CardType: p.CardType,
		}
	}
	return w
}

// EditCompletion is the answer of Complete Edit Booking.
type EditCompletion struct {
	BookingNumber int64
	BookingID     string
}

// CompleteEditBooking commits the edit (contract 4.4). Never retried: a
// failure after the request left may or may not have committed; read the
// booking to find out.
func (c *Client) CompleteEditBooking(ctx context.Context, userSessionID string, r CompleteEdit) (EditCompletion, error) {
	w := wireCompleteEditRequest{Payments: c.externalToWire(r.Payments), RefundPayments: c.externalToWire(r.Refunds)}
	resp, err := do[wireCompleteEditResponse](ctx, c, OpCompleteEditBooking, routeParams{"userSessionId": userSessionID}, w, false, nil)
	if err != nil {
		return EditCompletion{}, err
	}
	return EditCompletion{BookingNumber: resp.BookingNumber, BookingID: resp.BookingId}, nil
}

// SeatSwap moves the ticket with TicketSequenceNumber (cinema.BookedTicket.Seq)
// to NewSeat.
type SeatSwap struct {
	TicketSequenceNumber int
	NewSeat              cinema.SeatPosition
}

// SwapSeats moves booked seats to free seats of the same session (contract
// 4.9). A refusal fails with ErrSwapRefused; see Error.SwapRestriction.
func (c *Client) SwapSeats(ctx context.Context, cinemaID, bookingID string, swaps []SeatSwap) error {
	w := wireSwapSeatsRequest{Swaps: make([]wireSwap, len(swaps))}
	for i, s := range swaps {
		w.Swaps[i] = wireSwap{TicketSequenceNumber: s.TicketSequenceNumber, NewSeat: wireNewSeat{AreaNumber: s.NewSeat.AreaNumber, RowIndex: s.NewSeat.RowIndex, ColumnIndex: s.NewSeat.ColumnIndex}}
	}
	_, err := do[wireSwapSeatsResponse](ctx, c, OpSwapSeats, routeParams{"cinemaId": cinemaID, "bookingId": bookingID}, w, false, nil)
	return err
}

// GetSingleBooking reads a booking by its number. Retried when the upstream
// is unavailable.
func (c *Client) GetSingleBooking(ctx context.Context, cinemaID string, bookingNumber int64) (cinema.Booking, error) {
	resp, err := do[wireSingleBookingResponse](ctx, c, OpGetSingleBooking, routeParams{"cinemaId": cinemaID},
		wireSingleBookingRequest{CinemaId: cinemaID, BookingNumber: itoa(bookingNumber)}, true, nil)
	if err != nil {
		return cinema.Booking{}, err
	}
	if resp.Booking == nil {
		return cinema.Booking{}, &Error{Op: OpGetSingleBooking, HTTPStatus: http.StatusOK, Kind: ErrNotFound, Description: "no Booking in the answer"}
	}
	return c.conv().booking(resp.Booking, cinemaID), nil
}
