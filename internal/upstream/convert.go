package upstream

import (
	"cmp"
	"strconv"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// converter turns wire shapes into cinema types. It is the one place where
// that happens.
type converter struct {
	currency      func(cinemaID string) string
	location      func(cinemaID string) *time.Location
	bookingStatus BookingStatusMapping
	paymentStatus PaymentStatusMapping
	seatStatus    SeatStatusMapping
}

func (c *Client) conv() converter {
	return converter{currency: c.currencyFor, location: c.locationFor, bookingStatus: c.cfg.bookingStatus, paymentStatus: c.cfg.paymentStatus, seatStatus: c.cfg.seatStatus}
}

func money(cents int64, cur string) cinema.Money { return cinema.Money{Cents: cents, Currency: cur} }

// firstTime prefers the ISO UTC value and falls back to the legacy one.
func firstTime(iso isoTime, legacy legacyDate) time.Time {
	if !iso.IsZero() {
		return iso.Time
	}
	if !legacy.IsZero() {
		return legacy.UTC()
	}
	return time.Time{}
}

func (cv converter) order(w *wireOrder) cinema.Order {
	if w == nil {
		return cinema.Order{}
	}
	cur := cv.currency(w.CinemaId)
	o := cinema.Order{
		UserSessionID:     w.UserSessionId,
		CinemaID:          w.CinemaId,
		Total:             money(w.TotalValueCents, cur),
		Tax:               money(w.TaxValueCents, cur),
		BookingFee:        money(w.BookingFeeValueCents, cur),
		BookingFeeTax:     money(w.BookingFeeTaxValueCents, cur),
		TotalOrderCount:   w.TotalOrderCount,
		TransactionNumber: w.transactionNumber(),
		BookingNumber:     w.bookingNumber(),
		LastUpdated:       firstTime(w.LastUpdatedUtc, w.LastUpdated),
		Expires:           firstTime(w.ExpiryDateUtc, w.ExpiryDate),
		SuggestedDeals:    dealsPascal(w.SuggestedDeals),
	}
	if len(w.Sessions) > 0 {
		o.Sessions = make([]cinema.OrderSession, 0, len(w.Sessions))
	}
	for _, s := range w.Sessions {
		os := cinema.OrderSession{
			CinemaID:         s.CinemaId,
			SessionID:        string(s.SessionId),
			FilmTitle:        s.FilmTitle,
			AllocatedSeating: s.AllocatedSeating,
			SeatsAllocated:   s.SeatsAllocated,
		}
		if len(s.Tickets) > 0 {
			os.Tickets = make([]cinema.OrderTicket, 0, len(s.Tickets))
		}
		for _, t := range s.Tickets {
			ot := cinema.OrderTicket{
				ID:              t.Id,
				SessionID:       string(s.SessionId),
				TypeCode:        t.TicketTypeCode,
				Description:     t.Description,
				Price:           money(t.PriceCents, cur),
				DealPrice:       money(t.DealPriceCents, cur),
				FinalPrice:      money(t.FinalPriceCents, cur),
				Tax:             money(t.TaxCents, cur),
				DealDescription: string(deref(t.DealDescription)),
				SeatData:        t.SeatData,
				PackageGroup:    t.PackageGroupNumber,
			}
			if t.BookingStatus != nil {
				ot.State = cv.bookingStatus.lineState(*t.BookingStatus)
				ot.StateKnown = true
			}
			if t.SeatNumber != "" || t.SeatRowId != "" {
				area, _ := strconv.Atoi(t.SeatAreaNumber)
				ot.Seat = &cinema.SeatRef{
					Position:         cinema.SeatPosition{AreaNumber: area, RowIndex: t.SeatRowIndex, ColumnIndex: t.SeatColumnIndex},
					AreaCategoryCode: t.SeatAreaCatCode,
					RowLabel:         t.SeatRowId,
					Label:            t.SeatNumber,
					Placed:           true,
				}
			}
			os.Tickets = append(os.Tickets, ot)
		}
		o.Sessions = append(o.Sessions, os)
	}
	for _, p := range w.AppliedPayments {
		o.AppliedPayments = append(o.AppliedPayments, cinema.AppliedPayment{Kind: p.Kind, Amount: money(p.AmountInCents, cur), MaskedCardNumber: p.MaskedCardNumber})
	}
	if w.AmountToPayInCents != nil {
		m := money(*w.AmountToPayInCents, cur)
		o.AmountToPay = &m
	}
	return o
}

func limit(p *flexInt) *int {
	if p == nil {
		return nil
	}
	n := int(*p)
	return &n
}

func dealsPascal(ws []wireSuggestedDeal) []cinema.Deal {
	if len(ws) == 0 {
		return nil
	}
	out := make([]cinema.Deal, 0, len(ws))
	for _, d := range ws {
		out = append(out, cinema.Deal{
			ID: d.Id, Description: d.Description, IsSeasonPass: d.IsSeasonPass, IsTicketUpgrade: d.IsTicketUpgrade,
			LimitPerOrder: limit(d.LimitPerOrder), RequiresLoyalty: d.RequiresLoyalty, RequiresVoucher: d.RequiresVoucher,
			ExcludesExistingDeals: d.ExcludesExistingDeals, ExcludesExistingDealsAvailable: d.ExcludesExistingDealsAvailable,
		})
	}
	return out
}

func dealsCamel(ws []wireEditSuggestedDeal) []cinema.Deal {
	if len(ws) == 0 {
		return nil
	}
	out := make([]cinema.Deal, 0, len(ws))
	for _, d := range ws {
		out = append(out, cinema.Deal{
			ID: d.Id, Description: d.Description, IsSeasonPass: d.IsSeasonPass, IsTicketUpgrade: d.IsTicketUpgrade,
			LimitPerOrder: limit(d.LimitPerOrder), RequiresLoyalty: d.RequiresLoyalty, RequiresVoucher: d.RequiresVoucher,
			ExcludesExistingDeals: d.ExcludesExistingDeals, ExcludesExistingDealsAvailable: d.ExcludesExistingDealsAvailable,
		})
	}
	return out
}

func (cv converter) editOrder(w *wireEditOrderResponse) cinema.EditOrder {
	if w == nil || w.Order == nil {
		return cinema.EditOrder{SuggestedDeals: dealsCamel(deref(w).SuggestedDeals)}
	}
	o := w.Order
	cur := cv.currency(o.CinemaId)
	e := cinema.EditOrder{
		UserSessionID:  o.UserSessionId,
		CinemaID:       o.CinemaId,
		Expires:        o.ExpiryDateUtc.Time,
		Balance:        money(o.OrderTotalValueInCents, cur),
		Tax:            money(o.TaxValueInCents, cur),
		FeeBalance:     money(o.BookingFeeTotalValueInCents, cur),
		FeeTax:         money(o.BookingFeeTaxValueInCents, cur),
		SuggestedDeals: dealsCamel(w.SuggestedDeals),
	}
	for _, s := range o.Sessions {
		e.Sessions = append(e.Sessions, cinema.EditSession{ID: string(s.Id), FilmTitle: s.FilmTitle, AllocatedSeating: s.AllocatedSeating})
		for _, t := range s.Tickets {
			d := t.TicketDetails
			l := cinema.EditLine{
				State:           cv.bookingStatus.lineState(d.BookingStatus),
				RawStatus:       d.BookingStatus,
				SessionID:       string(s.Id),
				TicketID:        d.TicketId,
				TypeCode:        d.TicketTypeCode,
				Description:     d.Description,
				FinalPrice:      money(d.FinalPriceInCents, cur),
				OriginalPrice:   money(d.OriginalPriceInCents, cur),
				Tax:             money(d.TaxInCents, cur),
				VoucherBarcode:  d.VoucherBarcode,
				DealDescription: string(deref(d.DealDescription)),
				IsPackage:       d.IsTicketPackage,
			}
			for _, st := range t.Seats {
				l.Seats = append(l.Seats, cinema.SeatRef{
					Position:         cinema.SeatPosition{AreaNumber: st.AreaNumber, RowIndex: st.RowIndex, ColumnIndex: st.ColumnIndex},
					AreaCategoryCode: st.AreaCategoryCode,
					RowLabel:         st.RowDisplay,
					Label:            st.ColumnDisplay,
					Placed:           true,
				})
			}
			e.Lines = append(e.Lines, l)
		}
	}
	for _, f := range o.BookingFees {
		e.Fees = append(e.Fees, cinema.FeeLine{
			State: cv.bookingStatus.lineState(f.BookingStatus), RawStatus: f.BookingStatus,
			Price: money(f.FinalPriceInCents, cur), Tax: money(f.TaxInCents, cur),
		})
	}
	return e
}

func (cv converter) orderDetails(w *wireOrderDetails) cinema.OrderDetails {
	var d cinema.OrderDetails
	cur := ""
	if id := w.OrderIdentifiers; id != nil {
		d = cinema.OrderDetails{
			CinemaID: id.CinemaId, UserSessionID: id.UserSessionId, ClientID: string(id.ClientId), HistoryID: int64(id.HistoryId),
			BookingNumber: id.bookingNumber(), BookingID: id.bookingID(), TransactionNumber: id.transNumber(),
			Completed: id.IsCompletedOrder,
		}
	}
	cur = cv.currency(d.CinemaID)
	if p := w.OrderWebPaymentData; p != nil {
		d.WebPayment = &cinema.WebPayment{
			Status:            cv.paymentStatus.status(p.PaymentStatus),
			RawStatus:         p.PaymentStatus,
			Amount:            money(p.AmountInCents, cur),
			CustomerName:      p.CustomerName,
			CardNumberMasked:  p.CardNumber,
			CardType:          p.CardType,
			CardExpiryMonth:   p.CardExpiryMonth,
			CardExpiryYear:    p.CardExpiryYear,
			LoyaltyCardNumber: p.LoyaltyCardNumber,
			AttemptNumber:     p.AttemptNumber,
			Token:             p.Token,
			BankService:       p.BankService,
			TransRef:          p.transRef(),
			UserID:            p.UserId,
		}
	}
	for _, a := range w.AdditionalPayments {
		d.AdditionalPayments = append(d.AdditionalPayments, cinema.AdditionalPayment{
			Amount: money(a.AmountInCents, cur), Billed: money(a.BilledAmountInCents, cur),
			MaskedCardNumber: a.MaskedCardNumber, CardType: a.CardType,
			Status: cv.paymentStatus.status(a.PaymentStatus), RawStatus: a.PaymentStatus,
		})
	}
	for _, p := range w.PrintStreams {
		d.PrintStreams = append(d.PrintStreams, cinema.PrintStream{Data: p.PrintStream, DocType: cinema.PrintDocType(p.PrintDocType)})
	}
	return d
}

// completion reads the flat CompleteOrder reply. A reply without codes of
// failure is a completed order (the caller has checked the codes).
func (cv converter) completion(w *wireCompleteOrderReply, userSessionID string) cinema.OrderDetails {
	d := cinema.OrderDetails{
		UserSessionID: userSessionID, BookingNumber: w.bookingNumber(), BookingID: w.bookingID(),
		TransactionNumber: w.transNumber(), Completed: true,
	}
	if w.PrintStream != "" {
		d.PrintStreams = append(d.PrintStreams, cinema.PrintStream{Data: w.PrintStream, DocType: cinema.PrintAll})
	}
	for _, p := range w.PrintStreamCollection {
		if p.PrintStream != "" && p.PrintStream != w.PrintStream {
			d.PrintStreams = append(d.PrintStreams, cinema.PrintStream{Data: p.PrintStream, DocType: cinema.PrintDocType(p.PrintDocType)})
		}
	}
	return d
}

func (cv converter) booking(w *wireBooking, cinemaID string) cinema.Booking {
	if w.CinemaId != "" {
		cinemaID = string(w.CinemaId)
	}
	cur := cv.currency(cinemaID)
	b := cinema.Booking{
		Number:         int64(w.BookingNumber),
		ID:             string(w.BookingId),
		CinemaID:       cinemaID,
		TransactionID:  w.transactionID(),
		Session:        cinema.SessionInfo{ID: string(w.SessionId), FilmTitle: w.FilmTitle, Showtime: w.Showtime.in(cv.location(cinemaID)), ScreenName: w.ScreenName},
		Paid:           deref(w.IsPaid),
		PaidKnown:      w.IsPaid != nil,
		InSeatDelivery: deref(w.HasInSeatDelivery),
		BeingEdited:    w.IsBeingEdited,
		Total:          money(int64(w.TotalValueCents), cur),
		Fees:           money(int64(w.BookingFeeValueCents), cur),
		CustomerName:   w.CustomerName,
		CustomerEmail:  cmp.Or(w.CustomerEmail, w.Email),
	}
	if len(w.Tickets) > 0 {
		b.Tickets = make([]cinema.BookedTicket, 0, len(w.Tickets))
	}
	for _, t := range w.Tickets {
		bt := cinema.BookedTicket{
			Seq: int(t.TicketSequenceNumber), SessionID: string(t.SessionId), TypeCode: string(t.TicketTypeCode),
			Description: t.Description, Price: money(int64(t.PriceInCents), cur), PackageGroup: int(t.PackageGroupNumber),
			RefundGroup: int(t.RefundGroupNumber), PaymentID: string(t.PaymentId),
		}
		if bt.SessionID == "" {
			bt.SessionID = b.Session.ID
		}
		if t.SeatNumber != "" || t.SeatRowId != "" {
			bt.Seat = &cinema.SeatRef{AreaCategoryCode: t.AreaCategoryCode, RowLabel: string(t.SeatRowId), Label: string(t.SeatNumber)}
			if t.AreaNumber != nil && t.RowIndex != nil && t.ColumnIndex != nil {
				bt.Seat.Position = cinema.SeatPosition{AreaNumber: int(*t.AreaNumber), RowIndex: int(*t.RowIndex), ColumnIndex: int(*t.ColumnIndex)}
				bt.Seat.Placed = true
			}
		}
		b.Tickets = append(b.Tickets, bt)
	}
	if b.Session.ID == "" {
		b.Session.ID = b.SessionID()
	}
	for _, c := range w.Concessions {
		b.Concessions = append(b.Concessions, cinema.Concession{ItemID: string(c.ItemId), Description: c.Description, Price: money(int64(c.PriceInCents), cur), Quantity: int(c.Quantity)})
	}
	for _, p := range w.Payments {
		b.Payments = append(b.Payments, cinema.BookingPayment{
			ID: string(p.PaymentId), Amount: money(p.amount(), cur), ProviderReference: p.reference(),
			TenderCategory: p.PaymentTenderCategory, CardNumberMasked: p.masked(), CardType: p.CardType,
			External: deref(p.IsExternal), ExternalKnown: p.IsExternal != nil,
		})
	}
	return b
}

func (cv converter) seatPlan(w *wireSeatLayout, cinemaID, sessionID string) cinema.SeatPlan {
	sp := cinema.SeatPlan{CinemaID: cinemaID, SessionID: sessionID}
	if w == nil {
		return sp
	}
	for _, c := range w.AreaCategories {
		sp.AreaCategories = append(sp.AreaCategories, cinema.AreaCategory{Code: c.AreaCategoryCode, Description: cmp.Or(c.Name, c.Description), InSeatDelivery: deref(c.IsInSeatDeliveryEnabled)})
	}
	sp.Areas = make([]cinema.Area, 0, len(w.Areas))
	for _, a := range w.Areas {
		ar := cinema.Area{
			Number: int(a.Number), AreaCategoryCode: a.AreaCategoryCode, Description: a.Description,
			AllocatedSeating: a.IsAllocatedSeating == nil || *a.IsAllocatedSeating, HasSofas: a.HasSofaSeatingEnabled,
			RowCount: int(a.RowCount), ColumnCount: int(a.ColumnCount), NumberOfSeats: int(a.NumberOfSeats),
			Rows: make([]cinema.Row, 0, len(a.Rows)),
		}
		for _, r := range a.Rows {
			row := cinema.Row{Label: string(r.PhysicalName)}
			if len(r.Seats) > 0 {
				row.Seats = make([]cinema.Seat, 0, len(r.Seats))
			}
			for _, s := range r.Seats {
				orig := s.Status
				if s.OriginalStatus != nil {
					orig = *s.OriginalStatus
				}
				kind, avail := cv.seatStatus.seat(s.Status, orig)
				seat := cinema.Seat{
					Position:         cinema.SeatPosition{AreaNumber: s.Position.AreaNumber, RowIndex: s.Position.RowIndex, ColumnIndex: s.Position.ColumnIndex},
					AreaCategoryCode: a.AreaCategoryCode,
					RowLabel:         string(r.PhysicalName),
					Label:            string(s.Id),
					Kind:             kind,
					Availability:     avail,
				}
				if len(s.SeatsInGroup) > 0 {
					seat.SofaGroup = make([]cinema.SeatPosition, len(s.SeatsInGroup))
					for i, g := range s.SeatsInGroup {
						seat.SofaGroup[i] = cinema.SeatPosition{AreaNumber: g.AreaNumber, RowIndex: g.RowIndex, ColumnIndex: g.ColumnIndex}
					}
				}
				row.Seats = append(row.Seats, seat)
			}
			ar.Rows = append(ar.Rows, row)
		}
		sp.Areas = append(sp.Areas, ar)
	}
	return sp
}

func (cv converter) ticketTypes(ws []wireTicketType, cinemaID string) []cinema.TicketType {
	cur := cv.currency(cinemaID)
	out := make([]cinema.TicketType, 0, len(ws))
	for _, t := range ws {
		size := t.PackageContent.seats
		if size == 0 {
			size = int(t.PackageSize)
		}
		if size == 0 {
			size = 1
		}
		out = append(out, cinema.TicketType{
			Code: t.TicketTypeCode, AreaCategoryCode: t.AreaCategoryCode, Description: t.Description,
			LongDescription: t.LongDescription, Price: money(int64(t.PriceInCents), cur), Tax: money(int64(t.TaxInCents), cur),
			IsPackage: t.IsPackageTicket, PackageSize: size,
			IsLoyalty:    t.IsAvailableAsLoyaltyRecognitionOnly || t.IsLoyaltyRecognition,
			IsVoucher:    t.ProductCodeForVoucher != "" || t.IsVoucherTicket,
			IsThirdParty: t.IsThirdPartyMemberTicket,
			IsChild:      t.IsChildOnlyTicket || t.IsChildTicket,
		})
	}
	return out
}

// session converts a listing row; loc is the cinema's zone, films gives
// titles by ScheduledFilmId.
func (cv converter) session(s wireSession, loc *time.Location, films map[string]cinema.Film) cinema.Session {
	cinemaID, sessionID := string(s.CinemaId), string(s.SessionId)
	if sessionID == "" {
		// Only the listing id: "{cinemaId}-{sessionId}".
		sessionID = SplitSessionID(cinemaID, string(s.ID))
	}
	id := string(s.ID)
	if id == "" {
		id = cinemaID + "-" + sessionID
	}
	start := s.Showtime.in(loc)
	day := s.SessionBusinessDate.in(loc)
	if day.IsZero() && !start.IsZero() {
		day, _ = cinema.Evening(start, loc) // a show after midnight belongs to the evening before
	}
	title := s.FilmTitle
	if f, ok := films[string(s.ScheduledFilmId)]; ok && title == "" {
		title = f.Title
	}
	return cinema.Session{
		ID: id, CinemaID: cinemaID, SessionID: sessionID, FilmID: string(s.ScheduledFilmId),
		FilmTitle: title, Showtime: start, BusinessDay: day, ScreenName: s.ScreenName, ScreenNumber: int(s.ScreenNumber),
		AllocatedSeating: s.IsAllocatedSeating == nil || *s.IsAllocatedSeating, SeatsAvailable: int(s.SeatsAvailable),
		AreaCategoryCodes: s.AreaCategoryCodes, OnSale: s.AllowTicketSales == nil || *s.AllowTicketSales,
		Attributes: s.SessionAttributesNames,
	}
}

// SplitSessionID returns the plain session id of either form: "1001" or the
// listing's "{cinemaId}-1001".
func SplitSessionID(cinemaID, id string) string {
	if cinemaID != "" {
		if rest, ok := strings.CutPrefix(id, cinemaID+"-"); ok {
			return rest
		}
	}
	if i := strings.LastIndexByte(id, '-'); i >= 0 && cinemaID == "" {
		return id[i+1:]
	}
	return id
}
