package sandbox

import (
	"net/http"
	"strconv"
)

type singleBookingRequest struct {
	CinemaID      string     `json:"CinemaId"`
	BookingNumber flexString `json:"BookingNumber"`
}

type bookingJSON struct {
	BookingNumber        int64                   `json:"BookingNumber"`
	BookingID            string                  `json:"BookingId"`
	CinemaID             string                  `json:"CinemaId"`
	CoreTransactionID    int64                   `json:"CoreTransactionId"`
	TotalValueCents      int64                   `json:"TotalValueCents"`
	BookingFeeValueCents int64                   `json:"BookingFeeValueCents"`
	IsPaid               bool                    `json:"IsPaid"`
	HasInSeatDelivery    bool                    `json:"HasInSeatDelivery"`
	CustomerName         string                  `json:"CustomerName"`
	CustomerEmail        string                  `json:"CustomerEmail"`
	SessionID            int                     `json:"SessionId"`
	FilmTitle            string                  `json:"FilmTitle"`
	Showtime             string                  `json:"Showtime"`
	ScreenName           string                  `json:"ScreenName"`
	Tickets              []bookingTicketJSON     `json:"Tickets"`
	Concessions          []bookingConcessionJSON `json:"Concessions"`
	Payments             []bookingPaymentJSON    `json:"Payments"`
	IsBeingEdited        bool                    `json:"IsBeingEdited"`
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
	AreaCategoryCode     string `json:"AreaCategoryCode"`
	AreaNumber           int    `json:"AreaNumber"`
	RowIndex             int    `json:"RowIndex"`
	ColumnIndex          int    `json:"ColumnIndex"`
}

type bookingConcessionJSON struct {
	ItemID       string `json:"ItemId"`
	Description  string `json:"Description"`
	PriceInCents int64  `json:"PriceInCents"`
	Quantity     int    `json:"Quantity"`
}

type bookingPaymentJSON struct {
	AmountInCents            int64  `json:"AmountInCents"`
	PaymentProviderReference string `json:"PaymentProviderReference"`
	PaymentTenderCategory    string `json:"PaymentTenderCategory"`
	CardNumberMasked         string `json:"CardNumberMasked"`
	CardType                 string `json:"CardType"`
	IsExternal               bool   `json:"IsExternal"`
	IsRefund                 bool   `json:"IsRefund"` // extension: refunds from complete-edit, AmountInCents negative
}

// bookingJSON renders a booking record (contract 2.6 with the wire-profile
// fields). s.mu must be held.
func (b *booking) json() bookingJSON {
	total, fees := b.totals()
	j := bookingJSON{BookingNumber: b.number, BookingID: b.id, CinemaID: b.cinema.ID, CoreTransactionID: b.transID,
		TotalValueCents: total, BookingFeeValueCents: fees, IsPaid: b.paid, HasInSeatDelivery: b.inSeatDelivery,
		CustomerName: b.customerName, CustomerEmail: b.customerEmail, Tickets: []bookingTicketJSON{},
		Concessions: []bookingConcessionJSON{}, Payments: []bookingPaymentJSON{}, IsBeingEdited: b.edit != nil}
	if ss := b.primarySession(); ss != nil {
		j.SessionID, j.FilmTitle, j.Showtime, j.ScreenName = ss.id, ss.film.Title, isoUTC(ss.showtime), ss.screen.name
	}
	for _, t := range b.tickets {
		tj := bookingTicketJSON{TicketTypeCode: t.tt.Code, TicketSequenceNumber: t.seq, SessionID: t.sess.id, PriceInCents: t.price,
			Description: t.tt.Description, PackageGroupNumber: t.pkg}
		if t.seat >= 0 {
			d := &t.sess.screen.seats[t.seat]
			tj.SeatRowID, tj.SeatNumber, tj.AreaCategoryCode = d.rowName, d.label, d.area.category.Code
			tj.AreaNumber, tj.RowIndex, tj.ColumnIndex = d.pos.area, d.pos.row, d.pos.col
		}
		j.Tickets = append(j.Tickets, tj)
	}
	for _, c := range b.concessions {
		j.Concessions = append(j.Concessions, bookingConcessionJSON{c.c.ItemID, c.c.Description, c.c.PriceInCents, c.qty})
	}
	for _, p := range b.payments {
		j.Payments = append(j.Payments, bookingPaymentJSON{p.amount, p.ref, p.tender, p.masked, p.cardType, p.external, p.refund})
	}
	return j
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
