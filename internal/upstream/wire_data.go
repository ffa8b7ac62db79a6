package upstream

import (
	"bytes"
	"encoding/json"
)

// Wire shapes of the data calls: OData.svc listings and RESTData.svc seat
// plan and ticket types (docs/wire-profile.md, "Data calls").

type wireCinemaList struct {
	ticketingCodes
	Value []wireCinema `json:"value"`
}

type wireCinema struct {
	ID           flexString `json:"ID"`
	Name         string     `json:"Name"`
	TimeZoneId   string     `json:"TimeZoneId"`
	TimeZone     string     `json:"TimeZone"` // our old sandbox's name
	CurrencyCode string     `json:"CurrencyCode"`
	Locale       string     `json:"Locale"`
}

type wireFilmList struct {
	ticketingCodes
	Value []wireFilm `json:"value"`
}

type wireFilm struct {
	ID              flexString `json:"ID"`
	ScheduledFilmId flexString `json:"ScheduledFilmId"`
	CinemaId        flexString `json:"CinemaId"`
	Title           string     `json:"Title"`
	Rating          string     `json:"Rating"`
	RunTime         flexInt    `json:"RunTime"` // minutes; a string on the real wire
	Synopsis        string     `json:"Synopsis"`
}

type wireSessionList struct {
	ticketingCodes
	Value []wireSession `json:"value"`
}

type wireSession struct {
	ID                     flexString `json:"ID"`
	CinemaId               flexString `json:"CinemaId"`
	SessionId              flexString `json:"SessionId"`
	ScheduledFilmId        flexString `json:"ScheduledFilmId"`
	Showtime               localTime  `json:"Showtime"`
	SessionBusinessDate    localTime  `json:"SessionBusinessDate"`
	ScreenName             string     `json:"ScreenName"`
	ScreenNumber           flexInt    `json:"ScreenNumber"`
	SeatsAvailable         flexInt    `json:"SeatsAvailable"`
	AllowTicketSales       *bool      `json:"AllowTicketSales"`
	SessionAttributesNames []string   `json:"SessionAttributesNames"`

	// Read when present; the real service is not known to send them.
	FilmTitle          string   `json:"FilmTitle"`
	IsAllocatedSeating *bool    `json:"IsAllocatedSeating"`
	AreaCategoryCodes  []string `json:"AreaCategoryCodes"`
}

type wireSeatPlanResponse struct {
	dataCodes
	SeatLayoutData *wireSeatLayout `json:"SeatLayoutData"`
}

type wireSeatLayout struct {
	AreaCategories []wireAreaCategory `json:"AreaCategories"`
	Areas          []wireArea         `json:"Areas"`
}

type wireAreaCategory struct {
	AreaCategoryCode        string `json:"AreaCategoryCode"`
	Name                    string `json:"Name"`
	Description             string `json:"Description"`
	IsInSeatDeliveryEnabled *bool  `json:"IsInSeatDeliveryEnabled"`
}

type wireArea struct {
	Number                flexInt   `json:"Number"`
	AreaCategoryCode      string    `json:"AreaCategoryCode"`
	Description           string    `json:"Description"`
	NumberOfSeats         flexInt   `json:"NumberOfSeats"`
	IsAllocatedSeating    *bool     `json:"IsAllocatedSeating"`
	HasSofaSeatingEnabled bool      `json:"HasSofaSeatingEnabled"`
	RowCount              flexInt   `json:"RowCount"`
	ColumnCount           flexInt   `json:"ColumnCount"`
	Top                   float64   `json:"Top"`
	Left                  float64   `json:"Left"`
	Height                float64   `json:"Height"`
	Width                 float64   `json:"Width"`
	Rows                  []wireRow `json:"Rows"`
}

type wireRow struct {
	PhysicalName flexString `json:"PhysicalName"`
	Seats        []wireSeat `json:"Seats"`
}

type wireSeat struct {
	Position       wirePosition   `json:"Position"`
	Id             flexString     `json:"Id"`
	Status         int            `json:"Status"`
	OriginalStatus *int           `json:"OriginalStatus"`
	SeatStyle      int            `json:"SeatStyle"`
	Priority       int            `json:"Priority"`
	SeatsInGroup   []wirePosition `json:"SeatsInGroup"`
}

type wirePosition struct {
	AreaNumber  int `json:"AreaNumber"`
	RowIndex    int `json:"RowIndex"`
	ColumnIndex int `json:"ColumnIndex"`
}

type wireTicketTypesResponse struct {
	dataCodes
	Tickets []wireTicketType `json:"Tickets"`
}

type wireTicketType struct {
	TicketTypeCode                      string         `json:"TicketTypeCode"`
	AreaCategoryCode                    string         `json:"AreaCategoryCode"`
	Description                         string         `json:"Description"`
	LongDescription                     string         `json:"LongDescription"`
	PriceInCents                        flexInt        `json:"PriceInCents"`
	TaxInCents                          flexInt        `json:"TaxInCents"`
	IsPackageTicket                     bool           `json:"IsPackageTicket"`
	PackageContent                      packageContent `json:"PackageContent"`
	IsChildOnlyTicket                   bool           `json:"IsChildOnlyTicket"`
	IsAvailableAsLoyaltyRecognitionOnly bool           `json:"IsAvailableAsLoyaltyRecognitionOnly"`
	ProductCodeForVoucher               flexString     `json:"ProductCodeForVoucher"`
	IsThirdPartyMemberTicket            bool           `json:"IsThirdPartyMemberTicket"`

	// Our old sandbox's names, read when present.
	PackageSize          flexInt `json:"PackageSize"`
	IsLoyaltyRecognition bool    `json:"IsLoyaltyRecognition"`
	IsVoucherTicket      bool    `json:"IsVoucherTicket"`
	IsChildTicket        bool    `json:"IsChildTicket"`
}

// packageContent is a ticket type's PackageContent, whose shape public
// clients do not agree on. What we need of it is the number of tickets in the
// package: the count of its Tickets (their Quantity when given).
type packageContent struct{ seats int }

func (p *packageContent) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil // null, a string, a number, an array: size unknown
	}
	var v struct {
		Tickets []struct {
			Quantity *flexInt `json:"Quantity"`
		} `json:"Tickets"`
	}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	for _, t := range v.Tickets {
		n := 1
		if t.Quantity != nil && *t.Quantity > 0 {
			n = int(*t.Quantity)
		}
		p.seats += n
	}
	return nil
}
