package sandbox

import (
	"net/http"
	"strconv"
)

type singleBookingRequest struct {
	CinemaID      string     `json:"CinemaId"`
	BookingNumber flexString `json:"BookingNumber"`
}

// bookingJSON is the Booking of GetSingleBooking as the real service sends
// it (wire-profile "Booking calls"): seat labels but no seat-plan
// positions, no session facts, no in-seat delivery or edit flags.
type bookingJSON struct {
	BookingNumber      int64                   `json:"BookingNumber"`
	BookingID          string                  `json:"BookingId"`
	CinemaID           string                  `json:"CinemaId"`
	VistaTransactionID int64                   `json:"VistaTransactionId"`
	VistaTransNumber   int64                   `json:"VistaTransNumber"`
	TotalValueCents    int64                   `json:"TotalValueCents"`
	IsPaid             bool                    `json:"IsPaid"`
	CustomerName       string                  `json:"CustomerName"`
	CustomerEmail      string                  `json:"CustomerEmail"`
	Tickets            []bookingTicketJSON     `json:"Tickets"`
	Concessions        []bookingConcessionJSON `json:"Concessions"`
	Payments           []bookingPaymentJSON    `json:"Payments"`
}

type bookingTicketJSON struct {
	TicketTypeCode       string `json:"TicketTypeCode"`
	TicketSequenceNumber int    `json:"TicketSequenceNumber"`
	SessionID            int    `json:"SessionId"`
	PriceInCents         int64  `json:"PriceInCents"`
	Description          string `json:"Description"`
	PackageGroupNumber   int    `json:"PackageGroupNumber"`
	SeatRowID            string `json:"SeatRowId"`
	SeatNumber           string `json:"SeatNumber"`
	RefundGroupNumber    int    `json:"RefundGroupNumber"`
	CurrentValueInCents  int64  `json:"CurrentValueInCents"`
	PaymentID            string `json:"PaymentId,omitempty"`
	OrderPaymentAmount   *int64 `json:"OrderPaymentAmount,omitempty"`
}

type bookingConcessionJSON struct {
	ItemID       string `json:"ItemId"`
	Description  string `json:"Description"`
	PriceInCents int64  `json:"PriceInCents"`
	Quantity     int    `json:"Quantity"`
}

// bookingPaymentJSON is one payment of a booking; a refund from
// complete-edit has a negative OrderPaymentAmount.
type bookingPaymentJSON struct {
	PaymentID             string `json:"PaymentId"`
	OrderPaymentAmount    int64  `json:"OrderPaymentAmount"`
	PaymentTenderCategory string `json:"PaymentTenderCategory"`
	CardType              string `json:"CardType"`
	CardNumberMasked      string `json:"CardNumberMasked"`
	BankReference         string `json:"BankReference"`
}

// json renders a booking record. s.mu must be held.
func (b *booking) json() bookingJSON {
	total, _ := b.totals()
	j := bookingJSON{BookingNumber: b.number, BookingID: b.id, CinemaID: b.cinema.ID, VistaTransactionID: b.transID, VistaTransNumber: b.transID,
		TotalValueCents: total, IsPaid: b.paid, CustomerName: b.customerName, CustomerEmail: b.customerEmail,
		Tickets: b.ticketsJSON(), Concessions: []bookingConcessionJSON{}, Payments: []bookingPaymentJSON{}}
	for _, c := range b.concessions {
		j.Concessions = append(j.Concessions, bookingConcessionJSON{c.c.ItemID, c.c.Description, c.c.PriceInCents, c.qty})
	}
	for i, p := range b.payments {
		j.Payments = append(j.Payments, bookingPaymentJSON{paymentID(i), p.amount, p.tender, p.cardType, p.masked, p.ref})
	}
	return j
}

// paymentID is the PaymentId of the i-th payment of a booking: "1", "2", …
func paymentID(i int) string { return strconv.Itoa(i + 1) }

// ticketsJSON renders the tickets with their refund groups (one per
// package, otherwise one per ticket, numbered from 1) and the first payment
// of the booking. s.mu must be held.
func (b *booking) ticketsJSON() []bookingTicketJSON {
	out := make([]bookingTicketJSON, 0, len(b.tickets))
	groups, nextGroup := map[int]int{}, 0
	for _, t := range b.tickets {
		group := groups[t.pkg]
		if t.pkg == 0 || group == 0 {
			nextGroup++
			group = nextGroup
			if t.pkg != 0 {
				groups[t.pkg] = group
			}
		}
		tj := bookingTicketJSON{TicketTypeCode: t.tt.Code, TicketSequenceNumber: t.seq, SessionID: t.sess.id, PriceInCents: t.price,
			Description: t.tt.Description, PackageGroupNumber: t.pkg, RefundGroupNumber: group, CurrentValueInCents: t.price}
		if t.seat >= 0 {
			d := &t.sess.screen.seats[t.seat]
			tj.SeatRowID, tj.SeatNumber = d.rowName, d.label
		}
		if len(b.payments) > 0 {
			amount := b.payments[0].amount
			tj.PaymentID, tj.OrderPaymentAmount = paymentID(0), &amount
		}
		out = append(out, tj)
	}
	return out
}

func (s *Server) handleGetSingleBooking(r *http.Request) reply {
	var req singleBookingRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famBooking, e)
	}
	n, err := strconv.ParseInt(string(req.BookingNumber), 10, 64)
	if err != nil || req.CinemaID == "" {
		return errReply(famBooking, invalid("CinemaId and a numeric BookingNumber are required"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.clock.Now())
	b, ok := s.bookingNums[bookingKey{req.CinemaID, n}]
	if !ok {
		return errReply(famBooking, errBookingNotFound)
	}
	return okReply(struct {
		ResultCode       int         `json:"ResultCode"`
		ErrorDescription *string     `json:"ErrorDescription"`
		Booking          bookingJSON `json:"Booking"`
	}{Booking: b.json()})
}
