package googlepass

// The event ticket object in the JSON the Google Wallet API speaks (REST resource
// walletobjects/v1 eventTicketObject), only the fields this service writes. Google's generated
// client for the whole API cost a fifth of the module's build (gRPC, protobuf, OpenTelemetry)
// for one PATCH; these few types are checked against its output by a golden file.

// Object is the event ticket object of one ticket: the save link's JWT carries it and the API
// patches it, so both speak the same JSON. Empty fields are left out, so an object with only ID
// and State patches only the state.
type Object struct {
	Kind              string            `json:"kind,omitempty"`
	ID                string            `json:"id,omitempty"`
	ClassID           string            `json:"classId,omitempty"`
	State             string            `json:"state,omitempty"`
	TicketNumber      string            `json:"ticketNumber,omitempty"`
	Barcode           *Barcode          `json:"barcode,omitempty"`
	ReservationInfo   *ReservationInfo  `json:"reservationInfo,omitempty"`
	SeatInfo          *SeatInfo         `json:"seatInfo,omitempty"`
	ValidTimeInterval *TimeInterval     `json:"validTimeInterval,omitempty"`
	TextModulesData   []*TextModuleData `json:"textModulesData,omitempty"`
}

// Barcode is what the wallet shows to be scanned.
type Barcode struct {
	Type  string `json:"type,omitempty"`
	Value string `json:"value,omitempty"`
}

// ReservationInfo holds the booking number people read.
type ReservationInfo struct {
	ConfirmationCode string `json:"confirmationCode,omitempty"`
}

// SeatInfo places the ticket in the auditorium.
type SeatInfo struct {
	Seat    *LocalizedString `json:"seat,omitempty"`
	Row     *LocalizedString `json:"row,omitempty"`
	Section *LocalizedString `json:"section,omitempty"`
}

// LocalizedString is a text in its default language, with translations.
type LocalizedString struct {
	DefaultValue     *TranslatedString   `json:"defaultValue,omitempty"`
	TranslatedValues []*TranslatedString `json:"translatedValues,omitempty"`
}

// TranslatedString is a text in one language (a BCP 47 tag).
type TranslatedString struct {
	Language string `json:"language,omitempty"`
	Value    string `json:"value,omitempty"`
}

// TimeInterval is when the ticket is valid.
type TimeInterval struct {
	Start *DateTime `json:"start,omitempty"`
	End   *DateTime `json:"end,omitempty"`
}

// DateTime is an ISO 8601 time with its offset.
type DateTime struct {
	Date string `json:"date,omitempty"`
}

// TextModuleData is a titled text on the ticket's back.
type TextModuleData struct {
	Header          string           `json:"header,omitempty"`
	Body            string           `json:"body,omitempty"`
	ID              string           `json:"id,omitempty"`
	LocalizedHeader *LocalizedString `json:"localizedHeader,omitempty"` // Header in the phone's language, where it is among them
}
