package upstream

// Wire shapes of the camelCase edit and swap operations: contract 2.1, 2.2,
// 2.4, 4.1, 4.4, 4.9 and the wire profile's answers.

// wireEditOrderResponse is the answer of Edit Booking (contract 2.1).
type wireEditOrderResponse struct {
	camelCodes
	Order          *wireEditOrder          `json:"order"`
	SuggestedDeals []wireEditSuggestedDeal `json:"suggestedDeals"`
}

type wireEditOrder struct {
	CinemaId                    string            `json:"cinemaId"`
	UserSessionId               string            `json:"userSessionId"`
	OrderTotalValueInCents      int64             `json:"orderTotalValueInCents"`
	TaxValueInCents             int64             `json:"taxValueInCents"`
	BookingFeeTotalValueInCents int64             `json:"bookingFeeTotalValueInCents"`
	BookingFeeTaxValueInCents   int64             `json:"bookingFeeTaxValueInCents"`
	Sessions                    []wireEditSession `json:"sessions"`
	BookingFees                 []wireBookingFee  `json:"bookingFees"`
	ExpiryDateUtc               isoTime           `json:"expiryDateUtc"`
}

type wireEditSession struct {
	Id               flexString       `json:"id"` // integer in the contract
	FilmTitle        string           `json:"filmTitle"`
	AllocatedSeating bool             `json:"allocatedSeating"`
	Tickets          []wireEditTicket `json:"tickets"`
}

type wireEditTicket struct {
	TicketDetails wireTicketDetails `json:"ticketDetails"`
	Seats         []wireEditSeat    `json:"seats"`
}

type wireTicketDetails struct {
	TicketId                   int64       `json:"ticketId"`
	TicketTypeCode             string      `json:"ticketTypeCode"`
	Description                string      `json:"description"`
	FinalPriceInCents          int64       `json:"finalPriceInCents"`
	OriginalPriceInCents       int64       `json:"originalPriceInCents"`
	TaxInCents                 int64       `json:"taxInCents"`
	VoucherBarcode             string      `json:"voucherBarcode"`
	LoyaltyRecognitionId       *flexString `json:"loyaltyRecognitionId"`
	LoyaltyRecognitionSequence *flexString `json:"loyaltyRecognitionSequence"`
	DealDefinitionId           *flexString `json:"dealDefinitionId"`
	DealDescription            *flexString `json:"dealDescription"`
	DealSequence               *flexString `json:"dealSequence"`
	IsTicketPackage            bool        `json:"isTicketPackage"`
	ChildTickets               []rawJSON   `json:"childTickets"`
	ChildConcessions           []rawJSON   `json:"childConcessions"`
	BookingStatus              int         `json:"bookingStatus"`
}

type wireEditSeat struct {
	AreaCategoryCode string `json:"areaCategoryCode"`
	AreaNumber       int    `json:"areaNumber"`
	RowIndex         int    `json:"rowIndex"`
	ColumnIndex      int    `json:"columnIndex"`
	RowDisplay       string `json:"rowDisplay"`
	ColumnDisplay    string `json:"columnDisplay"`
}

type wireBookingFee struct {
	FinalPriceInCents int64 `json:"finalPriceInCents"`
	TaxInCents        int64 `json:"taxInCents"`
	BookingStatus     int   `json:"bookingStatus"`
}

// wireEditSuggestedDeal is contract 2.2, camelCase column.
type wireEditSuggestedDeal struct {
	Id                             string   `json:"id"`
	Description                    string   `json:"description"`
	IsSeasonPass                   bool     `json:"isSeasonPass"`
	IsTicketUpgrade                bool     `json:"isTicketUpgrade"`
	LimitPerOrder                  *flexInt `json:"limitPerOrder"`
	RequiresLoyalty                bool     `json:"requiresLoyalty"`
	RequiresVoucher                bool     `json:"requiresVoucher"`
	ExcludesExistingDeals          bool     `json:"excludesExistingDeals"`
	ExcludesExistingDealsAvailable int      `json:"excludesExistingDealsAvailable"`
}

// wireCompleteEditRequest is contract 4.4: {} for an unpaid booking,
// {"payments":{"externalPayments":[…]}} for a positive balance,
// {"refundPayments":{"externalPayments":[…]}} for a negative one.
type wireCompleteEditRequest struct {
	Payments       *wireExternalPayments `json:"payments,omitempty"`
	RefundPayments *wireExternalPayments `json:"refundPayments,omitempty"`
}

type wireExternalPayments struct {
	ExternalPayments []wireExternalPayment `json:"externalPayments"`
}

// wireExternalPayment is contract 2.4.
type wireExternalPayment struct {
	AmountInCents            int64  `json:"amountInCents"`
	PaymentProviderReference string `json:"paymentProviderReference"`
	PaymentTenderCategory    string `json:"paymentTenderCategory"`
	CardNumberMasked         string `json:"cardNumberMasked"`
	CardType                 string `json:"cardType"`
}

type wireCompleteEditResponse struct {
	camelCodes
	BookingNumber int64  `json:"bookingNumber"`
	BookingId     string `json:"bookingId"`
}

// wireSwapSeatsRequest is contract 4.9.
type wireSwapSeatsRequest struct {
	Swaps []wireSwap `json:"swaps"`
}

type wireSwap struct {
	TicketSequenceNumber int         `json:"ticketSequenceNumber"`
	NewSeat              wireNewSeat `json:"newSeat"`
}

type wireNewSeat struct {
	AreaNumber  int `json:"areaNumber"`
	RowIndex    int `json:"rowIndex"`
	ColumnIndex int `json:"columnIndex"`
}

type wireSwapSeatsResponse struct {
	camelCodes
}
