package upstream

// Wire shapes of GetSingleBooking (RESTBooking.svc): contract 2.6 and the
// wire profile's booking record.

type wireSingleBookingRequest struct {
	CinemaId      string `json:"CinemaId"`
	BookingNumber string `json:"BookingNumber"` // the number, sent as a string
}

type wireSingleBookingResponse struct {
	bookingCodes
	Booking *wireBooking `json:"Booking"`
}

type wireBooking struct {
	BookingNumber        int64                   `json:"BookingNumber"`
	BookingId            string                  `json:"BookingId"`
	CinemaId             string                  `json:"CinemaId"`
	CoreTransactionId    int64                   `json:"CoreTransactionId"`
	TotalValueCents      int64                   `json:"TotalValueCents"`
	BookingFeeValueCents int64                   `json:"BookingFeeValueCents"`
	IsPaid               bool                    `json:"IsPaid"`
	HasInSeatDelivery    bool                    `json:"HasInSeatDelivery"`
	CustomerName         string                  `json:"CustomerName"`
	CustomerEmail        string                  `json:"CustomerEmail"`
	SessionId            flexString              `json:"SessionId"`
	FilmTitle            string                  `json:"FilmTitle"`
	Showtime             isoTime                 `json:"Showtime"`
	ScreenName           string                  `json:"ScreenName"`
	Tickets              []wireBookingTicket     `json:"Tickets"`
	Concessions          []wireBookingConcession `json:"Concessions"`
	Payments             []wireBookingPayment    `json:"Payments"`
	IsBeingEdited        bool                    `json:"IsBeingEdited"`
}

type wireBookingTicket struct {
	TicketTypeCode       string     `json:"TicketTypeCode"`
	TicketSequenceNumber int        `json:"TicketSequenceNumber"`
	SessionId            flexString `json:"SessionId"`
	PriceInCents         int64      `json:"PriceInCents"`
	Description          string     `json:"Description"`
	PackageGroupNumber   int        `json:"PackageGroupNumber"`
	SeatRowId            string     `json:"SeatRowId"`
	SeatNumber           string     `json:"SeatNumber"`
	AreaCategoryCode     string     `json:"AreaCategoryCode"`
	AreaNumber           *int       `json:"AreaNumber"`
	RowIndex             *int       `json:"RowIndex"`
	ColumnIndex          *int       `json:"ColumnIndex"`
}

type wireBookingConcession struct {
	ItemId       string `json:"ItemId"`
	Description  string `json:"Description"`
	PriceInCents int64  `json:"PriceInCents"`
	Quantity     int    `json:"Quantity"`
}

type wireBookingPayment struct {
	AmountInCents            int64  `json:"AmountInCents"`
	PaymentProviderReference string `json:"PaymentProviderReference"`
	PaymentTenderCategory    string `json:"PaymentTenderCategory"`
	CardNumberMasked         string `json:"CardNumberMasked"`
	CardType                 string `json:"CardType"`
	IsExternal               bool   `json:"IsExternal"`
}
