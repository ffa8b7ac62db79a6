package sandbox

import (
	"strconv"
	"time"
)

// orderJSON is the ticketing order (contract 2.3, brand fields named Vista…
// as on the real wire) plus the wire-profile extensions AppliedPayments and
// AmountToPayInCents.
type orderJSON struct {
	UserSessionID           string             `json:"UserSessionId"`
	CinemaID                string             `json:"CinemaId"`
	TotalValueCents         int64              `json:"TotalValueCents"`
	TaxValueCents           int64              `json:"TaxValueCents"`
	BookingFeeValueCents    int64              `json:"BookingFeeValueCents"`
	BookingFeeTaxValueCents int64              `json:"BookingFeeTaxValueCents"`
	TotalOrderCount         int                `json:"TotalOrderCount"`
	Sessions                []orderSessionJSON `json:"Sessions"`
	VistaTransactionNumber  int64              `json:"VistaTransactionNumber"`
	VistaBookingNumber      int64              `json:"VistaBookingNumber"`
	LastUpdated             legacyDate         `json:"LastUpdated"`
	LastUpdatedUtc          string             `json:"LastUpdatedUtc"`
	ExpiryDate              legacyDate         `json:"ExpiryDate"`
	ExpiryDateUtc           string             `json:"ExpiryDateUtc"`
	SuggestedDeals          []dealPascalJSON   `json:"SuggestedDeals"`
	AppliedPayments         []appliedJSON      `json:"AppliedPayments"`
	AmountToPayInCents      int64              `json:"AmountToPayInCents"`
}

type orderSessionJSON struct {
	CinemaID         string            `json:"CinemaId"`
	SessionID        int               `json:"SessionId"`
	AllocatedSeating bool              `json:"AllocatedSeating"`
	SeatsAllocated   bool              `json:"SeatsAllocated"`
	Tickets          []orderTicketJSON `json:"Tickets"`
	FilmTitle        string            `json:"FilmTitle"`
}

type orderTicketJSON struct {
	ID                 string  `json:"Id"`
	TicketTypeCode     string  `json:"TicketTypeCode"`
	PriceCents         int64   `json:"PriceCents"`
	SeatData           string  `json:"SeatData"`
	Description        string  `json:"Description"`
	SeatNumber         string  `json:"SeatNumber"`
	SeatRowID          string  `json:"SeatRowId"`
	SeatAreaCatCode    string  `json:"SeatAreaCatCode"`
	SeatAreaNumber     string  `json:"SeatAreaNumber"`
	SeatRowIndex       int     `json:"SeatRowIndex"`
	SeatColumnIndex    int     `json:"SeatColumnIndex"`
	DealPriceCents     int64   `json:"DealPriceCents"`
	DealDefinitionID   *string `json:"DealDefinitionId"`
	DealDescription    *string `json:"DealDescription"`
	FinalPriceCents    int64   `json:"FinalPriceCents"`
	TaxCents           int64   `json:"TaxCents"`
	PackageGroupNumber int     `json:"PackageGroupNumber"`
	BookingStatus      *int    `json:"BookingStatus,omitempty"` // extension, edit orders only
}

type dealPascalJSON struct {
	ID                             string `json:"Id"`
	Description                    string `json:"Description"`
	IsSeasonPass                   bool   `json:"IsSeasonPass"`
	IsTicketUpgrade                bool   `json:"IsTicketUpgrade"`
	LimitPerOrder                  *int   `json:"LimitPerOrder"`
	RequiresLoyalty                bool   `json:"RequiresLoyalty"`
	RequiresVoucher                bool   `json:"RequiresVoucher"`
	ExcludesExistingDeals          bool   `json:"ExcludesExistingDeals"`
	ExcludesExistingDealsAvailable int    `json:"ExcludesExistingDealsAvailable"`
}

type dealCamelJSON struct {
	ID                             string `json:"id"`
	Description                    string `json:"description"`
	IsSeasonPass                   bool   `json:"isSeasonPass"`
	IsTicketUpgrade                bool   `json:"isTicketUpgrade"`
	LimitPerOrder                  *int   `json:"limitPerOrder"`
	RequiresLoyalty                bool   `json:"requiresLoyalty"`
	RequiresVoucher                bool   `json:"requiresVoucher"`
	ExcludesExistingDeals          bool   `json:"excludesExistingDeals"`
	ExcludesExistingDealsAvailable int    `json:"excludesExistingDealsAvailable"`
}

type appliedJSON struct {
	Kind             string `json:"Kind"`
	AmountInCents    int64  `json:"AmountInCents"`
	MaskedCardNumber string `json:"MaskedCardNumber"`
}

func pascalDeals(ds []Deal) []dealPascalJSON {
	out := make([]dealPascalJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, dealPascalJSON(camelDeal(d)))
	}
	return out
}

func camelDeal(d Deal) dealCamelJSON {
	return dealCamelJSON(d)
}

// orderJSON renders an order. s.mu must be held; the result shares nothing
// mutable with the state, so it can be encoded after the lock is released.
func (s *Server) orderJSON(o *order, now time.Time) orderJSON {
	v := o.values(now)
	loc := o.cinema.loc
	j := orderJSON{
		UserSessionID: o.id, CinemaID: o.cinema.ID,
		TotalValueCents: v.total, TaxValueCents: v.tax, BookingFeeValueCents: v.fees, BookingFeeTaxValueCents: v.feeTax,
		TotalOrderCount: v.count, Sessions: []orderSessionJSON{},
		LastUpdated: legacyDate{o.updated.In(loc)}, LastUpdatedUtc: isoUTC(o.updated),
		ExpiryDate: legacyDate{o.expiry.In(loc)}, ExpiryDateUtc: isoUTC(o.expiry),
		SuggestedDeals: pascalDeals(o.cinema.SuggestedDeals), AppliedPayments: []appliedJSON{},
		AmountToPayInCents: v.toPay(),
	}
	if o.done != nil {
		j.VistaBookingNumber, j.VistaTransactionNumber = o.done.number, o.done.transID
	}
	if o.edit != nil {
		j.VistaBookingNumber = o.edit.number
	}
	for _, a := range o.applied {
		j.AppliedPayments = append(j.AppliedPayments, appliedJSON{a.kind, a.amount, maskCard(a.card)})
	}
	index := map[*session]int{}
	for _, t := range o.tickets {
		if t.status == statusRemoved && o.edit == nil {
			continue
		}
		i, ok := index[t.sess]
		if !ok {
			i = len(j.Sessions)
			index[t.sess] = i
			j.Sessions = append(j.Sessions, orderSessionJSON{CinemaID: o.cinema.ID, SessionID: t.sess.id, AllocatedSeating: true,
				SeatsAllocated: true, FilmTitle: t.sess.film.Title, Tickets: []orderTicketJSON{}})
		}
		tj := orderTicketJSON{ID: strconv.Itoa(t.id), TicketTypeCode: t.tt.Code, PriceCents: t.price, Description: t.tt.Description,
			FinalPriceCents: t.price, TaxCents: t.tax, PackageGroupNumber: t.pkg}
		if t.seat >= 0 {
			d := &t.sess.screen.seats[t.seat]
			tj.SeatData, tj.SeatNumber, tj.SeatRowID = d.rowName+d.label, d.label, d.rowName
			tj.SeatAreaCatCode, tj.SeatAreaNumber = d.area.category.Code, strconv.Itoa(d.pos.area)
			tj.SeatRowIndex, tj.SeatColumnIndex = d.pos.row, d.pos.col
		} else {
			j.Sessions[i].SeatsAllocated = false
		}
		if o.edit != nil {
			st := t.status
			tj.BookingStatus = &st
		}
		j.Sessions[i].Tickets = append(j.Sessions[i].Tickets, tj)
	}
	return j
}

// Edit order (contract 2.1, camelCase).
type editOrderJSON struct {
	CinemaID                    string            `json:"cinemaId"`
	UserSessionID               string            `json:"userSessionId"`
	OrderTotalValueInCents      int64             `json:"orderTotalValueInCents"`
	TaxValueInCents             int64             `json:"taxValueInCents"`
	BookingFeeTotalValueInCents int64             `json:"bookingFeeTotalValueInCents"`
	BookingFeeTaxValueInCents   int64             `json:"bookingFeeTaxValueInCents"`
	Sessions                    []editSessionJSON `json:"sessions"`
	BookingFees                 []editFeeJSON     `json:"bookingFees"`
	ExpiryDateUtc               string            `json:"expiryDateUtc"`
}

type editSessionJSON struct {
	ID               int               `json:"id"`
	FilmTitle        string            `json:"filmTitle"`
	AllocatedSeating bool              `json:"allocatedSeating"`
	Tickets          []editTicketEntry `json:"tickets"`
}

type editTicketEntry struct {
	TicketDetails editTicketDetails `json:"ticketDetails"`
	Seats         []editSeatJSON    `json:"seats"`
}

type editTicketDetails struct {
	TicketID                   int     `json:"ticketId"`
	TicketTypeCode             string  `json:"ticketTypeCode"`
	Description                string  `json:"description"`
	FinalPriceInCents          int64   `json:"finalPriceInCents"`
	OriginalPriceInCents       int64   `json:"originalPriceInCents"`
	TaxInCents                 int64   `json:"taxInCents"`
	VoucherBarcode             string  `json:"voucherBarcode"`
	LoyaltyRecognitionID       *string `json:"loyaltyRecognitionId"`
	LoyaltyRecognitionSequence *int    `json:"loyaltyRecognitionSequence"`
	DealDefinitionID           *string `json:"dealDefinitionId"`
	DealDescription            *string `json:"dealDescription"`
	DealSequence               *int    `json:"dealSequence"`
	IsTicketPackage            bool    `json:"isTicketPackage"`
	ChildTickets               []any   `json:"childTickets"`
	ChildConcessions           []any   `json:"childConcessions"`
	BookingStatus              int     `json:"bookingStatus"`
}

type editSeatJSON struct {
	AreaCategoryCode string `json:"areaCategoryCode"`
	AreaNumber       int    `json:"areaNumber"`
	RowIndex         int    `json:"rowIndex"`
	ColumnIndex      int    `json:"columnIndex"`
	RowDisplay       string `json:"rowDisplay"`
	ColumnDisplay    string `json:"columnDisplay"`
}

type editFeeJSON struct {
	FinalPriceInCents int64 `json:"finalPriceInCents"`
	TaxInCents        int64 `json:"taxInCents"`
	BookingStatus     int   `json:"bookingStatus"`
}

// editOrderJSON renders an edit order in the camelCase form. s.mu must be held.
func (s *Server) editOrderJSON(o *order, now time.Time) editOrderJSON {
	v := o.values(now)
	j := editOrderJSON{CinemaID: o.cinema.ID, UserSessionID: o.id, OrderTotalValueInCents: v.total, TaxValueInCents: v.tax,
		BookingFeeTotalValueInCents: v.fees, BookingFeeTaxValueInCents: v.feeTax, Sessions: []editSessionJSON{},
		BookingFees: []editFeeJSON{}, ExpiryDateUtc: isoUTC(o.expiry)}
	index := map[*session]int{}
	for _, t := range o.tickets {
		listPrice, _ := t.sess.ticketPrice(t.tt)
		i, ok := index[t.sess]
		if !ok {
			i = len(j.Sessions)
			index[t.sess] = i
			j.Sessions = append(j.Sessions, editSessionJSON{ID: t.sess.id, FilmTitle: t.sess.film.Title, AllocatedSeating: true, Tickets: []editTicketEntry{}})
		}
		e := editTicketEntry{TicketDetails: editTicketDetails{TicketID: t.id, TicketTypeCode: t.tt.Code, Description: t.tt.Description,
			FinalPriceInCents: t.price, OriginalPriceInCents: listPrice / int64(t.tt.PackageSize), TaxInCents: t.tax,
			IsTicketPackage: t.tt.PackageSize > 1, ChildTickets: []any{}, ChildConcessions: []any{}, BookingStatus: t.status},
			Seats: []editSeatJSON{}}
		if t.seat >= 0 {
			d := &t.sess.screen.seats[t.seat]
			e.Seats = append(e.Seats, editSeatJSON{d.area.category.Code, d.pos.area, d.pos.row, d.pos.col, d.rowName, d.label})
		}
		j.Sessions[i].Tickets = append(j.Sessions[i].Tickets, e)
	}
	for _, it := range v.items {
		j.BookingFees = append(j.BookingFees, editFeeJSON{it.fee, it.tax, it.status})
	}
	return j
}
