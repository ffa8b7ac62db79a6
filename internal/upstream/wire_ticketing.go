package upstream

import (
	"bytes"
	"encoding/json"
)

// Wire shapes of the PascalCase ticketing operations (RESTTicketing.svc),
// contract 2.3, 2.5, 4.3, 4.5, 4.6 and the wire profile's regular order
// operations. Field names and casing mirror the contract exactly.

// wireOrderEnvelope is the answer of every ticket operation.
type wireOrderEnvelope struct {
	ticketingCodes
	Order *wireOrder `json:"Order"`
	// ResetOrderExpiry only.
	OrderLastUpdated legacyDate `json:"OrderLastUpdated"`
	// ApplyGiftCard / ApplyLoyaltyPointsPayment only.
	AmountAppliedInCents    *int64 `json:"AmountAppliedInCents,omitempty"`
	BalanceRemainingInCents *int64 `json:"BalanceRemainingInCents,omitempty"`
	AmountToPayInCents      *int64 `json:"AmountToPayInCents,omitempty"`
}

type wireOrder struct {
	UserSessionId           string             `json:"UserSessionId"`
	CinemaId                string             `json:"CinemaId"`
	TotalValueCents         int64              `json:"TotalValueCents"`
	TaxValueCents           int64              `json:"TaxValueCents"`
	BookingFeeValueCents    int64              `json:"BookingFeeValueCents"`
	BookingFeeTaxValueCents int64              `json:"BookingFeeTaxValueCents"`
	TotalOrderCount         int                `json:"TotalOrderCount"`
	Sessions                []wireOrderSession `json:"Sessions"`
	orderBrand
	LastUpdated    legacyDate          `json:"LastUpdated"`
	LastUpdatedUtc isoTime             `json:"LastUpdatedUtc"`
	ExpiryDate     legacyDate          `json:"ExpiryDate"`
	ExpiryDateUtc  isoTime             `json:"ExpiryDateUtc"`
	SuggestedDeals []wireSuggestedDeal `json:"SuggestedDeals"`
	// Extensions of the wire profile (tolerated when absent).
	AppliedPayments    []wireAppliedPayment `json:"AppliedPayments,omitempty"`
	AmountToPayInCents *int64               `json:"AmountToPayInCents,omitempty"`
}

type wireOrderSession struct {
	CinemaId         string            `json:"CinemaId"`
	SessionId        flexString        `json:"SessionId"` // integer in the contract; tolerated as a string
	AllocatedSeating bool              `json:"AllocatedSeating"`
	SeatsAllocated   bool              `json:"SeatsAllocated"`
	Tickets          []wireOrderTicket `json:"Tickets"`
	FilmTitle        string            `json:"FilmTitle"`
}

type wireOrderTicket struct {
	Id               string      `json:"Id"`
	TicketTypeCode   string      `json:"TicketTypeCode"`
	PriceCents       int64       `json:"PriceCents"`
	SeatData         string      `json:"SeatData"`
	Description      string      `json:"Description"`
	SeatNumber       string      `json:"SeatNumber"`
	SeatRowId        string      `json:"SeatRowId"`
	SeatAreaCatCode  string      `json:"SeatAreaCatCode"`
	SeatAreaNumber   string      `json:"SeatAreaNumber"`
	SeatRowIndex     int         `json:"SeatRowIndex"`
	SeatColumnIndex  int         `json:"SeatColumnIndex"`
	DealPriceCents   int64       `json:"DealPriceCents"`
	DealDefinitionId *flexString `json:"DealDefinitionId"`
	DealDescription  *flexString `json:"DealDescription"`
	FinalPriceCents  int64       `json:"FinalPriceCents"`
	TaxCents         int64       `json:"TaxCents"`
	// BookingStatus is not in the contract's PascalCase ticket: some upstreams (the sandbox)
	// send it in edit state. Absent means "not said"; the flow then derives the state.
	BookingStatus *int `json:"BookingStatus,omitempty"`
	// PackageGroupNumber is likewise optional: tickets of one package share it.
	PackageGroupNumber int `json:"PackageGroupNumber,omitempty"`
}

// wireSuggestedDeal is contract 2.2, PascalCase column.
type wireSuggestedDeal struct {
	Id                             string   `json:"Id"`
	Description                    string   `json:"Description"`
	IsSeasonPass                   bool     `json:"IsSeasonPass"`
	IsTicketUpgrade                bool     `json:"IsTicketUpgrade"`
	LimitPerOrder                  *flexInt `json:"LimitPerOrder"`
	RequiresLoyalty                bool     `json:"RequiresLoyalty"`
	RequiresVoucher                bool     `json:"RequiresVoucher"`
	ExcludesExistingDeals          bool     `json:"ExcludesExistingDeals"`
	ExcludesExistingDealsAvailable int      `json:"ExcludesExistingDealsAvailable"`
}

type wireAppliedPayment struct {
	Kind             string `json:"Kind"`
	AmountInCents    int64  `json:"AmountInCents"`
	MaskedCardNumber string `json:"MaskedCardNumber"`
}

// Requests.

type wireUserSessionRequest struct {
	UserSessionId string `json:"UserSessionId"`
}

type wireAddTicketsRequest struct {
	UserSessionId      string                  `json:"UserSessionId"`
	CinemaId           string                  `json:"CinemaId"`
	SessionId          string                  `json:"SessionId"`
	TicketTypes        []wireTicketTypeReq     `json:"TicketTypes"`
	BookingMode        int                     `json:"BookingMode"`
	ReturnOrder        bool                    `json:"ReturnOrder"`
	SelectedSeats      []wireSelectedSeat      `json:"SelectedSeats,omitempty"` // never in edit state
	BookingFeeOverride *wireBookingFeeOverride `json:"BookingFeeOverride,omitempty"`
}

type wireTicketTypeReq struct {
	TicketTypeCode string `json:"TicketTypeCode"`
	Qty            int    `json:"Qty,omitempty"`
	PriceInCents   *int64 `json:"PriceInCents,omitempty"`
}

type wireBookingFeeOverride struct {
	FeeInCents int64 `json:"FeeInCents"`
}

type wireSelectedSeat struct {
	AreaCategoryCode string `json:"AreaCategoryCode"`
	AreaNumber       int    `json:"AreaNumber"`
	RowIndex         int    `json:"RowIndex"`
	ColumnIndex      int    `json:"ColumnIndex"`
}

type wireRemoveTicketsRequest struct {
	UserSessionId  string              `json:"UserSessionId"`
	TicketRemovals []wireTicketRemoval `json:"TicketRemovals"`
	ReturnOrder    bool                `json:"ReturnOrder"`
}

type wireTicketRemoval struct {
	SessionId        string   `json:"SessionId"`
	Tickets          []string `json:"Tickets"`
	PackageTicketIds []string `json:"PackageTicketIds"`
}

type wireSetSelectedSeatsRequest struct {
	UserSessionId string             `json:"UserSessionId"`
	CinemaId      string             `json:"CinemaId"`
	SessionId     string             `json:"SessionId"`
	SelectedSeats []wireSelectedSeat `json:"SelectedSeats"`
	ReturnOrder   bool               `json:"ReturnOrder"`
}

type wireCompleteOrderRequest struct {
	UserSessionId       string           `json:"UserSessionId"`
	CustomerName        string           `json:"CustomerName"`
	CustomerEmail       string           `json:"CustomerEmail"`
	BookingMode         int              `json:"BookingMode"`
	PerformPayment      bool             `json:"PerformPayment"`
	GeneratePrintStream bool             `json:"GeneratePrintStream"`
	ReturnPrintStream   bool             `json:"ReturnPrintStream"`
	PaymentInfo         *wirePaymentInfo `json:"PaymentInfo,omitempty"`
}

type wirePaymentInfo struct {
	PaymentValueCents     int64  `json:"PaymentValueCents"`
	PaymentTenderCategory string `json:"PaymentTenderCategory"`
	CardNumber            string `json:"CardNumber,omitempty"`
	CardType              string `json:"CardType,omitempty"`
}

type wireGiftCardRequest struct {
	UserSessionId string `json:"UserSessionId"`
	CardNumber    string `json:"CardNumber"`
	Pin           string `json:"Pin"`
	AmountInCents *int64 `json:"AmountInCents,omitempty"`
}

// wireLoyaltyRequest is ours (the contract does not show this payload): the member's card and
// PIN, so that only the member spends the points. A deployment whose field names differ
// changes them here (docs/going-live.md, "Gift card and loyalty payloads").
type wireLoyaltyRequest struct {
	UserSessionId     string `json:"UserSessionId"`
	LoyaltyCardNumber string `json:"LoyaltyCardNumber"`
	Pin               string `json:"Pin"`
	AmountInCents     *int64 `json:"AmountInCents,omitempty"`
}

// wireStartExternalPaymentRequest is contract 4.5.
type wireStartExternalPaymentRequest struct {
	UserSessionId       string                  `json:"UserSessionId"`
	AutoCompleteOrder   bool                    `json:"AutoCompleteOrder"`
	ExternalPaymentInfo wireExternalPaymentInfo `json:"ExternalPaymentInfo"`
	OrderCompletionInfo wireOrderCompletionInfo `json:"OrderCompletionInfo"`
}

type wireExternalPaymentInfo struct {
	ReturnUrl      string `json:"ReturnUrl"`
	PaymentMethod  string `json:"PaymentMethod"`
	IsInAppPayment bool   `json:"IsInAppPayment"`
}

type wireOrderCompletionInfo struct {
	CustomerInfo  wireCustomerInfo  `json:"CustomerInfo"`
	PrintSettings wirePrintSettings `json:"PrintSettings"`
}

type wireCustomerInfo struct {
	Name  string `json:"Name"`
	Email string `json:"Email"`
}

type wirePrintSettings struct {
	PrintStreamType     string `json:"PrintStreamType"`
	GeneratePrintStream bool   `json:"GeneratePrintStream"`
}

type wireStartExternalPaymentResponse struct {
	ticketingCodes
	PaymentRedirectUrl string `json:"PaymentRedirectUrl"`
}

// wireOrderDetails is contract 2.5 (GetOrderDetails, CompleteOrder).
type wireOrderDetails struct {
	ticketingCodes
	OrderIdentifiers    *wireOrderIdentifiers    `json:"OrderIdentifiers"`
	OrderWebPaymentData *wireOrderWebPaymentData `json:"OrderWebPaymentData"`
	AdditionalPayments  []wireAdditionalPayment  `json:"AdditionalPayments"`
	MemberBalances      []rawJSON                `json:"MemberBalances"`
	Attachments         []rawJSON                `json:"Attachments"`
	PrintStreams        []wirePrintStream        `json:"PrintStreams"`
}

type wireOrderIdentifiers struct {
	CinemaId      string     `json:"CinemaId"`
	UserSessionId string     `json:"UserSessionId"`
	ClientId      flexString `json:"ClientId"`
	HistoryId     flexInt    `json:"HistoryId"`
	completionBrand
	IsCompletedOrder bool `json:"IsCompletedOrder"`
}

// wireCompleteOrderReply is the real CompleteOrder answer: flat, not order
// details (upstream-notes, "Shapes that differ").
type wireCompleteOrderReply struct {
	ticketingCodes
	completionBrand
	PrintStream           string            `json:"PrintStream"`
	PrintStreamCollection []wirePrintStream `json:"PrintStreamCollection"`
}

type wireOrderWebPaymentData struct {
	UserId            string `json:"UserId"`
	CustomerName      string `json:"CustomerName"`
	CardNumber        string `json:"CardNumber"`
	CardType          string `json:"CardType"`
	CardExpiryMonth   string `json:"CardExpiryMonth"`
	CardExpiryYear    string `json:"CardExpiryYear"`
	HasCheckedSendSMS bool   `json:"HasCheckedSendSMS"`
	LoyaltyCardNumber string `json:"LoyaltyCardNumber"`
	AttemptNumber     int    `json:"AttemptNumber"`
	Token             string `json:"Token"`
	BankService       string `json:"BankService"`
	webPaymentBrand
	AmountInCents int64  `json:"AmountInCents"`
	PaymentStatus string `json:"PaymentStatus"`
}

type wireAdditionalPayment struct {
	AmountInCents       int64  `json:"AmountInCents"`
	BilledAmountInCents int64  `json:"BilledAmountInCents"`
	MaskedCardNumber    string `json:"MaskedCardNumber"`
	CardType            string `json:"CardType"`
	PaymentStatus       string `json:"PaymentStatus"`
}

type wirePrintStream struct {
	PrintStream  string  `json:"PrintStream"`
	PrintDocType flexInt `json:"PrintDocType"`
}

// UnmarshalJSON reads a print stream item, or a bare string as in the
// CompleteOrder reply's PrintStreamCollection.
func (p *wirePrintStream) UnmarshalJSON(b []byte) error {
	if s := bytes.TrimSpace(b); len(s) > 0 && s[0] == '"' {
		return jsonUnmarshalString(s, &p.PrintStream)
	}
	type plain wirePrintStream
	return json.Unmarshal(b, (*plain)(p))
}
