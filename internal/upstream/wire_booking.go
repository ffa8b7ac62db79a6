package upstream

// Wire shapes of GetSingleBooking (RESTBooking.svc): contract 2.6 as the real
// service answers it (docs/wire-profile.md, "Booking calls"). Real tickets
// carry seat labels, not seat-plan positions, and real payments carry no
// IsExternal; the fields our sandbox once added are read when present and
// never needed.

type wireSingleBookingRequest struct {
	CinemaId      string `json:"CinemaId"`
	BookingNumber string `json:"BookingNumber"` // the number, sent as a string
}

type wireSingleBookingResponse struct {
	bookingCodes
	Booking *wireBooking `json:"Booking"`
}

type wireBooking struct {
	BookingNumber flexInt    `json:"BookingNumber"`
	BookingId     flexString `json:"BookingId"`
	CinemaId      flexString `json:"CinemaId"`
	bookingBrand
	TotalValueCents      flexInt                 `json:"TotalValueCents"`
	BookingFeeValueCents flexInt                 `json:"BookingFeeValueCents"`
	IsPaid               *bool                   `json:"IsPaid"`
	CustomerName         string                  `json:"CustomerName"`
	CustomerEmail        string                  `json:"CustomerEmail"`
	Email                string                  `json:"Email"`
	Tickets              []wireBookingTicket     `json:"Tickets"`
	Concessions          []wireBookingConcession `json:"Concessions"`
	Payments             []wireBookingPayment    `json:"Payments"`

	// Read when present; the real service is not known to send them.
	SessionId         flexString `json:"SessionId"`
	FilmTitle         string     `json:"FilmTitle"`
	Showtime          localTime  `json:"Showtime"`
	ScreenName        string     `json:"ScreenName"`
	HasInSeatDelivery *bool      `json:"HasInSeatDelivery"`
	IsBeingEdited     bool       `json:"IsBeingEdited"`
}

type wireBookingTicket struct {
	TicketTypeCode       flexString `json:"TicketTypeCode"`
	TicketSequenceNumber flexInt    `json:"TicketSequenceNumber"`
	SessionId            flexString `json:"SessionId"`
	PriceInCents         flexInt    `json:"PriceInCents"`
	Description          string     `json:"Description"`
	PackageGroupNumber   flexInt    `json:"PackageGroupNumber"`
	SeatRowId            flexString `json:"SeatRowId"`
	SeatNumber           flexString `json:"SeatNumber"`
	RefundGroupNumber    flexInt    `json:"RefundGroupNumber"`
	CurrentValueInCents  *flexInt   `json:"CurrentValueInCents"`
	PaymentId            flexString `json:"PaymentId"`
	OrderPaymentAmount   *flexInt   `json:"OrderPaymentAmount"`

	// Read when present; never needed (the seat plan is matched by labels).
	AreaCategoryCode string   `json:"AreaCategoryCode"`
	AreaNumber       *flexInt `json:"AreaNumber"`
	RowIndex         *flexInt `json:"RowIndex"`
	ColumnIndex      *flexInt `json:"ColumnIndex"`
}

type wireBookingConcession struct {
	ItemId       flexString `json:"ItemId"`
	Description  string     `json:"Description"`
	PriceInCents flexInt    `json:"PriceInCents"`
	Quantity     flexInt    `json:"Quantity"`
}

// wireBookingPayment is a payment of the booking. Real deployments name the
// same facts in more than one way; each group is read in order of preference.
type wireBookingPayment struct {
	PaymentId flexString `json:"PaymentId"`

	OrderPaymentAmount *flexInt `json:"OrderPaymentAmount"`
	AmountInCents      *flexInt `json:"AmountInCents"`
	PaymentValueCents  *flexInt `json:"PaymentValueCents"`

	PaymentProviderReference flexString `json:"PaymentProviderReference"`
	BankReference            flexString `json:"BankReference"`

	CardNumberMasked flexString `json:"CardNumberMasked"`
	MaskedCardNumber flexString `json:"MaskedCardNumber"`
	CardNumber       flexString `json:"CardNumber"`

	PaymentTenderCategory string `json:"PaymentTenderCategory"`
	CardType              string `json:"CardType"`
	IsExternal            *bool  `json:"IsExternal"` // our old sandbox's; the real API has none
}

func (p wireBookingPayment) amount() int64 {
	for _, v := range []*flexInt{p.OrderPaymentAmount, p.AmountInCents, p.PaymentValueCents} {
		if v != nil {
			return int64(*v)
		}
	}
	return 0
}

func (p wireBookingPayment) reference() string {
	for _, v := range []flexString{p.PaymentProviderReference, p.BankReference, p.PaymentId} {
		if v != "" {
			return string(v)
		}
	}
	return ""
}

func (p wireBookingPayment) masked() string {
	for _, v := range []flexString{p.CardNumberMasked, p.MaskedCardNumber, p.CardNumber} {
		if v != "" {
			return string(v)
		}
	}
	return ""
}
