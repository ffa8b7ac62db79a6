package upstream

// Wire shapes of the data calls: OData.svc listings and RESTData.svc seat
// plan and ticket types (wire profile "Data calls").

type wireCinemaList struct {
	ticketingCodes
	Value []wireCinema `json:"value"`
}

type wireCinema struct {
	ID           string `json:"ID"`
	Name         string `json:"Name"`
	CurrencyCode string `json:"CurrencyCode"`
	Locale       string `json:"Locale"`
	TimeZone     string `json:"TimeZone"`
}

type wireFilmList struct {
	ticketingCodes
	Value []wireFilm `json:"value"`
}

type wireFilm struct {
	ID       string `json:"ID"`
	Title    string `json:"Title"`
	Rating   string `json:"Rating"`
	RunTime  int    `json:"RunTime"` // minutes
	Synopsis string `json:"Synopsis"`
}

type wireSessionList struct {
	ticketingCodes
	Value []wireSession `json:"value"`
}

type wireSession struct {
	ID                 string     `json:"ID"`
	CinemaId           string     `json:"CinemaId"`
	SessionId          flexString `json:"SessionId"`
	ScheduledFilmId    string     `json:"ScheduledFilmId"`
	FilmTitle          string     `json:"FilmTitle"`
	Showtime           isoTime    `json:"Showtime"`
	ScreenName         string     `json:"ScreenName"`
	ScreenNumber       int        `json:"ScreenNumber"`
	IsAllocatedSeating bool       `json:"IsAllocatedSeating"`
	SeatsAvailable     int        `json:"SeatsAvailable"`
	AreaCategoryCodes  []string   `json:"AreaCategoryCodes"`
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
	Description             string `json:"Description"`
	IsInSeatDeliveryEnabled bool   `json:"IsInSeatDeliveryEnabled"`
}

type wireArea struct {
	Number                int       `json:"Number"`
	AreaCategoryCode      string    `json:"AreaCategoryCode"`
	Description           string    `json:"Description"`
	NumberOfSeats         int       `json:"NumberOfSeats"`
	IsAllocatedSeating    bool      `json:"IsAllocatedSeating"`
	HasSofaSeatingEnabled bool      `json:"HasSofaSeatingEnabled"`
	RowCount              int       `json:"RowCount"`
	ColumnCount           int       `json:"ColumnCount"`
	Top                   float64   `json:"Top"`
	Left                  float64   `json:"Left"`
	Height                float64   `json:"Height"`
	Width                 float64   `json:"Width"`
	Rows                  []wireRow `json:"Rows"`
}

type wireRow struct {
	PhysicalName string     `json:"PhysicalName"`
	Seats        []wireSeat `json:"Seats"`
}

type wireSeat struct {
	Position       wirePosition   `json:"Position"`
	Id             string         `json:"Id"`
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
	TicketTypeCode           string `json:"TicketTypeCode"`
	AreaCategoryCode         string `json:"AreaCategoryCode"`
	Description              string `json:"Description"`
	LongDescription          string `json:"LongDescription"`
	PriceInCents             int64  `json:"PriceInCents"`
	TaxInCents               int64  `json:"TaxInCents"`
	IsPackageTicket          bool   `json:"IsPackageTicket"`
	PackageSize              int    `json:"PackageSize"`
	IsLoyaltyRecognition     bool   `json:"IsLoyaltyRecognition"`
	IsVoucherTicket          bool   `json:"IsVoucherTicket"`
	IsThirdPartyMemberTicket bool   `json:"IsThirdPartyMemberTicket"`
	IsChildTicket            bool   `json:"IsChildTicket"`
}
