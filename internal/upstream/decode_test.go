package upstream

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

func TestAddTicketsDecodesOrderEnvelope(t *testing.T) {
	f := newFake(t)
	f.reply("POST /RESTTicketing.svc/order/tickets", 200, fixture(t, "order_envelope.json"))
	c := f.client()
	ctx := WithRequestID(context.Background(), "req-42")
	price := int64(999)
	o, err := c.AddTickets(ctx, AddTicketsRequest{
		UserSessionID: "0123456789abcdef0123456789abcdef", CinemaID: "0001", SessionID: "1001",
		Tickets:     []TicketRequest{{TypeCode: "0001", Qty: 2}, {TypeCode: "0002", Price: &price}},
		BookingMode: BookingModeSale,
		Seats:       []SelectedSeat{{AreaCategoryCode: "0000000001", Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}}},
	})
	if err != nil {
		t.Fatal(err)
	}

	// Request: exact wire names and casing.
	body := f.body("POST /RESTTicketing.svc/order/tickets")
	for _, k := range []string{"UserSessionId", "CinemaId", "SessionId", "TicketTypes", "BookingMode", "ReturnOrder", "SelectedSeats"} {
		if _, ok := body[k]; !ok {
			t.Errorf("request lacks %s: %v", k, body)
		}
	}
	if _, ok := body["BookingFeeOverride"]; ok {
		t.Error("BookingFeeOverride sent without being asked")
	}
	tt := body["TicketTypes"].([]any)
	if tt[0].(map[string]any)["TicketTypeCode"] != "0001" || tt[0].(map[string]any)["Qty"] != 2.0 || tt[1].(map[string]any)["PriceInCents"] != 999.0 {
		t.Errorf("TicketTypes = %v", tt)
	}
	if body["SessionId"] != "1001" || body["ReturnOrder"] != true {
		t.Errorf("body = %v", body)
	}
	seat := body["SelectedSeats"].([]any)[0].(map[string]any)
	if seat["AreaCategoryCode"] != "0000000001" || seat["AreaNumber"] != 1.0 || seat["RowIndex"] != 5.0 || seat["ColumnIndex"] != 11.0 {
		t.Errorf("seat = %v", seat)
	}
	h := f.header("POST /RESTTicketing.svc/order/tickets")
	if h.Get("connectapitoken") != testToken || h.Get("X-Request-ID") != "req-42" || h.Get("User-Agent") != "cinemabff/dev" {
		t.Errorf("headers = %v", h)
	}
	if h.Get("Content-Type") != "application/json" {
		t.Errorf("content type %q", h.Get("Content-Type"))
	}

	// Response.
	if o.UserSessionID != "0123456789abcdef0123456789abcdef" || o.CinemaID != "0001" || o.TotalOrderCount != 2 {
		t.Errorf("order = %+v", o)
	}
	if o.Total != (cinema.Money{Cents: 2700, Currency: "EUR"}) || o.Tax.Cents != 430 || o.BookingFee.Cents != 200 || o.BookingFeeTax.Cents != 32 {
		t.Errorf("values = %v %v %v %v", o.Total, o.Tax, o.BookingFee, o.BookingFeeTax)
	}
	if !o.LastUpdated.Equal(time.Date(2026, 11, 18, 11, 6, 40, 0, time.UTC)) || !o.Expires.Equal(time.Date(2026, 11, 18, 11, 16, 40, 0, time.UTC)) {
		t.Errorf("times = %v %v", o.LastUpdated, o.Expires)
	}
	if len(o.Sessions) != 1 || o.Sessions[0].SessionID != "1001" || !o.Sessions[0].SeatsAllocated || o.Sessions[0].FilmTitle != "The Long Night" {
		t.Fatalf("sessions = %+v", o.Sessions)
	}
	tk := o.Tickets()
	if len(tk) != 2 {
		t.Fatalf("tickets = %+v", tk)
	}
	want := cinema.OrderTicket{
		ID: "1", SessionID: "1001", TypeCode: "0001", Description: "Adult",
		Price: cinema.Money{Cents: 1250, Currency: "EUR"}, DealPrice: cinema.Money{Currency: "EUR"},
		FinalPrice: cinema.Money{Cents: 1250, Currency: "EUR"}, Tax: cinema.Money{Cents: 200, Currency: "EUR"},
		SeatData: "F12",
		Seat:     &cinema.SeatRef{Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}, AreaCategoryCode: "0000000001", RowLabel: "F", Label: "12", Placed: true},
	}
	if !reflect.DeepEqual(tk[0], want) {
		t.Errorf("ticket 0 =\n%+v\nwant\n%+v", tk[0], want)
	}
	if tk[1].DealDescription != "Family deal" || tk[1].DealPrice.Cents != 1000 || tk[1].Seat.Name() != "F13" {
		t.Errorf("ticket 1 = %+v", tk[1])
	}
	if len(o.SuggestedDeals) != 2 || o.SuggestedDeals[0].LimitPerOrder != nil || *o.SuggestedDeals[1].LimitPerOrder != 2 ||
		!o.SuggestedDeals[0].IsTicketUpgrade || o.SuggestedDeals[0].ExcludesExistingDealsAvailable != 1 {
		t.Errorf("deals = %+v", o.SuggestedDeals)
	}
	if len(o.AppliedPayments) != 1 || o.AppliedPayments[0].Amount.Cents != 500 || o.ToPay().Cents != 2200 {
		t.Errorf("applied = %+v, to pay %v", o.AppliedPayments, o.ToPay())
	}
}

func TestEditBookingDecodesEditOrder(t *testing.T) {
	f := newFake(t)
	f.reply("POST /cinemas/{cinema}/bookings/{booking}/edit", 200, fixture(t, "edit_order.json"))
	c := f.client()
	e, err := c.EditBooking(context.Background(), "0001", "BK1E240A")
	if err != nil {
		t.Fatal(err)
	}
	if u := f.url("POST /cinemas/{cinema}/bookings/{booking}/edit"); u != "/cinemas/0001/bookings/BK1E240A/edit" {
		t.Errorf("path %s", u)
	}
	if b := f.rawBody("POST /cinemas/{cinema}/bookings/{booking}/edit"); b != "" {
		t.Errorf("Edit Booking sent a body: %q", b)
	}
	if e.UserSessionID != "fedcba9876543210fedcba9876543210" || e.CinemaID != "0001" {
		t.Errorf("edit = %+v", e)
	}
	if !e.Expires.Equal(time.Date(2026, 11, 22, 19, 10, 0, 0, time.UTC)) {
		t.Errorf("expires %v", e.Expires)
	}
	if e.Balance.Cents != -1250 || e.ToRefund().Cents != 1250 || !e.ToPay().IsZero() || e.Tax.Cents != -200 {
		t.Errorf("balance %v to refund %v to pay %v", e.Balance, e.ToRefund(), e.ToPay())
	}
	states := []cinema.LineState{}
	for _, l := range e.Lines {
		states = append(states, l.State)
	}
	if !reflect.DeepEqual(states, []cinema.LineState{cinema.LineKept, cinema.LineRemoved, cinema.LineAdded}) {
		t.Errorf("states %v", states)
	}
	l := e.Lines[0]
	if l.TicketID != 1 || l.SessionID != "1001" || l.TypeCode != "0001" || l.FinalPrice.Cents != 1250 || l.OriginalPrice.Cents != 1250 ||
		len(l.Seats) != 1 || l.Seats[0].Name() != "F12" || l.Seats[0].Position != (cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}) {
		t.Errorf("line 0 = %+v", l)
	}
	if e.Lines[1].DealDescription != "Some deal" {
		t.Errorf("line 1 = %+v", e.Lines[1])
	}
	if len(e.Fees) != 2 || e.Fees[0].State != cinema.LineKept || e.Fees[1].State != cinema.LineRemoved || e.Fees[1].Price.Cents != 100 {
		t.Errorf("fees = %+v", e.Fees)
	}
	if len(e.SuggestedDeals) != 1 || e.SuggestedDeals[0].ID != "D1" || e.SuggestedDeals[0].LimitPerOrder != nil {
		t.Errorf("deals = %+v", e.SuggestedDeals)
	}
	if e.HasUnknown() || !e.HasChanges() || len(e.LinesIn(cinema.LineAdded)) != 1 {
		t.Error("helpers")
	}
}

func TestUnknownEnumValuesAreUnknown(t *testing.T) {
	f := newFake(t)
	f.reply("POST /cinemas/{cinema}/bookings/{booking}/edit", 200, `{"order":{"cinemaId":"0001","userSessionId":"x",
	  "sessions":[{"id":1,"tickets":[{"ticketDetails":{"ticketId":1,"bookingStatus":7},"seats":[]}]}],
	  "bookingFees":[{"finalPriceInCents":1,"taxInCents":0,"bookingStatus":-1}]},"result":0}`)
	f.reply("GET /RESTTicketing.svc/order/details", 200, fixture(t, "order_details.json"))
	f.reply("GET /RESTData.svc/cinemas/{c}/sessions/{s}/seat-plan", 200, fixture(t, "seat_plan.json"))
	c := f.client()
	ctx := context.Background()

	e, err := c.EditBooking(ctx, "0001", "B")
	if err != nil {
		t.Fatal(err)
	}
	if e.Lines[0].State != cinema.LineUnknown || e.Lines[0].RawStatus != 7 || e.Fees[0].State != cinema.LineUnknown || !e.HasUnknown() {
		t.Errorf("lines %+v fees %+v", e.Lines, e.Fees)
	}
	if e.HasChanges() {
		t.Error("an unknown line counted as a change")
	}

	d, err := c.GetOrderDetails(ctx, "0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if d.AdditionalPayments[1].Status != cinema.PaymentUnknown || d.AdditionalPayments[1].RawStatus != "Q" || d.AdditionalPayments[1].Status.Final() {
		t.Errorf("additional %+v", d.AdditionalPayments[1])
	}

	sp, err := c.GetSeatPlan(ctx, "0001", "1001")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := sp.Seat(cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 2})
	if !ok || s.Availability != cinema.SeatUnknown || s.Kind != cinema.SeatKindUnknown || s.Selectable() {
		t.Errorf("seat with status 42 = %+v", s)
	}

	// The mappings are configurable.
	c2 := f.client(
		WithBookingStatusMapping(BookingStatusMapping{7: cinema.LineAdded}),
		WithPaymentStatusMapping(PaymentStatusMapping{"Q": cinema.PaymentPaid}),
		WithSeatStatusMapping(SeatStatusMapping{42: {cinema.SeatKindNormal, cinema.SeatFree}}),
	)
	e, _ = c2.EditBooking(ctx, "0001", "B")
	if e.Lines[0].State != cinema.LineAdded {
		t.Errorf("mapped state %v", e.Lines[0].State)
	}
	d, _ = c2.GetOrderDetails(ctx, "other0123456789abcdef0123456789a")
	if d.AdditionalPayments[1].Status != cinema.PaymentPaid || d.WebPayment.Status != cinema.PaymentUnknown {
		t.Errorf("mapped payment %v / %v (Y no longer mapped)", d.AdditionalPayments[1].Status, d.WebPayment.Status)
	}
	sp, _ = c2.GetSeatPlan(ctx, "0001", "1001")
	if s, _ := sp.Seat(cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 2}); s.Availability != cinema.SeatFree {
		t.Errorf("mapped seat %+v", s)
	}
}

func TestGetOrderDetailsDecodes(t *testing.T) {
	f := newFake(t)
	f.reply("GET /RESTTicketing.svc/order/details", 200, fixture(t, "order_details.json"))
	c := f.client()
	d, err := c.GetOrderDetails(context.Background(), "0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if u := f.url("GET /RESTTicketing.svc/order/details"); u != "/RESTTicketing.svc/order/details?userSessionId=0123456789abcdef0123456789abcdef" {
		t.Errorf("url %s", u)
	}
	if !d.Completed || d.BookingNumber != 123456 || d.BookingID != "BK1E240A" || d.TransactionNumber != 998877 || d.HistoryID != 42 || d.ClientID != "cinemabff" {
		t.Errorf("details = %+v", d)
	}
	wp := d.WebPayment
	if wp == nil || wp.Status != cinema.PaymentPaid || wp.Amount.Cents != 2200 || wp.Token != "tok_abc" || wp.CardNumberMasked != "************4242" ||
		wp.CardExpiryMonth != "09" || wp.CardExpiryYear != "2029" || wp.TransRef != "pay_123" || wp.AttemptNumber != 1 {
		t.Errorf("web payment = %+v", wp)
	}
	if len(d.AdditionalPayments) != 2 || d.AdditionalPayments[0].Billed.Cents != 500 || d.AdditionalPayments[0].Status != cinema.PaymentPaid {
		t.Errorf("additional = %+v", d.AdditionalPayments)
	}
	if len(d.PrintStreams) != 1 || d.PrintStreams[0].DocType != cinema.PrintBookingVoucher || d.PrintStreams[0].Data != "<t>ticket</t>" {
		t.Errorf("print = %+v", d.PrintStreams)
	}
}

func TestGetSingleBookingDecodes(t *testing.T) {
	f := newFake(t)
	f.reply("POST /RESTBooking.svc/booking", 200, fixture(t, "single_booking.json"))
	c := f.client()
	b, err := c.GetSingleBooking(context.Background(), "0001", 123456)
	if err != nil {
		t.Fatal(err)
	}
	req := f.body("POST /RESTBooking.svc/booking")
	if req["CinemaId"] != "0001" || req["BookingNumber"] != "123456" {
		t.Errorf("request = %v (BookingNumber must be a string)", req)
	}
	if b.Number != 123456 || b.ID != "BK1E240A" || b.TransactionID != 998877 || !b.Paid || b.InSeatDelivery || b.CustomerEmail != "ada@example.com" {
		t.Errorf("booking = %+v", b)
	}
	if b.Total.Cents != 2700 || b.Fees.Cents != 200 || b.Session.ID != "1001" || !b.Session.Showtime.Equal(time.Date(2026, 11, 22, 19, 30, 0, 0, time.UTC)) {
		t.Errorf("booking = %+v", b)
	}
	if len(b.Tickets) != 3 || b.Tickets[0].Seq != 1 || b.Tickets[0].Seat.Position != (cinema.SeatPosition{AreaNumber: 1, RowIndex: 5, ColumnIndex: 11}) {
		t.Errorf("tickets = %+v", b.Tickets)
	}
	if got := b.PackageMates(2); len(got) != 2 || got[1].Seq != 3 {
		t.Errorf("package mates = %+v", got)
	}
	if got := b.PackageMates(1); len(got) != 1 {
		t.Errorf("package mates of a single = %+v", got)
	}
	if len(b.Concessions) != 1 || b.Concessions[0].Price.Cents != 600 || len(b.Payments) != 1 || !b.Payments[0].External {
		t.Errorf("concessions %+v payments %+v", b.Concessions, b.Payments)
	}
	if r := b.EditRestrictions(); !reflect.DeepEqual(r, []string{"concessions", "package_ticket"}) {
		t.Errorf("restrictions %v", r)
	}
}

func TestSeatPlanDecodes(t *testing.T) {
	f := newFake(t)
	f.reply("GET /RESTData.svc/cinemas/{c}/sessions/{s}/seat-plan", 200, fixture(t, "seat_plan.json"))
	sp, err := f.client().GetSeatPlan(context.Background(), "0001", "1001")
	if err != nil {
		t.Fatal(err)
	}
	if u := f.url("GET /RESTData.svc/cinemas/{c}/sessions/{s}/seat-plan"); u != "/RESTData.svc/cinemas/0001/sessions/1001/seat-plan" {
		t.Errorf("url %s", u)
	}
	if len(sp.Areas) != 2 || len(sp.AreaCategories) != 2 || !sp.AreaCategories[1].InSeatDelivery {
		t.Fatalf("plan = %+v", sp)
	}
	if a := sp.Areas[0]; a.Number != 1 || a.RowCount != 3 || len(a.Rows) != 3 || a.Rows[1].Label != "" || len(a.Rows[1].Seats) != 0 {
		t.Errorf("area 1 = %+v", a)
	}
	tests := []struct {
		pos   cinema.SeatPosition
		kind  cinema.SeatKind
		avail cinema.SeatAvailability
		label string
	}{
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 0, ColumnIndex: 0}, cinema.SeatKindNormal, cinema.SeatFree, "A1"},
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 0, ColumnIndex: 1}, cinema.SeatKindNormal, cinema.SeatTaken, "A2"},
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 0, ColumnIndex: 3}, cinema.SeatKindWheelchair, cinema.SeatFree, "A3"},
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 0, ColumnIndex: 4}, cinema.SeatKindCompanion, cinema.SeatHeld, "A4"},
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 0}, cinema.SeatKindHouse, cinema.SeatUnavailable, "B1"},
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 1}, cinema.SeatKindBroken, cinema.SeatUnavailable, "B2"},
		{cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 3}, cinema.SeatKindWheelchair, cinema.SeatTaken, "B4"},
		{cinema.SeatPosition{AreaNumber: 2, RowIndex: 0, ColumnIndex: 1}, cinema.SeatKindNormal, cinema.SeatFree, "S2"},
	}
	for _, tt := range tests {
		s, ok := sp.Seat(tt.pos)
		if !ok {
			t.Errorf("%v missing", tt.pos)
			continue
		}
		if s.Kind != tt.kind || s.Availability != tt.avail || s.Ref().Name() != tt.label {
			t.Errorf("%v = %v/%v %s, want %v/%v %s", tt.pos, s.Kind, s.Availability, s.Ref().Name(), tt.kind, tt.avail, tt.label)
		}
	}
	sofa, _ := sp.Seat(cinema.SeatPosition{AreaNumber: 2, RowIndex: 0, ColumnIndex: 0})
	if len(sofa.SofaGroup) != 2 || sofa.AreaCategoryCode != "0000000002" {
		t.Errorf("sofa %+v", sofa)
	}
	if sp.Count(cinema.SeatFree) != 4 {
		t.Errorf("free = %d", sp.Count(cinema.SeatFree))
	}
}

func TestDataListings(t *testing.T) {
	f := newFake(t)
	f.reply("GET /OData.svc/Cinemas", 200, fixture(t, "cinemas.json"))
	f.reply("GET /OData.svc/ScheduledFilms", 200, fixture(t, "films.json"))
	f.reply("GET /OData.svc/Sessions", 200, fixture(t, "sessions.json"))
	f.reply("GET /RESTData.svc/cinemas/{c}/sessions/{s}/tickets", 200, fixture(t, "ticket_types.json"))
	c := f.client()
	ctx := context.Background()

	cs, err := c.ListCinemas(ctx)
	if err != nil || len(cs) != 2 || cs[1].Currency != "GBP" || cs[0].TimeZone != "Europe/Berlin" {
		t.Fatalf("cinemas %+v %v", cs, err)
	}
	fs, err := c.ListFilms(ctx, "0001")
	if err != nil || len(fs) != 1 || fs[0].RunTime != 118*time.Minute || fs[0].Rating != "12" {
		t.Fatalf("films %+v %v", fs, err)
	}
	if u := f.url("GET /OData.svc/ScheduledFilms"); u != "/OData.svc/ScheduledFilms?$filter=CinemaId%20eq%20'0001'" {
		t.Errorf("url %s", u)
	}
	ss, err := c.ListSessions(ctx, "0001", "2026-11-22")
	if err != nil || len(ss) != 1 || ss[0].SessionID != "1001" || ss[0].SeatsAvailable != 412 || len(ss[0].AreaCategoryCodes) != 2 ||
		!ss[0].Showtime.Equal(time.Date(2026, 11, 22, 19, 30, 0, 0, time.UTC)) {
		t.Fatalf("sessions %+v %v", ss, err)
	}
	if u := f.url("GET /OData.svc/Sessions"); u != "/OData.svc/Sessions?$filter=CinemaId%20eq%20'0001'" {
		t.Errorf("url %s", u)
	}
	// The currency learnt from ListCinemas applies to cinema 0002.
	tt, err := c.GetTicketTypes(ctx, "0002", "1001", "abc")
	if err != nil || len(tt) != 2 || tt[0].Price != (cinema.Money{Cents: 1250, Currency: "GBP"}) || tt[1].Simple() || !tt[0].Simple() || tt[1].PackageSize != 2 {
		t.Fatalf("ticket types %+v %v", tt, err)
	}
	if u := f.url("GET /RESTData.svc/cinemas/{c}/sessions/{s}/tickets"); u != "/RESTData.svc/cinemas/0002/sessions/1001/tickets?userSessionId=abc" {
		t.Errorf("url %s", u)
	}
}

func TestEnvelopeErrorsIn200Body(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		body    string
		call    func(*Client) error
		want    error
		result  int
		ext     int
	}{
		{"expired order", "POST /RESTTicketing.svc/order", `{"Result":4,"ExtendedResultCode":41,"ErrorDescription":"order expired","Order":null}`,
			func(c *Client) error { _, err := c.GetOrder(context.Background(), "x"); return err }, ErrOrderExpired, 4, 41},
		{"unknown order", "POST /RESTTicketing.svc/order", `{"Result":4,"ExtendedResultCode":40,"ErrorDescription":"no such order"}`,
			func(c *Client) error { _, err := c.GetOrder(context.Background(), "x"); return err }, ErrNotFound, 4, 40},
		{"invalid data", "POST /RESTTicketing.svc/order/tickets", `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"unknown session"}`,
			func(c *Client) error { _, err := c.AddTickets(context.Background(), AddTicketsRequest{}); return err }, ErrInvalidRequest, 4, 0},
		{"seats taken", "POST /RESTTicketing.svc/order/seats", `{"Result":8,"ExtendedResultCode":0,"ErrorDescription":"seats unavailable"}`,
			func(c *Client) error {
				_, err := c.SetSelectedSeats(context.Background(), SetSelectedSeatsRequest{})
				return err
			}, ErrSeatsUnavailable, 8, 0},
		{"not in edit state", "POST /RESTTicketing.svc/order/tickets/remove", `{"Result":4,"ExtendedResultCode":42,"ErrorDescription":"not supported in edit state"}`,
			func(c *Client) error {
				_, err := c.RemoveTickets(context.Background(), RemoveTicketsRequest{})
				return err
			}, ErrInvalidRequest, 4, 42},
		{"gift card rejected", "POST /RESTTicketing.svc/order/giftcard", `{"Result":12,"ExtendedResultCode":45,"ErrorDescription":"bad pin"}`,
			func(c *Client) error { _, err := c.ApplyGiftCard(context.Background(), "x", "1", "2", nil); return err }, ErrPaymentDeclined, 12, 45},
		{"no points", "POST /RESTTicketing.svc/order/loyalty-points", `{"Result":7,"ExtendedResultCode":46,"ErrorDescription":"not enough"}`,
			func(c *Client) error {
				_, err := c.ApplyLoyaltyPointsPayment(context.Background(), "x", "1", "1234", nil)
				return err
			}, ErrInsufficientBalance, 7, 46},
		{"order closed", "POST /RESTTicketing.svc/order/startexternalpayment", `{"Result":4,"ExtendedResultCode":50,"ErrorDescription":"awaiting payment"}`,
			func(c *Client) error {
				_, err := c.ExternalPaymentStarting(context.Background(), ExternalPaymentRequest{})
				return err
			}, ErrOrderClosed, 4, 50},
		{"booking not found", "POST /RESTBooking.svc/booking", `{"ResultCode":1,"ErrorDescription":"booking not found","ExtendedResultCode":47}`,
			func(c *Client) error { _, err := c.GetSingleBooking(context.Background(), "0001", 1); return err }, ErrNotFound, 1, 47},
		{"session not found", "GET /RESTData.svc/cinemas/{c}/sessions/{s}/seat-plan", `{"ResponseCode":50,"ErrorDescription":"session not found"}`,
			func(c *Client) error { _, err := c.GetSeatPlan(context.Background(), "0001", "9"); return err }, ErrNotFound, 50, 0},
		{"declined", "POST /RESTTicketing.svc/order/payment", `{"Result":12,"ExtendedResultCode":0,"ErrorDescription":"declined"}`,
			func(c *Client) error {
				_, err := c.CompleteOrder(context.Background(), CompleteOrderRequest{})
				return err
			}, ErrPaymentDeclined, 12, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.reply(tt.pattern, 200, tt.body)
			err := tt.call(f.client())
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Result != tt.result || e.ExtendedResultCode != tt.ext || e.HTTPStatus != 200 || e.Description == "" {
				t.Fatalf("error = %#v", e)
			}
			if f.count(tt.pattern) != 1 {
				t.Errorf("%d calls for a refusal; refusals are never retried", f.count(tt.pattern))
			}
		})
	}
}

func TestCamelCaseRefusals(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		swap   bool
		want   error
		also   error
		edit   EditRestriction
		swapR  SwapRestriction
	}{
		{"edit concessions", 400, `{"result":4,"extendedResultCode":43,"errorDescription":"booking has concessions","reason":"concessions"}`, false, ErrEditRefused, nil, EditConcessions, ""},
		{"edit unknown booking", 404, `{"result":1,"extendedResultCode":47,"errorDescription":"booking not found","reason":""}`, false, ErrNotFound, nil, "", ""},
		{"edit already", 400, `{"result":4,"extendedResultCode":43,"errorDescription":"x","reason":"already_in_edit"}`, false, ErrEditRefused, nil, EditAlreadyInEdit, ""},
		{"swap unpaid", 400, `{"result":4,"extendedResultCode":44,"errorDescription":"unpaid","reason":"unpaid_booking"}`, true, ErrSwapRefused, nil, "", SwapUnpaidBooking},
		{"swap seat taken", 409, `{"result":8,"extendedResultCode":44,"errorDescription":"taken","reason":"seat_unavailable"}`, true, ErrSwapRefused, ErrSeatsUnavailable, "", SwapSeatUnavailable},
		{"swap package", 400, `{"result":4,"extendedResultCode":44,"errorDescription":"pkg","reason":"partial_package"}`, true, ErrSwapRefused, nil, "", SwapPartialPackage},
		{"swap 409 without codes", 409, `{}`, true, ErrSeatsUnavailable, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.reply("POST /cinemas/{c}/bookings/{b}/edit", tt.status, tt.body)
			f.reply("POST /cinemas/{c}/bookings/{b}/swap-seats", tt.status, tt.body)
			c := f.client()
			var err error
			if tt.swap {
				err = c.SwapSeats(context.Background(), "0001", "B", []SeatSwap{{TicketSequenceNumber: 1, NewSeat: cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 3}}})
			} else {
				_, err = c.EditBooking(context.Background(), "0001", "B")
			}
			if !errors.Is(err, tt.want) || (tt.also != nil && !errors.Is(err, tt.also)) {
				t.Fatalf("err = %v", err)
			}
			if r, ok := EditRefusal(err); ok != (tt.edit != "") || r != tt.edit {
				t.Errorf("EditRefusal = %q %v", r, ok)
			}
			if tt.swapR != "" {
				if r, ok := SwapRefusal(err); !ok || r != tt.swapR {
					t.Errorf("SwapRefusal = %q %v", r, ok)
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.HTTPStatus != tt.status {
				t.Errorf("error %#v", e)
			}
		})
	}
}

func TestSwapSeatsRequest(t *testing.T) {
	f := newFake(t)
	f.reply("POST /cinemas/{c}/bookings/{b}/swap-seats", 200, `{"result":0,"extendedResultCode":0,"errorDescription":null}`)
	err := f.client().SwapSeats(context.Background(), "0001", "BK/1", []SeatSwap{
		{TicketSequenceNumber: 2, NewSeat: cinema.SeatPosition{AreaNumber: 1, RowIndex: 3, ColumnIndex: 4}},
		{TicketSequenceNumber: 3, NewSeat: cinema.SeatPosition{AreaNumber: 1, RowIndex: 3, ColumnIndex: 5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := f.rawBody("POST /cinemas/{c}/bookings/{b}/swap-seats")
	want := `{"swaps":[{"ticketSequenceNumber":2,"newSeat":{"areaNumber":1,"rowIndex":3,"columnIndex":4}},{"ticketSequenceNumber":3,"newSeat":{"areaNumber":1,"rowIndex":3,"columnIndex":5}}]}`
	if got != want {
		t.Errorf("body\n%s\nwant\n%s", got, want)
	}
	if u := f.url("POST /cinemas/{c}/bookings/{b}/swap-seats"); u != "/cinemas/0001/bookings/BK%2F1/swap-seats" {
		t.Errorf("path not escaped: %s", u)
	}
}

func TestCompleteEditBookingForms(t *testing.T) {
	pay := ExternalPayment{AmountCents: 1250, ProviderReference: "pay_1", TenderCategory: "CREDITCARD", CardNumberMasked: "************4242", CardType: "VISA"}
	tests := []struct {
		name string
		req  CompleteEdit
		want string
	}{
		{"unpaid", CompleteEditUnpaid(), `{}`},
		{"payments", CompleteEditWithPayments(pay), `{"payments":{"externalPayments":[{"amountInCents":1250,"paymentProviderReference":"pay_1","paymentTenderCategory":"CREDITCARD","cardNumberMasked":"************4242","cardType":"VISA"}]}}`},
		{"refunds", CompleteEditWithRefunds(pay), `{"refundPayments":{"externalPayments":[{"amountInCents":1250,"paymentProviderReference":"pay_1","paymentTenderCategory":"CREDITCARD","cardNumberMasked":"************4242","cardType":"VISA"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.reply("POST /orders/{id}/complete-edit", 200, `{"result":0,"extendedResultCode":0,"errorDescription":null,"bookingNumber":123456,"bookingId":"BK1E240A"}`)
			res, err := f.client().CompleteEditBooking(context.Background(), "fedcba9876543210fedcba9876543210", tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.rawBody("POST /orders/{id}/complete-edit"); got != tt.want {
				t.Errorf("body\n%s\nwant\n%s", got, tt.want)
			}
			if res.BookingNumber != 123456 || res.BookingID != "BK1E240A" {
				t.Errorf("res %+v", res)
			}
			if u := f.url("POST /orders/{id}/complete-edit"); u != "/orders/fedcba9876543210fedcba9876543210/complete-edit" {
				t.Errorf("url %s", u)
			}
		})
	}
	f := newFake(t)
	f.reply("POST /orders/{id}/complete-edit", 400, `{"result":4,"extendedResultCode":48,"errorDescription":"refund required","reason":"refund_required"}`)
	_, err := f.client().CompleteEditBooking(context.Background(), "x", CompleteEditUnpaid())
	if r, ok := EditRefusal(err); !ok || r != EditRefundRequired {
		t.Errorf("refusal %q %v (%v)", r, ok, err)
	}
}

func TestOtherRequestShapes(t *testing.T) {
	f := newFake(t)
	env := `{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null,"Order":{"UserSessionId":"u","CinemaId":"0001","TotalValueCents":100}}`
	f.reply("POST /RESTTicketing.svc/order/tickets/remove", 200, env)
	f.reply("POST /RESTTicketing.svc/order/seats", 200, env)
	f.reply("POST /RESTTicketing.svc/order/cancel", 200, `{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null}`)
	f.reply("POST /RESTTicketing.svc/order/reset-expiry", 200, `{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null,"OrderLastUpdated":"\/Date(1795000000000)\/"}`)
	f.reply("POST /RESTTicketing.svc/order/giftcard", 200, `{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null,"AmountAppliedInCents":500,"BalanceRemainingInCents":0,"AmountToPayInCents":700,"Order":{"UserSessionId":"u","CinemaId":"0001"}}`)
	f.reply("POST /RESTTicketing.svc/order/loyalty-points", 200, `{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null,"AmountAppliedInCents":100,"BalanceRemainingInCents":50,"AmountToPayInCents":600}`)
	f.reply("POST /RESTTicketing.svc/order/startexternalpayment", 200, `{"ExtendedResultCode":0,"PaymentRedirectUrl":"http://pay.example/checkout/pay_1","Result":0}`)
	f.reply("POST /RESTTicketing.svc/order/payment", 200, fixture(t, "order_details.json"))
	c := f.client()
	ctx := context.Background()

	if _, err := c.RemoveTickets(ctx, RemoveTicketsRequest{UserSessionID: "u", SessionID: "1001", TicketIDs: []string{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	if got := f.rawBody("POST /RESTTicketing.svc/order/tickets/remove"); got != `{"UserSessionId":"u","TicketRemovals":[{"SessionId":"1001","Tickets":["1","2"],"PackageTicketIds":[]}],"ReturnOrder":true}` {
		t.Errorf("remove body %s", got)
	}
	if _, err := c.SetSelectedSeats(ctx, SetSelectedSeatsRequest{UserSessionID: "u", CinemaID: "0001", SessionID: "1001",
		Seats: []SelectedSeat{{AreaCategoryCode: "0000000001", Position: cinema.SeatPosition{AreaNumber: 1, RowIndex: 2, ColumnIndex: 3}}}}); err != nil {
		t.Fatal(err)
	}
	if got := f.rawBody("POST /RESTTicketing.svc/order/seats"); got != `{"UserSessionId":"u","CinemaId":"0001","SessionId":"1001","SelectedSeats":[{"AreaCategoryCode":"0000000001","AreaNumber":1,"RowIndex":2,"ColumnIndex":3}],"ReturnOrder":true}` {
		t.Errorf("seats body %s", got)
	}
	if err := c.CancelOrder(ctx, "u"); err != nil {
		t.Fatal(err)
	}
	if got := f.rawBody("POST /RESTTicketing.svc/order/cancel"); got != `{"UserSessionId":"u"}` {
		t.Errorf("cancel body %s", got)
	}
	r, err := c.ResetOrderExpiry(ctx, "u")
	if err != nil || r.LastUpdated.UnixMilli() != 1795000000000 || r.Order != nil {
		t.Errorf("reset %+v %v", r, err)
	}
	g, err := c.ApplyGiftCard(ctx, "u", "6000123412341234", "1234", ptr(int64(500)))
	if err != nil || g.Applied.Cents != 500 || g.ToPay.Cents != 700 || g.Order == nil {
		t.Errorf("gift %+v %v", g, err)
	}
	if got := f.rawBody("POST /RESTTicketing.svc/order/giftcard"); got != `{"UserSessionId":"u","CardNumber":"6000123412341234","Pin":"1234","AmountInCents":500}` {
		t.Errorf("gift body %s", got)
	}
	l, err := c.ApplyLoyaltyPointsPayment(ctx, "u", "L1", "1815", nil)
	if err != nil || l.Applied.Cents != 100 || l.BalanceRemaining.Cents != 50 {
		t.Errorf("loyalty %+v %v", l, err)
	}
	if got := f.rawBody("POST /RESTTicketing.svc/order/loyalty-points"); got != `{"UserSessionId":"u","LoyaltyCardNumber":"L1","Pin":"1815"}` {
		t.Errorf("loyalty body %s", got)
	}
	redirect, err := c.ExternalPaymentStarting(ctx, ExternalPaymentRequest{UserSessionID: "u", ReturnURL: "http://bff/return", PaymentMethod: "sandbox",
		InApp: true, CustomerName: "Ada", CustomerEmail: "ada@example.com", PrintStreamType: "HTML", GeneratePrintStream: true})
	if err != nil || redirect != "http://pay.example/checkout/pay_1" {
		t.Errorf("redirect %q %v", redirect, err)
	}
	want := `{"UserSessionId":"u","AutoCompleteOrder":true,"ExternalPaymentInfo":{"ReturnUrl":"http://bff/return","PaymentMethod":"sandbox","IsInAppPayment":true},"OrderCompletionInfo":{"CustomerInfo":{"Name":"Ada","Email":"ada@example.com"},"PrintSettings":{"PrintStreamType":"HTML","GeneratePrintStream":true}}}`
	if got := f.rawBody("POST /RESTTicketing.svc/order/startexternalpayment"); got != want {
		t.Errorf("start body\n%s\nwant\n%s", got, want)
	}
	d, err := c.CompleteOrder(ctx, CompleteOrderRequest{UserSessionID: "u", CustomerName: "Ada", CustomerEmail: "ada@example.com", BookingMode: BookingModeReservation})
	if err != nil || !d.Completed {
		t.Errorf("complete %+v %v", d, err)
	}
	if got := f.rawBody("POST /RESTTicketing.svc/order/payment"); got != `{"UserSessionId":"u","CustomerName":"Ada","CustomerEmail":"ada@example.com","BookingMode":1,"PerformPayment":false,"GeneratePrintStream":false,"ReturnPrintStream":false}` {
		t.Errorf("complete body %s", got)
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   error
	}{
		{401, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"missing token"}`, ErrUnauthorized},
		{403, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"wrong token"}`, ErrUnauthorized},
		{404, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"unknown path"}`, ErrNotFound},
		{400, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"malformed"}`, ErrInvalidRequest},
		{410, `{"result":4,"extendedResultCode":41,"errorDescription":"expired","reason":""}`, ErrOrderExpired},
		{500, `<html>oops</html>`, ErrUnavailable},
		{503, ``, ErrUnavailable},
		{200, `<html>proxy</html>`, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			f := newFake(t)
			f.reply("POST /RESTTicketing.svc/order/cancel", tt.status, tt.body)
			err := f.client().CancelOrder(context.Background(), "u")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
